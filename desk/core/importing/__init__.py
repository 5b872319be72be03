"""Importing list files: one transaction per file, exact duplicates merged, then indexed and hashed.

Holds the ``importer`` (reader → analysis → database), what follows each file on the worker
processes (``indexing``: index segments and near-duplicate hashes) and an import's outcome in
plain words (``summary``).

May import: runtime, text, reader, store, search, semantic, dedup, records, edits.
"""
