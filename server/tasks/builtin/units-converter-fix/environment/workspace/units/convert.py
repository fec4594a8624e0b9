from .errors import DimensionError
from .registry import lookup


def convert(value, src, dst):
    """Convert `value` expressed in unit `src` into unit `dst`."""
    src_dim, src_factor = lookup(src)
    dst_dim, dst_factor = lookup(dst)
    if src_dim != dst_dim:
        raise ValueError(f"cannot convert {src} to {dst}")
    return value * dst_factor / src_factor
