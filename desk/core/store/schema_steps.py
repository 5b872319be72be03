"""Each schema version's change, frozen as it was written (calibre's ``upgrade_version_N``).

A step never reads today's models: its DDL is the SQL that version created, so a library
upgrading from any earlier version ends with the same tables as a new one, and a later
``ALTER TABLE`` step meets the shape it expects. A new version appends a step here and to
``desk.core.store.migrations.MIGRATIONS``; the models in ``models.py`` must then match the result
(``tests/core/store/test_migrations.py`` compares them).
"""

from __future__ import annotations

from sqlalchemy import Connection

# Version 1: papers, the files they came from, and the queue of papers the index is behind on.
V1_DDL = (
    """CREATE TABLE paper (
	id INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
	"key" TEXT NOT NULL,
	abstract_raw TEXT NOT NULL,
	abstract TEXT NOT NULL,
	derived_title VARCHAR(200) NOT NULL,
	user_title TEXT,
	short_name VARCHAR(80),
	starred BOOLEAN NOT NULL,
	read BOOLEAN NOT NULL,
	note TEXT NOT NULL,
	rev INTEGER NOT NULL,
	created_at DATETIME NOT NULL,
	updated_at DATETIME NOT NULL
)""",
    "CREATE INDEX ix_paper_starred ON paper (starred)",
    "CREATE INDEX ix_paper_read ON paper (read)",
    'CREATE UNIQUE INDEX ix_paper_key ON paper ("key")',
    """CREATE TABLE import_record (
	id INTEGER NOT NULL,
	sha256 VARCHAR(64) NOT NULL,
	file TEXT NOT NULL,
	path TEXT NOT NULL,
	collection TEXT NOT NULL,
	encoding VARCHAR(40) NOT NULL,
	paragraphs INTEGER NOT NULL,
	added INTEGER NOT NULL,
	merged INTEGER NOT NULL,
	imported_at DATETIME NOT NULL,
	PRIMARY KEY (id),
	UNIQUE (sha256)
)""",
    """CREATE TABLE index_queue (
	paper_id INTEGER NOT NULL,
	PRIMARY KEY (paper_id)
)""",
    """CREATE TABLE source (
	id INTEGER NOT NULL,
	paper_id INTEGER NOT NULL,
	file TEXT NOT NULL,
	"index" INTEGER NOT NULL,
	collection TEXT NOT NULL,
	import_id INTEGER NOT NULL,
	PRIMARY KEY (id),
	CONSTRAINT uq_source_paper_file_index UNIQUE (paper_id, file, "index"),
	FOREIGN KEY(paper_id) REFERENCES paper (id) ON DELETE CASCADE,
	FOREIGN KEY(import_id) REFERENCES import_record (id)
)""",
    "CREATE INDEX ix_source_paper_id ON source (paper_id)",
    'CREATE INDEX ix_source_file_index ON source (file, "index")',
    "CREATE INDEX ix_source_import_id ON source (import_id)",
)

# Version 2: merge records, key aliases and "not a duplicate" pairs.
V2_DDL = (
    """CREATE TABLE merge_record (
	id INTEGER NOT NULL,
	keep_id INTEGER NOT NULL,
	merged_ids TEXT NOT NULL,
	snapshot TEXT NOT NULL,
	created_at DATETIME NOT NULL,
	PRIMARY KEY (id)
)""",
    "CREATE INDEX ix_merge_record_keep_id ON merge_record (keep_id)",
    """CREATE TABLE key_alias (
	"key" TEXT NOT NULL,
	paper_id INTEGER NOT NULL,
	merge_id INTEGER NOT NULL,
	PRIMARY KEY ("key"),
	FOREIGN KEY(paper_id) REFERENCES paper (id) ON DELETE CASCADE,
	FOREIGN KEY(merge_id) REFERENCES merge_record (id) ON DELETE CASCADE
)""",
    "CREATE INDEX ix_key_alias_paper_id ON key_alias (paper_id)",
    "CREATE INDEX ix_key_alias_merge_id ON key_alias (merge_id)",
    """CREATE TABLE distinct_pair (
	a INTEGER NOT NULL,
	b INTEGER NOT NULL,
	created_at DATETIME NOT NULL,
	PRIMARY KEY (a, b),
	FOREIGN KEY(a) REFERENCES paper (id) ON DELETE CASCADE,
	FOREIGN KEY(b) REFERENCES paper (id) ON DELETE CASCADE
)""",
)


