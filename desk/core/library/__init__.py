"""The ``Library`` façade (``facade``), the one entry point the command line and the window call.

Holds the façade and the parts it is composed of: working through papers (``workflow``: tags,
saved searches, undo, the trash), finding by meaning (``discovery``), the database's answers to
query filters (``live_filters``), sort orders (``sorting``), restoring a backup (``restore``),
the library's reads in plain SQL, shared by the façade and the command line's light path
(``quick``), and that path's search and index flush (``quick_search``, ``quick_index``).

May import: every other package of desk.core; nothing of desk.cli or desk.gui.
"""
