"""The ``Library`` façade (``facade``), the one entry point the command line and the window call.

``Library`` reads, imports, edits a paper's own fields, searches and keeps the library in repair;
it is composed of one service per kind of work, each a module here: ``tags``,
``saved_searches``, ``history`` (undo and redo), ``trash``, ``duplicates``, ``discovery``
(the semantic vectors, related papers, recommendations) and ``atlas`` (the map). Beside them:
the database's answers to query filters (``live_filters``), sort orders (``sorting``),
restoring a backup (``restore``), and the library's reads in plain SQL, shared by the façade and
the command line's light path (``quick``), with that path's search and index flush
(``quick_search``, ``quick_index``).

May import: every other package of desk.core; nothing of desk.cli or desk.gui.
"""