def _run(conn: Connection, statements: tuple[str, ...]) -> None:
    for statement in statements:
        conn.exec_driver_sql(statement)


def upgrade_1_base_tables(conn: Connection) -> None:
    """Version 1: the first tables (from an empty file)."""
    _run(conn, V1_DDL)


def upgrade_2_merges(conn: Connection) -> None:
    """Version 2: merge records, key aliases and "not a duplicate" pairs."""
    _run(conn, V2_DDL)


def upgrade_3_hashed_keys(conn: Connection) -> None:
    """Version 3: duplicate keys stored as their digest (desk.core.text.normalize.stored_key).

    No DDL: the key columns keep their type and hold the digest's text from now on.
    """
    from desk.core.text.normalize import stored_key

    raw = conn.connection.driver_connection
    raw.create_function("desk_stored_key", 1, stored_key, deterministic=True)  # type: ignore[union-attr]
    conn.exec_driver_sql("UPDATE paper SET key = desk_stored_key(key)")
    conn.exec_driver_sql("UPDATE key_alias SET key = desk_stored_key(key)")


# Version 4: tags (reading lists are tags with an order), saved searches, the undo history and
# the trash. Nothing existing is altered: a removed list's import_record keeps its row.
V4_DDL = (
    """CREATE TABLE tag (
	id INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
	name TEXT NOT NULL,
	"key" TEXT NOT NULL,
	created_at DATETIME NOT NULL,
	UNIQUE ("key")
)""",
    """CREATE TABLE paper_tag (
	paper_id INTEGER NOT NULL,
	tag_id INTEGER NOT NULL,
	position INTEGER NOT NULL,
	added_at DATETIME NOT NULL,
	PRIMARY KEY (paper_id, tag_id),
	FOREIGN KEY(paper_id) REFERENCES paper (id) ON DELETE CASCADE,
	FOREIGN KEY(tag_id) REFERENCES tag (id) ON DELETE CASCADE
)""",
    "CREATE INDEX ix_paper_tag_tag_position ON paper_tag (tag_id, position)",
    """CREATE TABLE saved_search (
	id INTEGER NOT NULL,
	name TEXT NOT NULL,
	"key" TEXT NOT NULL,
	"query" TEXT NOT NULL,
	created_at DATETIME NOT NULL,
	PRIMARY KEY (id),
	UNIQUE ("key")
)""",
    """CREATE TABLE history_step (
	id INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
	kind VARCHAR(20) NOT NULL,
	label TEXT NOT NULL,
	payload TEXT NOT NULL,
	undone BOOLEAN NOT NULL,
	group_key TEXT,
	created_at DATETIME NOT NULL,
	updated_at DATETIME NOT NULL
)""",
    "CREATE INDEX ix_history_step_undone ON history_step (undone)",
    """CREATE TABLE removed_list (
	id INTEGER NOT NULL,
	import_id INTEGER NOT NULL,
	sha256 VARCHAR(64) NOT NULL,
	file TEXT NOT NULL,
	collection TEXT NOT NULL,
	sources TEXT NOT NULL,
	removed_at DATETIME NOT NULL,
	PRIMARY KEY (id),
	FOREIGN KEY(import_id) REFERENCES import_record (id)
)""",
    "CREATE INDEX ix_removed_list_import_id ON removed_list (import_id)",
    """CREATE TABLE trash_entry (
	id INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
	paper_id INTEGER NOT NULL,
	title TEXT NOT NULL,
	has_note BOOLEAN NOT NULL,
	snapshot TEXT NOT NULL,
	list_id INTEGER,
	removed_at DATETIME NOT NULL,
	FOREIGN KEY(list_id) REFERENCES removed_list (id) ON DELETE SET NULL
)""",
    "CREATE INDEX ix_trash_entry_paper_id ON trash_entry (paper_id)",
    "CREATE INDEX ix_trash_entry_list_id ON trash_entry (list_id)",
)


