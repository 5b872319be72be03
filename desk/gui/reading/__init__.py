"""The paper in view: its abstract, its note, the papers related to it, and what the keys do to it."""
