class UnitsError(Exception):
    """Base class of every error raised by the units library."""


class UnknownUnitError(UnitsError):
    """The unit is not in the registry."""


class DimensionError(UnitsError):
    """The two units measure different things (e.g. length vs mass)."""
