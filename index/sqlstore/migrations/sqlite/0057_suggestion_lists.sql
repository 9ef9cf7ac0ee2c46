-- Suggestion lists paged by key (issue 27; index/sqlstore/keyset.go).
-- list_counts (migration 0002) counts two more lists:
--   's'  all suggestions (scope 0), listed newest first: the same
--        buckets, read from the top (keyList.desc)
--   'su' the suggestions of unit <scope>, oldest first
-- The triggers keep them exact on every write, the cascade from a
-- deleted unit included.
INSERT INTO list_counts (list, scope, bucket, n)
	SELECT 's', 0, id >> 10, count(*) FROM suggestions GROUP BY id >> 10;
INSERT INTO list_counts (list, scope, bucket, n)
	SELECT 'su', unit_id, id >> 10, count(*) FROM suggestions GROUP BY unit_id, id >> 10;

CREATE TRIGGER suggestions_list_insert AFTER INSERT ON suggestions BEGIN
	INSERT INTO list_counts (list, scope, bucket, n)
		VALUES ('s', 0, new.id >> 10, 1), ('su', new.unit_id, new.id >> 10, 1)
		ON CONFLICT (list, scope, bucket) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER suggestions_list_delete AFTER DELETE ON suggestions BEGIN
	UPDATE list_counts SET n = n - 1 WHERE list = 's' AND scope = 0 AND bucket = old.id >> 10;
	DELETE FROM list_counts WHERE list = 's' AND scope = 0 AND bucket = old.id >> 10 AND n = 0;
	UPDATE list_counts SET n = n - 1 WHERE list = 'su' AND scope = old.unit_id AND bucket = old.id >> 10;
	DELETE FROM list_counts WHERE list = 'su' AND scope = old.unit_id AND bucket = old.id >> 10 AND n = 0;
END;

-- Nothing moves a suggestion today; this keeps the counts exact if
-- anything does.
CREATE TRIGGER suggestions_list_update AFTER UPDATE OF id, unit_id ON suggestions
WHEN old.id != new.id OR old.unit_id != new.unit_id BEGIN
	UPDATE list_counts SET n = n - 1 WHERE list = 's' AND scope = 0 AND bucket = old.id >> 10;
	DELETE FROM list_counts WHERE list = 's' AND scope = 0 AND bucket = old.id >> 10 AND n = 0;
	UPDATE list_counts SET n = n - 1 WHERE list = 'su' AND scope = old.unit_id AND bucket = old.id >> 10;
	DELETE FROM list_counts WHERE list = 'su' AND scope = old.unit_id AND bucket = old.id >> 10 AND n = 0;
	INSERT INTO list_counts (list, scope, bucket, n)
		VALUES ('s', 0, new.id >> 10, 1), ('su', new.unit_id, new.id >> 10, 1)
		ON CONFLICT (list, scope, bucket) DO UPDATE SET n = n + 1;
END;
