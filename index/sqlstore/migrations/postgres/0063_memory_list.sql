-- The memory list paged by key (issue 27), as SQLite's migration 0063:
--   'mu' the units of translation <scope> with a state of needs editing
--        or above and a target; the reader leaves out source
--        translations.
-- Inserts are counted by the write that inserts (insert.go), updates
-- and deletes by triggers. Edits of one translation's units hold its
-- component's lock (writers.go), so its rows are no row every writer
-- waits on: they are written in place, not through list_counts_delta.
INSERT INTO list_counts (list, scope, bucket, n)
	SELECT 'mu', translation_id, id >> 10, count(*) FROM units WHERE state >= 10 AND target != ''
	GROUP BY translation_id, id >> 10;

CREATE FUNCTION units_memory_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	WITH d AS (SELECT translation_id AS scope, id >> 10 AS bucket, count(*) AS n FROM old_rows
			WHERE state >= 10 AND target != '' GROUP BY 1, 2)
	UPDATE list_counts c SET n = c.n - d.n FROM d
		WHERE c.list = 'mu' AND c.scope = d.scope AND c.bucket = d.bucket;
	DELETE FROM list_counts WHERE list = 'mu' AND n = 0
		AND (scope, bucket) IN (SELECT DISTINCT translation_id, id >> 10 FROM old_rows);
	RETURN NULL;
END $$;
CREATE TRIGGER units_memory_delete AFTER DELETE ON units
	REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION units_memory_delete();

-- list_add upserts: a unit inserted and changed by one write, before
-- its insert is counted, still sums right.
CREATE FUNCTION units_memory_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF old.state >= 10 AND old.target <> '' THEN
		PERFORM list_add('mu', old.translation_id, old.id >> 10, -1);
	END IF;
	IF new.state >= 10 AND new.target <> '' THEN
		PERFORM list_add('mu', new.translation_id, new.id >> 10, 1);
	END IF;
	RETURN NULL;
END $$;
CREATE TRIGGER units_memory_update AFTER UPDATE OF id, translation_id, state, target ON units FOR EACH ROW
	WHEN ((old.state >= 10 AND old.target <> '') IS DISTINCT FROM (new.state >= 10 AND new.target <> '')
		OR (old.state >= 10 AND old.target <> '' AND (old.id <> new.id OR old.translation_id <> new.translation_id)))
	EXECUTE FUNCTION units_memory_update();
