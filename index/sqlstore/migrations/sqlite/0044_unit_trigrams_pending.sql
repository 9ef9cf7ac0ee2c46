-- The trigram index's upkeep off the write path (issues 26, 27). Kept by
-- the triggers of migration 0033, FTS5 tokenized a unit's text inside
-- every write that changed it: 150-190 µs of a unit PATCH (p50 +45-60%)
-- and a full import 8.2× its ceiling, since each write flushed a small
-- segment of its own. Now the triggers only note the unit's id here, and
-- a background step on the writer (trigram_pending.go) moves the noted
-- units into unit_trigrams in batches, one segment per batch, between
-- the other writes.
--
-- Searches stay exact: a search reads the index's candidates and every
-- unit noted here (trigramFilter), matched exactly as before. Until its
-- id is taken from here, a unit's row in unit_trigrams is stale (an
-- edit's old text, a removed unit's) or missing, and never trusted.
--
-- indexed says whether unit_trigrams holds a row for the id, which the
-- step deletes before it inserts the unit's text: the first note of an
-- id decides it (ON CONFLICT DO NOTHING), since unit_trigrams does not
-- change while the id is noted. A contentless FTS5 table cannot tell it
-- cheaply, and a delete of a row it does not hold must not be asked.
CREATE TABLE unit_trigrams_pending (
	unit_id INTEGER PRIMARY KEY,
	indexed INTEGER NOT NULL
);

DROP TRIGGER units_trigrams_insert;
DROP TRIGGER units_trigrams_update;
DROP TRIGGER units_trigrams_delete;

-- No Go function runs in these triggers any more: a write to units from
-- another program (the sqlite3 shell) is noted like Tolk's own and
-- indexed at Tolk's next start.
CREATE TRIGGER units_trigrams_insert AFTER INSERT ON units BEGIN
	INSERT INTO unit_trigrams_pending (unit_id, indexed) VALUES (new.id, 0) ON CONFLICT DO NOTHING;
END;

CREATE TRIGGER units_trigrams_update AFTER UPDATE OF context, source, target ON units
	WHEN old.context != new.context OR old.source != new.source OR old.target != new.target BEGIN
	INSERT INTO unit_trigrams_pending (unit_id, indexed) VALUES (new.id, 1) ON CONFLICT DO NOTHING;
END;

CREATE TRIGGER units_trigrams_delete AFTER DELETE ON units BEGIN
	INSERT INTO unit_trigrams_pending (unit_id, indexed) VALUES (old.id, 1) ON CONFLICT DO NOTHING;
END;
