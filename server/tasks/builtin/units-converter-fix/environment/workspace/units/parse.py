import re

from .errors import UnitsError

_QUANTITY = re.compile(r"^(\d+)\s+([A-Za-z]+)$")


def parse_quantity(text):
    """Parse a quantity such as '12.5 km' into (12.5, 'km')."""
    m = _QUANTITY.match(text.strip())
    if not m:
        raise UnitsError(f"cannot parse quantity: {text!r}")
    return float(m.group(1)), m.group(2)
