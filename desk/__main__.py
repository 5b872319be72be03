"""`python -m desk` is the same as `desk`."""

from desk.cli.main import entry

entry()