def upgrade_4_tags_history_trash(conn: Connection) -> None:
    """Version 4: tags, saved searches, the undo history and the trash (new tables only)."""
    _run(conn, V4_DDL)


# Version 5: indexes that answer the open's freshness check (every paper's revision, without
# reading the abstracts beside it) and the counts `desk stats` shows, from the index alone.
V5_DDL = (
    "CREATE INDEX ix_paper_rev ON paper (rev)",
    "CREATE INDEX ix_paper_noted ON paper (id) WHERE trim(note) != ''",
    "CREATE INDEX ix_source_collection_paper ON source (collection, paper_id)",
)


def upgrade_5_covering_indexes(conn: Connection) -> None:
    """Version 5: covering indexes for the freshness check and the counts (no table changes)."""
    _run(conn, V5_DDL)


# Version 6: the papers' (id, rev) digest kept by triggers in one row, so that an open's
# freshness check and the stamp after each commit read it (one row) instead of scanning every
# paper (desk.core.search.freshness: 24 ms at 100k papers, on every command and every note). Each
# paper adds ((id % P) * 1103515245 + (rev % P) * 48271 + ((id % P) * (rev % P)) % P) % P,
# P = 2^31 - 1: freshness.DIGEST_SQL's term, so the row equals that query's answer.
V6_DDL = (
    """CREATE TABLE paper_digest (
	id INTEGER NOT NULL,
	papers INTEGER NOT NULL,
	digest INTEGER NOT NULL,
	PRIMARY KEY (id)
)""",
    "INSERT INTO paper_digest (id, papers, digest) SELECT 1, count(*), coalesce(sum(((id % 2147483647)"
    " * 1103515245 + (rev % 2147483647) * 48271 + ((id % 2147483647) * (rev % 2147483647)) % 2147483647)"
    " % 2147483647), 0) FROM paper",
    """CREATE TRIGGER paper_digest_insert AFTER INSERT ON paper BEGIN
	UPDATE paper_digest SET papers = papers + 1, digest = digest + ((NEW.id % 2147483647) * 1103515245
		+ (NEW.rev % 2147483647) * 48271 + ((NEW.id % 2147483647) * (NEW.rev % 2147483647)) % 2147483647)
		% 2147483647 WHERE id = 1;
END""",
    """CREATE TRIGGER paper_digest_delete AFTER DELETE ON paper BEGIN
	UPDATE paper_digest SET papers = papers - 1, digest = digest - ((OLD.id % 2147483647) * 1103515245
		+ (OLD.rev % 2147483647) * 48271 + ((OLD.id % 2147483647) * (OLD.rev % 2147483647)) % 2147483647)
		% 2147483647 WHERE id = 1;
END""",
    """CREATE TRIGGER paper_digest_update AFTER UPDATE OF id, rev ON paper BEGIN
	UPDATE paper_digest SET digest = digest - ((OLD.id % 2147483647) * 1103515245
		+ (OLD.rev % 2147483647) * 48271 + ((OLD.id % 2147483647) * (OLD.rev % 2147483647)) % 2147483647)
		% 2147483647 + ((NEW.id % 2147483647) * 1103515245 + (NEW.rev % 2147483647) * 48271
		+ ((NEW.id % 2147483647) * (NEW.rev % 2147483647)) % 2147483647) % 2147483647 WHERE id = 1;
END""",
)


def upgrade_6_paper_digest(conn: Connection) -> None:
    """Version 6: the papers' (id, rev) digest, kept current by triggers (a table and its row)."""
    _run(conn, V6_DDL)


