import os
import subprocess
import sys
import unittest

# The verifier runs with cwd /workspace; WORKSPACE lets the same tests run elsewhere.
WORKSPACE = os.environ.get("WORKSPACE", "/workspace")
if WORKSPACE not in sys.path:
    sys.path.insert(0, WORKSPACE)


def run(args, cwd=WORKSPACE, env=None, input=None):
    full_env = dict(os.environ)
    full_env.update(env or {})
    return subprocess.run(args, cwd=cwd, env=full_env, input=input, capture_output=True, text=True, timeout=60)


import tempfile

from md2html import convert


class BlockTests(unittest.TestCase):
    def test_headings(self):
        self.assertEqual(convert("# Title\n\n### Sub section\n"), "<h1>Title</h1>\n<h3>Sub section</h3>\n")

    def test_seven_hashes_is_a_paragraph(self):
        self.assertEqual(convert("####### nope"), "<p>####### nope</p>\n")

    def test_paragraph_lines_are_joined(self):
        self.assertEqual(convert("one\ntwo\n\nthree\n"), "<p>one two</p>\n<p>three</p>\n")

    def test_unordered_list(self):
        self.assertEqual(convert("- apples\n* pears\n"), "<ul>\n<li>apples</li>\n<li>pears</li>\n</ul>\n")

    def test_ordered_list(self):
        self.assertEqual(convert("1. first\n2. second\n10. tenth\n"), "<ol>\n<li>first</li>\n<li>second</li>\n<li>tenth</li>\n</ol>\n")

    def test_list_directly_after_paragraph(self):
        self.assertEqual(convert("Shopping:\n- milk\n- eggs\nDone."), "<p>Shopping:</p>\n<ul>\n<li>milk</li>\n<li>eggs</li>\n</ul>\n<p>Done.</p>\n")

    def test_fenced_code_is_verbatim_and_escaped(self):
        src = "```py\nif a < b:\n    print('**x**')\n```\nafter"
        self.assertEqual(convert(src), '<pre><code class="language-py">if a &lt; b:\n    print(\'**x**\')\n</code></pre>\n<p>after</p>\n')

    def test_empty_input(self):
        self.assertEqual(convert(""), "")
        self.assertEqual(convert("\n   \n"), "")


class InlineTests(unittest.TestCase):
    def test_bold_em_and_code(self):
        self.assertEqual(convert("**bold** and *em* and `a*b*c`"), "<p><strong>bold</strong> and <em>em</em> and <code>a*b*c</code></p>\n")

    def test_link(self):
        self.assertEqual(convert("see [the docs](https://example.com/x) now"), '<p>see <a href="https://example.com/x">the docs</a> now</p>\n')

    def test_html_is_escaped(self):
        self.assertEqual(convert("a < b & c > d"), "<p>a &lt; b &amp; c &gt; d</p>\n")

    def test_inline_in_headings_and_items(self):
        self.assertEqual(convert("## The *new* `api`\n- **x** & y"), "<h2>The <em>new</em> <code>api</code></h2>\n<ul>\n<li><strong>x</strong> &amp; y</li>\n</ul>\n")


class CliTests(unittest.TestCase):
    def test_cli_prints_html(self):
        fd, path = tempfile.mkstemp(suffix=".md")
        with os.fdopen(fd, "w") as f:
            f.write("# Hi\n\nSome *text*.\n")
        r = run([sys.executable, "md.py", path])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, "<h1>Hi</h1>\n<p>Some <em>text</em>.</p>\n")
