def format_quantity(value, unit, precision=2):
    """Render a value with a fixed number of decimals, e.g. '6.21 mi'."""
    return f"{value:.{precision}f} {unit}"
