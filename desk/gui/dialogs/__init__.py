"""Dialogs the window opens: importing lists, exporting to Markdown, the keyboard shortcut sheet."""
