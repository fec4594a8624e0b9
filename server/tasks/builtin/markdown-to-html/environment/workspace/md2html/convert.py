from .inline import render_inline


def convert(text):
    """Convert Markdown text to HTML (one block element per line of output)."""
    out = []
    for line in text.splitlines():
        if not line.strip():
            continue
        if line.startswith("#"):
            level = len(line) - len(line.lstrip("#"))
            out.append(f"<h{level}>{render_inline(line[level:].strip())}</h{level}>")
        else:
            out.append(f"<p>{render_inline(line.strip())}</p>")
    return "\n".join(out) + "\n"
