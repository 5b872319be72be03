"""The command line: a thin shell over desk.core.Library."""
