-- People (issue 33): a user's statistics, kept by project, language and
-- action; see the SQLite migration of the same number for why. Inserts
-- and deletes are counted per statement (an upload inserts hundreds of
-- changes in one), re-credits per row.
CREATE TABLE user_activity (
	user_id       BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
	project_id    BIGINT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
	language_code TEXT NOT NULL,
	action        BIGINT NOT NULL,
	n             BIGINT NOT NULL,
	PRIMARY KEY (user_id, project_id, language_code, action)
);

INSERT INTO user_activity (user_id, project_id, language_code, action, n)
	SELECT author_id, project_id, coalesce(language_code, ''), action, count(*) FROM changes
	WHERE author_id IS NOT NULL AND project_id IS NOT NULL AND action IN (2, 3, 4, 5, 7, 9, 30, 36, 37, 78)
	GROUP BY 1, 2, 3, 4;

CREATE FUNCTION user_activity_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO user_activity (user_id, project_id, language_code, action, n)
		SELECT author_id, project_id, coalesce(language_code, ''), action, count(*) FROM new_rows
		WHERE author_id IS NOT NULL AND project_id IS NOT NULL AND action IN (2, 3, 4, 5, 7, 9, 30, 36, 37, 78)
		GROUP BY 1, 2, 3, 4
		ON CONFLICT (user_id, project_id, language_code, action) DO UPDATE SET n = user_activity.n + excluded.n;
	RETURN NULL;
END $$;
CREATE TRIGGER user_activity_insert AFTER INSERT ON changes
	REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION user_activity_insert();

CREATE FUNCTION user_activity_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	WITH d AS (SELECT author_id, project_id, coalesce(language_code, '') AS lang, action, count(*) AS n
		FROM old_rows WHERE author_id IS NOT NULL AND project_id IS NOT NULL AND action IN (2, 3, 4, 5, 7, 9, 30, 36, 37, 78)
		GROUP BY 1, 2, 3, 4)
	UPDATE user_activity a SET n = a.n - d.n FROM d
		WHERE a.user_id = d.author_id AND a.project_id = d.project_id AND a.language_code = d.lang
		AND a.action = d.action;
	RETURN NULL;
END $$;
CREATE TRIGGER user_activity_delete AFTER DELETE ON changes
	REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION user_activity_delete();

CREATE FUNCTION user_activity_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	UPDATE user_activity SET n = n - 1 WHERE old.action IN (2, 3, 4, 5, 7, 9, 30, 36, 37, 78) AND user_id = old.author_id
		AND project_id = old.project_id AND language_code = coalesce(old.language_code, '')
		AND action = old.action;
	INSERT INTO user_activity (user_id, project_id, language_code, action, n)
		SELECT new.author_id, new.project_id, coalesce(new.language_code, ''), new.action, 1
		WHERE new.author_id IS NOT NULL AND new.project_id IS NOT NULL AND new.action IN (2, 3, 4, 5, 7, 9, 30, 36, 37, 78)
		ON CONFLICT (user_id, project_id, language_code, action) DO UPDATE SET n = user_activity.n + 1;
	RETURN NULL;
END $$;
CREATE TRIGGER user_activity_update AFTER UPDATE OF author_id, project_id, language_code, action ON changes
	FOR EACH ROW EXECUTE FUNCTION user_activity_update();

CREATE INDEX contributors_user ON contributors(user_id, translation_id);
