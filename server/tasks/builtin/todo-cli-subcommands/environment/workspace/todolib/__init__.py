"""Implementation of the todo command line."""
