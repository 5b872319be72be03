"""What every other part of the core runs on: errors in plain words, paths, logs, locks, the user's key.

Holds the error types a user can meet (``errors``) and the translation of disk and database
failures into them (``failures``), where a library lives (``paths``), atomic writes of a
user-named file (``files``), advisory locks (``file_locks``), lazy loggers (``logs``), the
user's secret key (``secret``), the worker processes an import or a rebuild uses and how work
is cut for them (``processes``, ``tuning``), and how much memory is mapped files (``resident``).

May import: nothing else of desk (the bottom layer).
"""
