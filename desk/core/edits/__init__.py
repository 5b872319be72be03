"""What a user changes, each as an operation with its undo step: fields, tags, trash, merges, saved searches.

Holds a paper's own fields (``fields``: star, read, note, title), ``tags``, the ``trash``,
merging papers and "not a duplicate" (``merging``, ``merge_plan``), ``saved_searches``, the
undo history kept in the database (``history``) and undo/redo over it (``undo``).

May import: runtime, text, store, search, semantic, dedup, records.
"""
