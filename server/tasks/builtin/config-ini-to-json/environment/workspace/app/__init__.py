"""Demo application whose settings live in config/."""
