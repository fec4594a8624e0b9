# Tunables; ops may change these at startup before the service objects are created.
CACHE_CAPACITY = 128
