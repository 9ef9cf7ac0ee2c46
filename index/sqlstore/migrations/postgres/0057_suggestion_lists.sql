-- Suggestion lists paged by key (issue 27; index/sqlstore/keyset.go), as
-- SQLite's migration 0057:
--   's'  all suggestions (scope 0), listed newest first
--   'su' the suggestions of unit <scope>, oldest first
-- Inserts count through list_counts_delta (migration 0046): 's' is one
-- row that every writer adding a suggestion would otherwise wait on.
-- Deletes subtract at once, as changes' do.
INSERT INTO list_counts (list, scope, bucket, n)
	SELECT 's', 0, id >> 10, count(*) FROM suggestions GROUP BY id >> 10;
INSERT INTO list_counts (list, scope, bucket, n)
	SELECT 'su', unit_id, id >> 10, count(*) FROM suggestions GROUP BY unit_id, id >> 10;

CREATE FUNCTION suggestions_list_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO list_counts_delta (list, scope, bucket, n)
		SELECT list, scope, bucket, count(*) FROM (
			SELECT 's' AS list, 0::BIGINT AS scope, id >> 10 AS bucket FROM new_rows
			UNION ALL SELECT 'su', unit_id, id >> 10 FROM new_rows) r
		GROUP BY 1, 2, 3;
	IF current_setting('tolk.defer_counts', true) IS DISTINCT FROM 'on' THEN
		PERFORM list_counts_fold();
	END IF;
	RETURN NULL;
END $$;
CREATE TRIGGER suggestions_list_insert AFTER INSERT ON suggestions
	REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION suggestions_list_insert();

CREATE FUNCTION suggestions_list_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	WITH d AS (SELECT list, scope, bucket, count(*) AS n FROM (
			SELECT 's' AS list, 0::BIGINT AS scope, id >> 10 AS bucket FROM old_rows
			UNION ALL SELECT 'su', unit_id, id >> 10 FROM old_rows) r
		GROUP BY 1, 2, 3)
	UPDATE list_counts c SET n = c.n - d.n FROM d
		WHERE c.list = d.list AND c.scope = d.scope AND c.bucket = d.bucket;
	DELETE FROM list_counts WHERE n = 0 AND list IN ('s', 'su')
		AND bucket IN (SELECT DISTINCT id >> 10 FROM old_rows);
	RETURN NULL;
END $$;
CREATE TRIGGER suggestions_list_delete AFTER DELETE ON suggestions
	REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION suggestions_list_delete();

-- Nothing moves a suggestion today; this keeps the counts exact if
-- anything does.
CREATE FUNCTION suggestions_list_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	PERFORM list_add('s', 0, old.id >> 10, -1);
	PERFORM list_add('su', old.unit_id, old.id >> 10, -1);
	PERFORM list_add('s', 0, new.id >> 10, 1);
	PERFORM list_add('su', new.unit_id, new.id >> 10, 1);
	RETURN NULL;
END $$;
CREATE TRIGGER suggestions_list_update AFTER UPDATE OF id, unit_id ON suggestions FOR EACH ROW
	WHEN (old.id <> new.id OR old.unit_id <> new.unit_id)
	EXECUTE FUNCTION suggestions_list_update();
