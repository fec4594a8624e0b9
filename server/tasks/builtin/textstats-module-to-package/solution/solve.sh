#!/bin/bash
# Oracle solution for textstats-module-to-package: brings the initial workspace to the reference end state.
set -euo pipefail
cd "${WORKSPACE:-/workspace}"

mkdir -p textstats
cat > textstats/tokens.py <<'SPROUT_EOF'
"""Splitting text into words and sentences."""
import re

WORD_RE = re.compile(r"[A-Za-z']+")
SENTENCE_END_RE = re.compile(r"[.!?]+")


def tokenize(text):
    """Lower-cased words, apostrophes at the edges removed."""
    return [w.lower().strip("'") for w in WORD_RE.findall(text) if w.strip("'")]


def sentences(text):
    return [s for s in (p.strip() for p in SENTENCE_END_RE.split(text)) if s]
SPROUT_EOF
mkdir -p textstats
cat > textstats/freq.py <<'SPROUT_EOF'
"""Word frequencies."""
from collections import Counter

from .tokens import tokenize

STOPWORDS = frozenset(
    "a an and are as at be but by for from has have in is it its of on or that the this to was were with".split()
)


def word_freq(text, top=None, skip_stopwords=True):
    """(word, count) pairs, most frequent first, ties alphabetical."""
    words = [w for w in tokenize(text) if not (skip_stopwords and w in STOPWORDS)]
    ranked = sorted(Counter(words).items(), key=lambda kv: (-kv[1], kv[0]))
    return ranked[:top] if top else ranked
SPROUT_EOF
mkdir -p textstats
cat > textstats/readability.py <<'SPROUT_EOF'
"""Readability scores."""
import re

from .tokens import sentences, tokenize


def count_syllables(word):
    """Vowel groups, minus a silent final e; at least one."""
    groups = re.findall(r"[aeiouy]+", word.lower())
    n = len(groups)
    if word.lower().endswith("e") and n > 1:
        n -= 1
    return max(n, 1)


def flesch_reading_ease(text):
    words = tokenize(text)
    if not words:
        return 0.0
    n_sentences = max(len(sentences(text)), 1)
    syllables = sum(count_syllables(w) for w in words)
    return round(206.835 - 1.015 * (len(words) / n_sentences) - 84.6 * (syllables / len(words)), 2)
SPROUT_EOF
mkdir -p textstats
cat > textstats/cli.py <<'SPROUT_EOF'
"""Command line: python3 -m textstats FILE"""
import sys

from .freq import word_freq
from .readability import flesch_reading_ease
from .tokens import sentences, tokenize

USAGE = """Text statistics: tokenising, word frequencies, readability.

Usage: python3 -m textstats FILE
"""


def summarize(text, top=5):
    lines = [
        f"words: {len(tokenize(text))}",
        f"sentences: {len(sentences(text))}",
        f"flesch: {flesch_reading_ease(text):.2f}",
        "top words:",
    ]
    lines += [f"  {w} {n}" for w, n in word_freq(text, top)]
    return "\n".join(lines)


def main(argv):
    if len(argv) != 1:
        print(USAGE, file=sys.stderr)
        return 2
    with open(argv[0], encoding="utf-8") as f:
        print(summarize(f.read()))
    return 0
SPROUT_EOF
mkdir -p textstats
cat > textstats/__init__.py <<'SPROUT_EOF'
"""Text statistics: tokenising, word frequencies, readability."""
from .cli import summarize
from .freq import STOPWORDS, word_freq
from .readability import count_syllables, flesch_reading_ease
from .tokens import sentences, tokenize

__all__ = [
    "STOPWORDS",
    "count_syllables",
    "flesch_reading_ease",
    "sentences",
    "summarize",
    "tokenize",
    "word_freq",
]
SPROUT_EOF
mkdir -p textstats
cat > textstats/__main__.py <<'SPROUT_EOF'
import sys

from .cli import main

sys.exit(main(sys.argv[1:]))
SPROUT_EOF

rm -f textstats.py