# Version 7: every column a list row shows, in an index of its own (id first: in id order). A row
# of the table holds the abstract twice before them (~2.7 KB at 100k real papers), so listing every
# paper read ~400 MB of table pages (~110 ms of CPU at 100k); the index holds ~12 MB.
V7_DDL = ("CREATE INDEX ix_paper_row ON paper (id, starred, read, short_name, derived_title, user_title)",)


def upgrade_7_list_row_index(conn: Connection) -> None:
    """Version 7: the covering index `desk list` reads (no table changes)."""
    _run(conn, V7_DDL)


# Version 8: each paper's object of `desk list --json`, written by SQLite and kept by triggers on
# every table it reads (paper, source, paper_tag, tag), in the same transaction as the change.
# Writing 100k papers' JSON took SQLite 263 ms a listing; reading it back takes ~45 ms. The
# object is desk.core.store.listing's LIST_JSON, byte for byte (`desk check` compares every row): sources
# in the order of their ids, tags in the order of theirs; has_note as str.strip() decides, with
# every character it strips spelled out (listing.WHITE_SPACE).
_V8_SPACE = (
    "char(9,10,11,12,13,28,29,30,31,32,133,160,5760,8192,8193,8194,8195,8196,8197,8198,8199,8200,"
    "8201,8202,8232,8233,8239,8287,12288)"
)
#: One paper's listing row, for the paper whose id is PAPER.
_V8_ROW = """INSERT OR REPLACE INTO paper_listing (id, json) SELECT p.id, CAST(printf(
		'{"id": %d, "title": %s, "short_name": %s, "starred": %s, "read": %s, "has_note": %s, \
"sources": [%s], "tags": [%s]}',
		p.id, json_quote(coalesce(nullif(p.user_title, ''), p.derived_title)), json_quote(p.short_name),
		CASE WHEN p.starred THEN 'true' ELSE 'false' END, CASE WHEN p.read THEN 'true' ELSE 'false' END,
		CASE WHEN trim(p.note, SPACE) != '' THEN 'true' ELSE 'false' END,
		coalesce((SELECT group_concat(j, ', ') FROM (
			SELECT printf('{"file": %s, "index": %d, "collection": %s}',
			json_quote(s.file), s."index", json_quote(s.collection)) AS j FROM source AS s
			WHERE s.paper_id = p.id ORDER BY s.id)), ''),
		coalesce((SELECT group_concat(j, ', ') FROM (SELECT json_quote(t.name) AS j FROM paper_tag AS pt
			JOIN tag AS t ON t.id = pt.tag_id WHERE pt.paper_id = p.id ORDER BY t.id)), '')
	) AS BLOB) FROM paper AS p WHERE p.id = PAPER;""".replace("SPACE", _V8_SPACE)


def _row(paper: str) -> str:
    """_V8_ROW for the paper whose id is the SQL expression ``paper``."""
    return _V8_ROW.replace("PAPER", paper)


def _trigger(name: str, event: str, *statements: str) -> str:
    """A trigger of step 8: ``statements`` run for each row of ``event``."""
    body = "\n\t".join(statements)
    return f"CREATE TRIGGER paper_listing_{name} {event} BEGIN\n\t{body}\nEND"


#: The insert triggers stand aside while a writer holds a row in paper_listing_deferred: the
#: importer, which writes the objects of every paper it added to or inserted in one statement
#: before its transaction ends (desk.core.store.listing.write_deferred; a trigger a paper and a source
#: cost ~21 µs a paper, the one statement ~4, the skipped triggers ~3.5).
_UNLESS_DEFERRED = "WHEN NOT EXISTS (SELECT 1 FROM paper_listing_deferred)"


