from .errors import UnknownUnitError

# unit -> (dimension, factor): one of `unit` equals `factor` of the dimension's base unit.
UNITS = {
    "mm": ("length", 0.001),
    "cm": ("length", 0.01),
    "m": ("length", 1.0),
    "km": ("length", 100.0),
    "in": ("length", 0.0254),
    "ft": ("length", 0.3048),
    "mi": ("length", 1609.344),
    "g": ("mass", 0.001),
    "kg": ("mass", 1.0),
    "lb": ("mass", 0.45359237),
    "oz": ("mass", 0.028349523125),
    "s": ("time", 1.0),
    "min": ("time", 60.0),
    "h": ("time", 3600.0),
}


def lookup(unit):
    try:
        return UNITS[unit]
    except KeyError:
        raise UnknownUnitError(f"unknown unit: {unit}") from None


def dimension_of(unit):
    return lookup(unit)[0]
