-- The trigram index's upkeep off the write path (issues 26, 27); see the
-- SQLite migration of the same number for the design.
--
-- On PostgreSQL the GIN index over tolk_unit_trigrams(context, source,
-- target) (migration 0033) cost more than on SQLite: a unit's update
-- that is not HOT (and units has indexes on state and the other columns
-- an edit changes, so an edit's is not) evaluates every index
-- expression, and tolk_unit_trigrams, an SQL function of
-- generate_series and array_agg(DISTINCT), took about 1 ms a unit
-- (3,000 updates of a unit's state alone: 3.5 s with the index, 0.02 s
-- without; the index's creation over 50,000 units 45 s). GIN's
-- fastupdate defers the posting lists, not the expression.
--
-- So the trigrams move to a table of their own, unit_trigrams, written
-- only by the background step (trigram_pending.go), which reads the
-- folded text with lower() (the folding ILIKE applies, as before) and
-- cuts it into trigrams in Go. Triggers note the units whose text
-- changed in unit_trigrams_pending; searches read the candidates of
-- unit_trigrams and every noted unit, matched exactly.
DROP INDEX units_trigrams;
DROP FUNCTION tolk_unit_trigrams(text, text, text);

CREATE TABLE unit_trigrams (
	unit_id BIGINT PRIMARY KEY,
	trigrams TEXT[] NOT NULL
);
CREATE INDEX unit_trigrams_gin ON unit_trigrams USING gin (trigrams);

-- indexed: unit_trigrams holds a row for the id (the step replaces it
-- either way on PostgreSQL; kept for the same shape as SQLite's).
CREATE TABLE unit_trigrams_pending (
	unit_id BIGINT PRIMARY KEY,
	indexed INTEGER NOT NULL
);

-- Every unit is indexed anew by the step after this migration, in
-- batches, rather than here in one statement that would hold the
-- upgrade for minutes; the searches read them exactly meanwhile.
INSERT INTO unit_trigrams_pending (unit_id, indexed) SELECT id, 0 FROM units;

-- One function for inserts and deletes: both transition tables are
-- named noted; a deleted unit's row is in unit_trigrams (indexed 1)
-- unless it was noted already.
CREATE FUNCTION units_trigrams_note() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO unit_trigrams_pending (unit_id, indexed)
		SELECT id, CASE TG_OP WHEN 'INSERT' THEN 0 ELSE 1 END FROM noted
		ON CONFLICT (unit_id) DO NOTHING;
	RETURN NULL;
END $$;
CREATE TRIGGER units_trigrams_insert AFTER INSERT ON units
	REFERENCING NEW TABLE AS noted FOR EACH STATEMENT EXECUTE FUNCTION units_trigrams_note();
CREATE TRIGGER units_trigrams_delete AFTER DELETE ON units
	REFERENCING OLD TABLE AS noted FOR EACH STATEMENT EXECUTE FUNCTION units_trigrams_note();

-- A row trigger with a WHEN, so that the updates of state, flags and
-- counters that most writes are run no function at all (a statement
-- trigger with transition tables cannot name columns).
CREATE FUNCTION units_trigrams_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO unit_trigrams_pending (unit_id, indexed) VALUES (new.id, 1) ON CONFLICT (unit_id) DO NOTHING;
	RETURN NULL;
END $$;
CREATE TRIGGER units_trigrams_update AFTER UPDATE OF context, source, target ON units FOR EACH ROW
	WHEN (old.context IS DISTINCT FROM new.context OR old.source IS DISTINCT FROM new.source
		OR old.target IS DISTINCT FROM new.target)
	EXECUTE FUNCTION units_trigrams_update();