_EVERY_ROW = _row("p.id").replace(" WHERE p.id = p.id;", "")  # every paper's, with no WHERE
V8_DDL = (
    """CREATE TABLE paper_listing (
	id INTEGER NOT NULL,
	json BLOB NOT NULL,
	PRIMARY KEY (id)
)""",
    """CREATE TABLE paper_listing_deferred (
	id INTEGER NOT NULL,
	PRIMARY KEY (id)
)""",
    _EVERY_ROW,
    _trigger("insert", f"AFTER INSERT ON paper {_UNLESS_DEFERRED}", _row("NEW.id")),
    _trigger(
        "update",
        "AFTER UPDATE OF id, user_title, derived_title, short_name, starred, read, note ON paper",
        "DELETE FROM paper_listing WHERE id = OLD.id;",
        _row("NEW.id"),
    ),
    _trigger("delete", "AFTER DELETE ON paper", "DELETE FROM paper_listing WHERE id = OLD.id;"),
    _trigger("source_insert", f"AFTER INSERT ON source {_UNLESS_DEFERRED}", _row("NEW.paper_id")),
    _trigger("source_update", "AFTER UPDATE ON source", _row("OLD.paper_id"), _row("NEW.paper_id")),
    _trigger("source_delete", "AFTER DELETE ON source", _row("OLD.paper_id")),
    _trigger("tag_insert", "AFTER INSERT ON paper_tag", _row("NEW.paper_id")),
    _trigger("tag_delete", "AFTER DELETE ON paper_tag", _row("OLD.paper_id")),
    _trigger(
        "tag_update",
        "AFTER UPDATE OF paper_id, tag_id ON paper_tag",
        _row("OLD.paper_id"),
        _row("NEW.paper_id"),
    ),
    _trigger(
        "tag_rename",
        "AFTER UPDATE OF id, name ON tag",
        _EVERY_ROW + "\n\t\tWHERE p.id IN (SELECT paper_id FROM paper_tag WHERE tag_id IN (OLD.id, NEW.id));",
    ),
)


def upgrade_8_paper_listing(conn: Connection) -> None:
    """Version 8: every paper's `desk list --json` object, kept by triggers (a table and its rows)."""
    _run(conn, V8_DDL)


# Version 9: what a rich list (BibTeX, RIS, CSV, OpenReview, arXiv) says about a paper. One row of
# paper_meta per paper that has any (its real title, year, venue, link, DOI, arXiv id) and its
# authors in order, each with a folded form (lowercased, accents removed: entries.fold) that
# author: searches. Neither table has a foreign key: a trashed or merged-away paper leaves the
# paper table and comes back under its own id (ids are never reused), finding its metadata where
# it was; emptying the trash deletes it. The real title is also the paper's derived_title (every
# list and search reads that one column), and paper_real_title puts it back whenever anything
# rewrites derived_title (a re-derivation of titles), so a list's title is never re-derived.
# The listing objects gain the fields for a paper that has metadata (and are unchanged for one
# that has none): every listing trigger is made again with V9's row, and paper_meta and
# paper_author get their own.
_V9_ROW = """INSERT OR REPLACE INTO paper_listing (id, json) SELECT p.id, CAST(printf(
		'{"id": %d, "title": %s, "short_name": %s, "starred": %s, "read": %s, "has_note": %s, \
"sources": [%s], "tags": [%s]%s}',
		p.id, json_quote(coalesce(nullif(p.user_title, ''), p.derived_title)), json_quote(p.short_name),
		CASE WHEN p.starred THEN 'true' ELSE 'false' END, CASE WHEN p.read THEN 'true' ELSE 'false' END,
		CASE WHEN trim(p.note, SPACE) != '' THEN 'true' ELSE 'false' END,
		coalesce((SELECT group_concat(j, ', ') FROM (
			SELECT printf('{"file": %s, "index": %d, "collection": %s}',
			json_quote(s.file), s."index", json_quote(s.collection)) AS j FROM source AS s
			WHERE s.paper_id = p.id ORDER BY s.id)), ''),
		coalesce((SELECT group_concat(j, ', ') FROM (SELECT json_quote(t.name) AS j FROM paper_tag AS pt
			JOIN tag AS t ON t.id = pt.tag_id WHERE pt.paper_id = p.id ORDER BY t.id)), ''),
		CASE WHEN m.paper_id IS NULL THEN '' ELSE printf(
			', "authors": [%s], "year": %s, "venue": %s, "url": %s, "doi": %s, "arxiv_id": %s',
			coalesce((SELECT group_concat(j, ', ') FROM (SELECT json_quote(a.name) AS j
				FROM paper_author AS a WHERE a.paper_id = p.id ORDER BY a.position)), ''),
			coalesce(m.year, 'null'), json_quote(m.venue), json_quote(m.url), json_quote(m.doi),
			json_quote(m.arxiv_id)) END
	) AS BLOB) FROM paper AS p LEFT JOIN paper_meta AS m ON m.paper_id = p.id
	WHERE p.id = PAPER;""".replace("SPACE", _V8_SPACE)


