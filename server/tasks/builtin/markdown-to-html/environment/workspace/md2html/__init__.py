"""A tiny Markdown to HTML converter."""
from .convert import convert

__all__ = ["convert"]
