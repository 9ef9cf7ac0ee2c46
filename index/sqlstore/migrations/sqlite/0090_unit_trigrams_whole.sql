-- SQLite's trigram rows hold every unit's whole text again: the links
-- of migration 0089 made the common needles' searches slower on SQLite
-- (session 8, CPU per request over the corpus: "play" 40 -> 65 ms,
-- key:Play 28 -> 40, source:r"^Play" 45 -> 70: each candidate came
-- through a link instead of straight from FTS5's posting lists), and
-- SQLite's index is not the one whose size blocks 100x (PostgreSQL's
-- is; it keeps its links). The linked units are noted, both rows stale
-- (indexed 1), so the step writes their source and key back; an edit's
-- note (2) says the key row stays, which a linked unit's empty key row
-- must not.
INSERT INTO unit_trigrams_pending (unit_id, indexed) SELECT unit_id, 1 FROM unit_trigram_sources WHERE true
	ON CONFLICT (unit_id) DO UPDATE SET indexed = 1 WHERE indexed = 2;
DROP TABLE unit_trigram_sources;
