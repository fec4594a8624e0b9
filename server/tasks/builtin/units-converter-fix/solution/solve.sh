#!/bin/bash
# Oracle solution for units-converter-fix: brings the initial workspace to the reference end state.
set -euo pipefail
cd "${WORKSPACE:-/workspace}"

mkdir -p units
cat > units/convert.py <<'SPROUT_EOF'
from .errors import DimensionError
from .registry import lookup
from .temperature import convert_temperature


def convert(value, src, dst):
    """Convert `value` expressed in unit `src` into unit `dst`."""
    src_dim, src_factor = lookup(src)
    dst_dim, dst_factor = lookup(dst)
    if src_dim != dst_dim:
        raise DimensionError(f"cannot convert {src} ({src_dim}) to {dst} ({dst_dim})")
    if src_dim == "temperature":
        return convert_temperature(value, src, dst)
    # Go up to the base unit, then down to the target unit.
    return value * src_factor / dst_factor
SPROUT_EOF
mkdir -p units
cat > units/registry.py <<'SPROUT_EOF'
from .errors import UnknownUnitError

# unit -> (dimension, factor): one of `unit` equals `factor` of the dimension's base unit.
UNITS = {
    "mm": ("length", 0.001),
    "cm": ("length", 0.01),
    "m": ("length", 1.0),
    "km": ("length", 1000.0),
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
    # Temperatures are affine; units/temperature.py converts them, the factor is unused.
    "C": ("temperature", None),
    "F": ("temperature", None),
    "K": ("temperature", None),
}


def lookup(unit):
    try:
        return UNITS[unit]
    except KeyError:
        raise UnknownUnitError(f"unknown unit: {unit}") from None


def dimension_of(unit):
    return lookup(unit)[0]
SPROUT_EOF
mkdir -p units
cat > units/parse.py <<'SPROUT_EOF'
import re

from .errors import UnitsError

_QUANTITY = re.compile(r"^([-+]?\d+(?:\.\d+)?)\s*([A-Za-z]+)$")


def parse_quantity(text):
    """Parse a quantity such as '12.5 km' into (12.5, 'km')."""
    m = _QUANTITY.match(text.strip())
    if not m:
        raise UnitsError(f"cannot parse quantity: {text!r}")
    return float(m.group(1)), m.group(2)
SPROUT_EOF
mkdir -p units
cat > units/temperature.py <<'SPROUT_EOF'
"""Temperature scales are affine (scale plus offset), so the registry's plain
factors cannot express them; everything goes through kelvin instead."""

_TO_KELVIN = {
    "K": lambda v: v,
    "C": lambda v: v + 273.15,
    "F": lambda v: (v - 32) * 5 / 9 + 273.15,
}

_FROM_KELVIN = {
    "K": lambda k: k,
    "C": lambda k: k - 273.15,
    "F": lambda k: (k - 273.15) * 9 / 5 + 32,
}


def convert_temperature(value, src, dst):
    return _FROM_KELVIN[dst](_TO_KELVIN[src](value))
SPROUT_EOF
