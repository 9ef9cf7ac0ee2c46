-- One row trigger for units' updates instead of five, and no WHEN (issue
-- 31: the PostgreSQL server's CPU per edit). The units list's own move
-- trigger (units_list_update, 0001) stays: no edit fires it, as an edit
-- sets neither id nor translation_id. An edit's UPDATE of target,
-- state and pending fired three AFTER UPDATE row triggers
-- (units_side_update, units_trigrams_update, units_memory_update): each
-- had its WHEN read from its stored node text and compiled at every
-- statement (PostgreSQL keeps the compiled form for one statement run
-- only), queued its own event, fetched the row's old and new versions
-- again at the statement's end and entered its own plpgsql function.
-- units_row_update does the three in one call; the moves' two triggers
-- (units_side_move, units_memory_move) join it as the same function's
-- branches (nothing in Tolk moves units today; an edit does not name id or
-- translation_id).
--
-- It has no WHEN: each branch of the function tests its own condition,
-- which plpgsql evaluates as cached simple expressions. Reading a WHEN's
-- node text cost more than the whole call it could save: instructions of
-- a PostgreSQL backend (valgrind, one-row edits on a kept 1x index, BEGIN;
-- UPDATE; ROLLBACK) were 851k an edit with the five triggers, 761k with
-- one trigger and the union of their WHENs (77k of it reading the WHEN),
-- 650k with no WHEN; an UPDATE of one row that changes none of the columns
-- 461k, 375k, 319k. Only a statement changing nothing in many rows pays
-- more (a call per row, ~45k instructions a row): Tolk's multi-row updates
-- of these columns select the rows they change (pending = 0, pending != 0,
-- the propagated peers' new targets).
--
-- Each branch does what its trigger did: the trigram note of 0059 (its
-- no-op DO UPDATE locks a note the trigram step may hold), the side rows
-- of 0114 (run once now where a move ran them twice), the memory list of
-- 0110 (a moved unit leaves its old bucket and enters its new one; an
-- edit only when its membership changes).
CREATE FUNCTION units_row_update() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
	moved BOOLEAN := old.id <> new.id OR old.translation_id <> new.translation_id;
	left_n BIGINT;
BEGIN
	IF old.target <> new.target OR old.context <> new.context OR old.source <> new.source THEN
		INSERT INTO unit_trigrams_pending (unit_id, indexed) VALUES (new.id, 1)
			ON CONFLICT (unit_id) DO UPDATE SET indexed = unit_trigrams_pending.indexed;
	END IF;
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
	IF moved OR (old.state >= 10 AND old.target <> '') <> (new.state >= 10 AND new.target <> '') THEN
		IF old.state >= 10 AND old.target <> '' THEN
			INSERT INTO list_counts (list, scope, bucket, n) VALUES ('mu', old.translation_id, old.id >> 10, -1)
				ON CONFLICT (list, scope, bucket) DO UPDATE SET n = list_counts.n + excluded.n
				RETURNING n INTO left_n;
			IF left_n = 0 THEN
				DELETE FROM list_counts WHERE list = 'mu' AND scope = old.translation_id AND bucket = old.id >> 10 AND n = 0;
			END IF;
		END IF;
		IF new.state >= 10 AND new.target <> '' THEN
			INSERT INTO list_counts (list, scope, bucket, n) VALUES ('mu', new.translation_id, new.id >> 10, 1)
				ON CONFLICT (list, scope, bucket) DO UPDATE SET n = list_counts.n + excluded.n
				RETURNING n INTO left_n;
			IF left_n = 0 THEN
				DELETE FROM list_counts WHERE list = 'mu' AND scope = new.translation_id AND bucket = new.id >> 10 AND n = 0;
			END IF;
		END IF;
	END IF;
	RETURN NULL;
END $$;

DROP TRIGGER units_side_update ON units;
DROP TRIGGER units_side_move ON units;
DROP TRIGGER units_trigrams_update ON units;
DROP TRIGGER units_memory_update ON units;
DROP TRIGGER units_memory_move ON units;
DROP FUNCTION units_side_update();
DROP FUNCTION units_trigrams_update();
DROP FUNCTION units_memory_update();

-- The columns are every one a branch reads a change of: a statement that
-- sets none of them (the checks' and suggestions' flags, word counts,
-- source links) skips the trigger before any call.
CREATE TRIGGER units_row_update AFTER UPDATE OF id, translation_id, context, source, target, state, pending
	ON units FOR EACH ROW EXECUTE FUNCTION units_row_update();
