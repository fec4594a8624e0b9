import argparse

from . import __version__
from .counting import count


def main(argv=None):
    parser = argparse.ArgumentParser(prog="tally")
    parser.add_argument("--version", action="version", version=f"tally {__version__}")
    sub = parser.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("count", help="print lines, words and characters of FILE")
    c.add_argument("file")
    args = parser.parse_args(argv)
    with open(args.file, encoding="utf-8") as f:
        lines, words, chars = count(f.read())
    print(f"{lines} {words} {chars} {args.file}")
    return 0
