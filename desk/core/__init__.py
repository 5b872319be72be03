"""The app without a window: models, import, text, search, dedup, export and the Library façade."""
