"""Organising papers from the keyboard: triage mode, the 1–9 tag keys, undo and redo."""
