-- The memory list's row trigger on units (migrations 0063, 0106) in two,
-- so that an edit parses half the condition text (issue 31: the server's
-- CPU per edit). A row trigger's WHEN is read from its stored node text
-- and compiled at every statement that updates one of its columns: for
-- units_memory_update, 3,417 characters at every edit's UPDATE (which
-- sets state and target), about 12 µs of the writer's backend an edit
-- (the same edit loop with the condition replaced by a short one; perf
-- of BenchmarkWriterCPU: stringToNode 3.6% of the backend). Its second
-- half, a unit that moves (a new id or translation) while in the list,
-- goes to a trigger of its own on those columns, which an edit does not
-- set: a trigger whose columns a statement leaves out is skipped before
-- its condition is read. The edit's condition is now the list membership
-- changing alone (1,753 characters).
--
-- Both run the same function. A moved unit is counted by
-- units_memory_move alone (out of its old place, into its new one); when
-- the same UPDATE also changes its membership, units_memory_update fires
-- too and leaves it. A unit that moves while out of the list fires
-- units_memory_move for nothing, as such a move is rare (nothing in Tolk
-- moves units today; the triggers keep the list right if anything does).
CREATE OR REPLACE FUNCTION units_memory_update() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
	left_n BIGINT;
BEGIN
	IF TG_NAME = 'units_memory_update' AND (old.id <> new.id OR old.translation_id <> new.translation_id) THEN
		RETURN NULL;
	END IF;
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
	RETURN NULL;
END $$;

DROP TRIGGER units_memory_update ON units;
CREATE TRIGGER units_memory_update AFTER UPDATE OF state, target ON units FOR EACH ROW
	WHEN ((old.state >= 10 AND old.target <> '') <> (new.state >= 10 AND new.target <> ''))
	EXECUTE FUNCTION units_memory_update();
CREATE TRIGGER units_memory_move AFTER UPDATE OF id, translation_id ON units FOR EACH ROW
	WHEN (old.id <> new.id OR old.translation_id <> new.translation_id)
	EXECUTE FUNCTION units_memory_update();
