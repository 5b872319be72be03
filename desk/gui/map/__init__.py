"""The map window (View → Map): every paper a dot laid out by meaning, moved through by keys."""
