"""Usage: python3 cli.py QUANTITY TARGET_UNIT      e.g.  python3 cli.py "10 km" mi"""
import sys

from units import convert, format_quantity, parse_quantity
from units.errors import UnitsError


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    try:
        value, unit = parse_quantity(argv[0])
        result = convert(value, unit, argv[1])
    except UnitsError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(format_quantity(result, argv[1]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
