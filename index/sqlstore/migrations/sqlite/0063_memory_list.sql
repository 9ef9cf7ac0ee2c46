-- The memory list paged by key (issue 27; index/sqlstore/keyset.go,
-- memory.go FindMemory). list_counts counts one more list:
--   'mu' the units of translation <scope> that are memory entries by
--        their own row: a state of needs editing or above and a
--        target. Whether the translation is a source one (whose units
--        are no entries) is the reader's test, on the few bucket rows:
--        a trigger cannot read it reliably once a cascade deleted the
--        translation, and the scope being the translation lets a
--        reader narrow the sum to the languages, projects and
--        components a filter names.
-- Inserts are counted by the write that inserts (insert.go, as 'ut'
-- since migration 0019: a row trigger was a tenth of an import);
-- updates that make a unit an entry or not, and deletes, by triggers.
-- An update counts by upsert, so that a unit inserted and changed by one
-- write, before its insert is counted, still sums right.
INSERT INTO list_counts (list, scope, bucket, n)
	SELECT 'mu', translation_id, id >> 10, count(*) FROM units WHERE state >= 10 AND target != ''
	GROUP BY translation_id, id >> 10;

CREATE TRIGGER units_memory_delete AFTER DELETE ON units WHEN old.state >= 10 AND old.target != '' BEGIN
	UPDATE list_counts SET n = n - 1 WHERE list = 'mu' AND scope = old.translation_id AND bucket = old.id >> 10;
	DELETE FROM list_counts WHERE list = 'mu' AND scope = old.translation_id AND bucket = old.id >> 10 AND n = 0;
END;

-- A unit that becomes an entry and one that stops being one: the WHENs
-- leave out the edits that keep a unit an entry or not (most edits of a
-- translated string), which run no statement, and a move (id or
-- translation) of an entry fires both. Becoming an entry can bring a row
-- to 0 only from the -1 of a unit inserted and left by the same write,
-- whose insert storeUnitCounts counts at the write's end, dropping the
-- 0 rows of the translations it counted: one statement here, not two.
CREATE TRIGGER units_memory_enter AFTER UPDATE OF id, translation_id, state, target ON units
WHEN new.state >= 10 AND new.target != ''
	AND NOT (old.state >= 10 AND old.target != '' AND old.id = new.id AND old.translation_id = new.translation_id) BEGIN
	INSERT INTO list_counts (list, scope, bucket, n) VALUES ('mu', new.translation_id, new.id >> 10, 1)
		ON CONFLICT (list, scope, bucket) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER units_memory_leave AFTER UPDATE OF id, translation_id, state, target ON units
WHEN old.state >= 10 AND old.target != ''
	AND NOT (new.state >= 10 AND new.target != '' AND old.id = new.id AND old.translation_id = new.translation_id) BEGIN
	INSERT INTO list_counts (list, scope, bucket, n) VALUES ('mu', old.translation_id, old.id >> 10, -1)
		ON CONFLICT (list, scope, bucket) DO UPDATE SET n = n - 1;
	DELETE FROM list_counts WHERE list = 'mu' AND scope = old.translation_id AND bucket = old.id >> 10 AND n = 0;
END;
