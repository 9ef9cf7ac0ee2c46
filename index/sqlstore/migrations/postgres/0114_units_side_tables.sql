-- Heap-only unit edits (issue 31). An edit's UPDATE of units sets target,
-- state, pending, pending_since, timestamp and automatically_translated;
-- three of units' nine indexes named a column it changes
-- (units_target_prefix its target, units_state its state, units_pending
-- its pending, in a partial index's predicate or an index's expression),
-- so no edit was heap-only (HOT): every new row version took an entry in
-- all nine (123-131 us and 37-39 buffers an UPDATE at the 1x corpus; the
-- propagated peers' UPDATE 7.6 ms and 341 buffers at 100x). The three
-- move to side tables of narrow rows, kept by triggers in the statement's
-- own transaction (a crash leaves them matching units; VerifyCounts
-- compares them), each with its primary key as its only index:
--
--   unit_targets (translation_id, prefix, unit_id): a translated unit's
--     first 64 characters of target, the same-target lookup's
--     (checks_batch.go, pgUnitByTarget, pgUnitsByTarget);
--   unit_states (state, unit_id): the units of a rare state (not empty,
--     not translated), the state filters of searches (search.go,
--     stateFrag);
--   unit_pending (translation_id, unit_id): the units edited since the
--     last commit, the pending lists and counts (pending.go, commit.go,
--     upload.go, search's is:pending).
--
-- An edit then rewrites units' row on its own page (fillfactor 90 leaves
-- room on the pages written from now on; the existing full pages move a
-- row at its first update, see docs/postgresql.md) and changes a side
-- row or two instead of nine index entries.

CREATE TABLE unit_targets (
	translation_id BIGINT NOT NULL,
	prefix TEXT NOT NULL,
	unit_id BIGINT NOT NULL
);
CREATE TABLE unit_states (
	state BIGINT NOT NULL,
	unit_id BIGINT NOT NULL
);
CREATE TABLE unit_pending (
	translation_id BIGINT NOT NULL,
	unit_id BIGINT NOT NULL
);

-- Filled set-based from units, then keyed (an index built once is
-- cheaper than one grown row by row): the rare states and the pending
-- rows through the partial indexes they replace, the targets in one pass
-- of units (27 M rows at 100x, some 16 M of them translated).
INSERT INTO unit_states SELECT state, id FROM units WHERE state NOT IN (0, 20);
INSERT INTO unit_pending SELECT translation_id, id FROM units WHERE pending != 0;
INSERT INTO unit_targets SELECT translation_id, substr(target, 1, 64), id FROM units WHERE target != '';
ALTER TABLE unit_targets ADD PRIMARY KEY (translation_id, prefix, unit_id);
ALTER TABLE unit_states ADD PRIMARY KEY (state, unit_id);
ALTER TABLE unit_pending ADD PRIMARY KEY (translation_id, unit_id);

DROP INDEX units_target_prefix;
DROP INDEX units_state;
DROP INDEX units_pending;

-- Room for an updated row's new version on its own page: a heap-only
-- update needs it there. Pages written from now on keep 10% free; the
-- existing ones stay full until rewritten (VACUUM FULL, CLUSTER or
-- pg_repack, an operator's choice: docs/postgresql.md).
ALTER TABLE units SET (fillfactor = 90);

-- A row trigger for the updates: its condition is evaluated without
-- calling the function, and is short (the condition's text is parsed at
-- every statement that sets one of the trigger's columns, migration
-- 0110). An edit whose new target keeps the first 64 characters, whose
-- state stays and whose pending stays set skips the function; a change
-- between the two common states (empty, translated) still calls it, and
-- it then writes no state row.
CREATE FUNCTION units_side_update() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
	moved BOOLEAN := old.id <> new.id OR old.translation_id <> new.translation_id;
BEGIN
	IF moved OR substr(old.target, 1, 64) <> substr(new.target, 1, 64) THEN
		IF old.target <> '' AND new.target <> '' THEN
			UPDATE unit_targets SET translation_id = new.translation_id, prefix = substr(new.target, 1, 64),
				unit_id = new.id
				WHERE translation_id = old.translation_id AND prefix = substr(old.target, 1, 64) AND unit_id = old.id;
		ELSIF old.target <> '' THEN
			DELETE FROM unit_targets
				WHERE translation_id = old.translation_id AND prefix = substr(old.target, 1, 64) AND unit_id = old.id;
		ELSIF new.target <> '' THEN
			INSERT INTO unit_targets VALUES (new.translation_id, substr(new.target, 1, 64), new.id)
				ON CONFLICT DO NOTHING;
		END IF;
	END IF;
	IF moved OR old.state <> new.state THEN
		IF old.state NOT IN (0, 20) AND new.state NOT IN (0, 20) THEN
			UPDATE unit_states SET state = new.state, unit_id = new.id WHERE state = old.state AND unit_id = old.id;
		ELSIF old.state NOT IN (0, 20) THEN
			DELETE FROM unit_states WHERE state = old.state AND unit_id = old.id;
		ELSIF new.state NOT IN (0, 20) THEN
			INSERT INTO unit_states VALUES (new.state, new.id) ON CONFLICT DO NOTHING;
		END IF;
	END IF;
	IF moved OR (old.pending <> 0) <> (new.pending <> 0) THEN
		IF old.pending <> 0 AND new.pending <> 0 THEN
			UPDATE unit_pending SET translation_id = new.translation_id, unit_id = new.id
				WHERE translation_id = old.translation_id AND unit_id = old.id;
		ELSIF old.pending <> 0 THEN
			DELETE FROM unit_pending WHERE translation_id = old.translation_id AND unit_id = old.id;
		ELSIF new.pending <> 0 THEN
			INSERT INTO unit_pending VALUES (new.translation_id, new.id) ON CONFLICT DO NOTHING;
		END IF;
	END IF;
	RETURN NULL;
END $$;
CREATE TRIGGER units_side_update AFTER UPDATE OF target, state, pending ON units FOR EACH ROW
	WHEN (substr(old.target, 1, 64) <> substr(new.target, 1, 64) OR old.state <> new.state
		OR (old.pending <> 0) <> (new.pending <> 0))
	EXECUTE FUNCTION units_side_update();
-- A unit that moves (a new id or translation; nothing in Tolk moves units
-- today) takes its side rows along. A statement that moves a unit and
-- changes its target, state or pending fires both triggers, the function
-- twice with the same rows: the second run's UPDATEs and DELETEs find
-- their rows gone and its INSERTs do nothing, so the function is
-- idempotent (TestMemoryListFollowsMovedUnits failed "Object already
-- exists" when it was not, and a moved unit that was not pending took a
-- pending row).
CREATE TRIGGER units_side_move AFTER UPDATE OF id, translation_id ON units FOR EACH ROW
	WHEN (old.id <> new.id OR old.translation_id <> new.translation_id)
	EXECUTE FUNCTION units_side_update();

-- Statement triggers for inserts and deletes: an import adds and removes
-- many units a statement, and a transition table costs one set-based
-- statement per side table rather than a function call per row.
CREATE FUNCTION units_side_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO unit_targets SELECT translation_id, substr(target, 1, 64), id FROM new_units WHERE target <> '';
	INSERT INTO unit_states SELECT state, id FROM new_units WHERE state NOT IN (0, 20);
	INSERT INTO unit_pending SELECT translation_id, id FROM new_units WHERE pending <> 0;
	RETURN NULL;
END $$;
CREATE TRIGGER units_side_insert AFTER INSERT ON units
	REFERENCING NEW TABLE AS new_units FOR EACH STATEMENT
	EXECUTE FUNCTION units_side_insert();

CREATE FUNCTION units_side_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	DELETE FROM unit_targets s USING old_units o
		WHERE o.target <> '' AND s.translation_id = o.translation_id AND s.prefix = substr(o.target, 1, 64)
			AND s.unit_id = o.id;
	DELETE FROM unit_states s USING old_units o
		WHERE o.state NOT IN (0, 20) AND s.state = o.state AND s.unit_id = o.id;
	DELETE FROM unit_pending s USING old_units o
		WHERE o.pending <> 0 AND s.translation_id = o.translation_id AND s.unit_id = o.id;
	RETURN NULL;
END $$;
CREATE TRIGGER units_side_delete AFTER DELETE ON units
	REFERENCING OLD TABLE AS old_units FOR EACH STATEMENT
	EXECUTE FUNCTION units_side_delete();
