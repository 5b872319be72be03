"""The bound on the ids one SQL statement binds, kept below SQLite's limit on bound parameters
(999 before SQLite 3.32) so every build of SQLite runs desk's statements."""

IDS_PER_STATEMENT = 900
