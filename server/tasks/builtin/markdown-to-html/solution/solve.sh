#!/bin/bash
# Oracle solution for markdown-to-html: brings the initial workspace to the reference end state.
set -euo pipefail
cd "${WORKSPACE:-/workspace}"

mkdir -p md2html
cat > md2html/inline.py <<'SPROUT_EOF'
import html
import re

CODE_RE = re.compile(r"`([^`]+)`")
LINK_RE = re.compile(r"\[([^\]]+)\]\(([^)\s]+)\)")
BOLD_RE = re.compile(r"\*\*(.+?)\*\*")
EM_RE = re.compile(r"\*(.+?)\*")


def render_inline(text):
    """Escape HTML and apply code, link, bold and emphasis formatting."""
    # Code spans are split out first so nothing inside them gets formatted.
    parts = CODE_RE.split(text)
    out = []
    for i, part in enumerate(parts):
        if i % 2:
            out.append(f"<code>{html.escape(part, quote=False)}</code>")
        else:
            out.append(_format(html.escape(part, quote=False)))
    return "".join(out)


def _format(s):
    s = LINK_RE.sub(r'<a href="\2">\1</a>', s)
    # Bold before emphasis: otherwise `*` would eat half of every `**`.
    s = BOLD_RE.sub(r"<strong>\1</strong>", s)
    s = EM_RE.sub(r"<em>\1</em>", s)
    return s
SPROUT_EOF
mkdir -p md2html
cat > md2html/convert.py <<'SPROUT_EOF'
import html
import re

from .inline import render_inline

HEADING_RE = re.compile(r"^(#{1,6})\s+(.*?)\s*$")
UL_RE = re.compile(r"^[-*]\s+(.*)$")
OL_RE = re.compile(r"^\d+\.\s+(.*)$")
FENCE_RE = re.compile(r"^```\s*([\w+-]*)\s*$")
LISTS = ((UL_RE, "ul"), (OL_RE, "ol"))


def _starts_block(line):
    return any(r.match(line) for r in (HEADING_RE, UL_RE, OL_RE, FENCE_RE))


def convert(text):
    """Convert Markdown text to HTML."""
    lines = text.splitlines()
    out = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.strip():
            i += 1
            continue
        fence = FENCE_RE.match(line)
        if fence:
            body = []
            i += 1
            while i < len(lines) and not FENCE_RE.match(lines[i]):
                body.append(lines[i] + "\n")
                i += 1
            i += 1  # the closing fence
            cls = f' class="language-{fence.group(1)}"' if fence.group(1) else ""
            out.append(f"<pre><code{cls}>{html.escape(''.join(body), quote=False)}</code></pre>")
            continue
        heading = HEADING_RE.match(line)
        if heading:
            n = len(heading.group(1))
            out.append(f"<h{n}>{render_inline(heading.group(2))}</h{n}>")
            i += 1
            continue
        listed = False
        for regex, tag in LISTS:
            if regex.match(line):
                items = []
                while i < len(lines) and regex.match(lines[i]):
                    items.append(f"<li>{render_inline(regex.match(lines[i]).group(1))}</li>")
                    i += 1
                out.append(f"<{tag}>\n" + "\n".join(items) + f"\n</{tag}>")
                listed = True
                break
        if listed:
            continue
        para = [line.strip()]
        i += 1
        while i < len(lines) and lines[i].strip() and not _starts_block(lines[i]):
            para.append(lines[i].strip())
            i += 1
        out.append(f"<p>{render_inline(' '.join(para))}</p>")
    return "\n".join(out) + "\n" if out else ""
SPROUT_EOF
