"""desk: an offline, keyboard-driven reading list for research-paper abstracts."""

__version__ = "0.1.0"
