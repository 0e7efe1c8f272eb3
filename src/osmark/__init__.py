"""osmark: a system benchmark suite for Linux."""

__version__ = "0.1.0"
