-- A trigram index of the imported entries' source texts (issue 27), as
-- SQLite's migration 0079: the memory list's source= filter reads the
-- entries whose source holds the needle's trigrams and matches them
-- exactly. A GIN index over tolk_trigram_codes (migration 0077) of the text,
-- kept by PostgreSQL itself: imported entries are written rarely, by
-- the import, so they need no notes and no background step. The index
-- refers to the function by its oid, and its body calls only
-- pg_catalog's functions, so any session's search_path keeps it.
CREATE INDEX memory_source_trigrams ON memory USING gin (tolk_trigram_codes(source));
