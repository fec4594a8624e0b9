"""Product catalog service."""