def _row9(paper: str) -> str:
    """_V9_ROW for the paper whose id is the SQL expression ``paper``."""
    return _V9_ROW.replace("PAPER", paper)


_EVERY_ROW9 = _row9("p.id").replace("\n\tWHERE p.id = p.id;", "")
#: The listing triggers of step 8 that write a row, made again by step 9 with its row.
_V9_REMADE = (
    "insert", "update", "source_insert", "source_update", "source_delete",
    "tag_insert", "tag_delete", "tag_update", "tag_rename",
)  # fmt: skip
_V9_LISTING_TRIGGERS = (
    _trigger("insert", f"AFTER INSERT ON paper {_UNLESS_DEFERRED}", _row9("NEW.id")),
    _trigger(
        "update",
        "AFTER UPDATE OF id, user_title, derived_title, short_name, starred, read, note ON paper",
        "DELETE FROM paper_listing WHERE id = OLD.id;",
        _row9("NEW.id"),
    ),
    _trigger("source_insert", f"AFTER INSERT ON source {_UNLESS_DEFERRED}", _row9("NEW.paper_id")),
    _trigger("source_update", "AFTER UPDATE ON source", _row9("OLD.paper_id"), _row9("NEW.paper_id")),
    _trigger("source_delete", "AFTER DELETE ON source", _row9("OLD.paper_id")),
    _trigger("tag_insert", "AFTER INSERT ON paper_tag", _row9("NEW.paper_id")),
    _trigger("tag_delete", "AFTER DELETE ON paper_tag", _row9("OLD.paper_id")),
    _trigger(
        "tag_update",
        "AFTER UPDATE OF paper_id, tag_id ON paper_tag",
        _row9("OLD.paper_id"),
        _row9("NEW.paper_id"),
    ),
    _trigger(
        "tag_rename",
        "AFTER UPDATE OF id, name ON tag",
        _EVERY_ROW9
        + "\n\t\tWHERE p.id IN (SELECT paper_id FROM paper_tag WHERE tag_id IN (OLD.id, NEW.id));",
    ),
    _trigger("meta_insert", f"AFTER INSERT ON paper_meta {_UNLESS_DEFERRED}", _row9("NEW.paper_id")),
    _trigger("meta_update", "AFTER UPDATE ON paper_meta", _row9("OLD.paper_id"), _row9("NEW.paper_id")),
    _trigger("meta_delete", "AFTER DELETE ON paper_meta", _row9("OLD.paper_id")),
    _trigger("author_insert", f"AFTER INSERT ON paper_author {_UNLESS_DEFERRED}", _row9("NEW.paper_id")),
    _trigger("author_update", "AFTER UPDATE ON paper_author", _row9("OLD.paper_id"), _row9("NEW.paper_id")),
    _trigger("author_delete", "AFTER DELETE ON paper_author", _row9("OLD.paper_id")),
)
V9_REAL_TITLE = """CREATE TRIGGER paper_real_title AFTER UPDATE OF derived_title ON paper
	WHEN EXISTS (SELECT 1 FROM paper_meta WHERE paper_id = NEW.id AND title IS NOT NULL
		AND title != NEW.derived_title) BEGIN
	UPDATE paper SET derived_title = (SELECT title FROM paper_meta WHERE paper_id = NEW.id) WHERE id = NEW.id;
END"""
V9_DDL = (
    """CREATE TABLE paper_meta (
	paper_id INTEGER NOT NULL,
	title TEXT,
	year INTEGER,
	venue TEXT,
	url TEXT,
	doi TEXT,
	arxiv_id TEXT,
	PRIMARY KEY (paper_id)
)""",
    "CREATE INDEX ix_paper_meta_doi ON paper_meta (doi)",
    "CREATE INDEX ix_paper_meta_arxiv_id ON paper_meta (arxiv_id)",
    "CREATE INDEX ix_paper_meta_year ON paper_meta (year)",
    """CREATE TABLE paper_author (
	paper_id INTEGER NOT NULL,
	position INTEGER NOT NULL,
	name TEXT NOT NULL,
	folded TEXT NOT NULL,
	PRIMARY KEY (paper_id, position)
)""",
    "CREATE INDEX ix_paper_author_folded ON paper_author (folded)",
    *(f"DROP TRIGGER paper_listing_{name}" for name in _V9_REMADE),
    *_V9_LISTING_TRIGGERS,
    V9_REAL_TITLE,
)
#: The triggers a new library has after step 9 (models.py creates them after the tables).
V9_TRIGGERS = (
    *(t for t in V8_DDL[3:] if t.split()[2].removeprefix("paper_listing_") not in _V9_REMADE),
    *_V9_LISTING_TRIGGERS,
    V9_REAL_TITLE,
)


