"""The database schema version this desk writes (``PRAGMA user_version``).

Outside ``desk.core.store`` (whose package loads SQLAlchemy) so that a command reading the library
with plain ``sqlite3`` (``desk.core.library.quick``) can tell a database it may read as it is from one
that needs the migrations first.
"""

from __future__ import annotations

#: 5: covering indexes for the open's freshness check and the counts (paper.rev, noted papers,
#: papers per collection).
#: 6: the papers' (id, rev) digest kept by triggers (paper_digest), read by the freshness stamp.
#: 7: a covering index of the columns a list row shows (ix_paper_row), read by `desk list`.
#: 8: each paper's `desk list --json` object kept by triggers (paper_listing), read by `desk list`.
#: 9: rich lists' metadata (paper_meta, paper_author: real title, authors, year, venue, links),
#: shown in the listing objects.
#: 10: derived titles and short names re-derived by today's rules (no DDL; user titles kept).
SCHEMA_VERSION = 10
