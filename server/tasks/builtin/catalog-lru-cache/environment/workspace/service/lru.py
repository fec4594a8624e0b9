class LRUCache:
    """Least-recently-used cache (not implemented yet)."""

    def __init__(self, capacity):
        raise NotImplementedError("LRUCache")
