def render_inline(text):
    """Inline formatting inside a block (not implemented yet)."""
    return text
