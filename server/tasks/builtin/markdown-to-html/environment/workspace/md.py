"""Usage: python3 md.py FILE.md   -> prints the HTML"""
import sys

from md2html import convert


def main(argv):
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    with open(argv[0], encoding="utf-8") as f:
        sys.stdout.write(convert(f.read()))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
