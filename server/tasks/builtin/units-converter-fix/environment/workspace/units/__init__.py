"""Tiny unit conversion library."""
from .convert import convert
from .errors import DimensionError, UnitsError, UnknownUnitError
from .format import format_quantity
from .parse import parse_quantity

__all__ = [
    "convert",
    "parse_quantity",
    "format_quantity",
    "UnitsError",
    "DimensionError",
    "UnknownUnitError",
]
