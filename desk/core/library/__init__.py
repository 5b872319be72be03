"""The ``Library`` façade (``facade``), the one entry point the command line and the window call.

Holds the façade and the parts it is composed of: working through papers (``workflow``: tags,
saved searches, undo, the trash), finding by meaning (``discovery``), the database's answers to
query filters (``live_filters``), sort orders (``sorting``), restoring a backup (``restore``),
and the light read path a command uses when the index needs nothing done (``quick``,
``quick_search``).

May import: every other package of desk.core; nothing of desk.cli or desk.gui.
"""
