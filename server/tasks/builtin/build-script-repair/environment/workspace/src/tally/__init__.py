"""tally: count lines, words and characters."""
__version__ = "@VERSION@"
