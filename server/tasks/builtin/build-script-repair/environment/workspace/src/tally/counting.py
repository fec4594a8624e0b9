def count(text):
    """Return (lines, words, characters) like `wc`."""
    return text.count("\n"), len(text.split()), len(text)