def upgrade_9_paper_metadata(conn: Connection) -> None:
    """Version 9: rich lists' metadata (paper_meta, paper_author); the listing objects show it."""
    _run(conn, V9_DDL)


# Version 10: no DDL. Every paper's derived title and short name are derived anew from its readable
# abstract by the rules of the desk that upgrades (a name only where the abstract defines one; no
# title starting with And/That/We/This/It). A title the user set lives in user_title, which this
# step never reads or writes. A changed paper takes a new revision and is queued for the search
# index (the open then rewrites those entries); trashed papers' snapshots are re-derived too, so a
# restore brings back today's title. Papers are read 500 at a time in id order, not all at once.
# A paper whose rich list gave its real title (paper_meta, step 9) keeps its title and short name.
_V10_BATCH = 500


def upgrade_10_rederived_titles(conn: Connection) -> None:
    """Version 10: derived titles and short names re-derived (user titles kept)."""
    import json

    from desk.core.text import derive_title, find_short_name

    def derive(readable: str) -> tuple[str, str | None]:
        short = find_short_name(readable)
        return derive_title(readable, short), short

    last = 0
    while True:
        rows = conn.exec_driver_sql(
            "SELECT id, abstract, derived_title, short_name FROM paper WHERE id > ? AND id NOT IN"
            " (SELECT paper_id FROM paper_meta WHERE title IS NOT NULL) ORDER BY id LIMIT ?",
            (last, _V10_BATCH),
        ).fetchall()
        if not rows:
            break
        last = rows[-1][0]
        changed = [
            (title, short, pid)
            for pid, readable, old_title, old_short in rows
            for title, short in [derive(readable)]
            if (title, short) != (old_title, old_short)
        ]
        if changed:
            conn.exec_driver_sql(
                "UPDATE paper SET derived_title = ?, short_name = ?, rev = coalesce(rev, 0) + 1 WHERE id = ?",
                changed,
            )
            conn.exec_driver_sql(
                "INSERT INTO index_queue (paper_id) VALUES (?) ON CONFLICT DO NOTHING",
                [(pid,) for *_, pid in changed],
            )
    entries = conn.exec_driver_sql("SELECT id, snapshot FROM trash_entry").fetchall()
    updates = []
    for entry_id, snapshot in entries:
        data = json.loads(snapshot)
        if not isinstance(data, dict) or not isinstance(data.get("abstract"), str):
            continue  # not a paper's snapshot as desk writes it: left as it is
        data["derived_title"], data["short_name"] = derive(data["abstract"])
        title = data.get("user_title") or data["derived_title"]
        updates.append((title, json.dumps(data), entry_id))
    if updates:
        conn.exec_driver_sql("UPDATE trash_entry SET title = ?, snapshot = ? WHERE id = ?", updates)
