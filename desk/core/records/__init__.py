"""Plain frozen records the core hands to the command line and the window (never live ORM objects).

``page`` holds what a page of results is made of (a paper's summary, its sources, a result
page); ``detail`` the others (a paper in full, counts, tags, an import's report, the history's
and the trash's entries), kept apart so a `desk search` process creates only the classes it uses.

May import: runtime, text, store, search (for types).
"""
