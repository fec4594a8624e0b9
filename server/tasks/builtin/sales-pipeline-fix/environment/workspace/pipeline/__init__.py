"""Sales report pipeline: parse -> aggregate -> report."""
