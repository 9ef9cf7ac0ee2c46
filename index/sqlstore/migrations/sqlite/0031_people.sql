-- People (issue 33): a user's statistics (GET /api/users/U/statistics/)
-- are counts of the changes credited to them (author_id), kept by
-- project, language and action so that a reader who may not see a
-- private project gets counts without its activity, and the language
-- count is exact. Counting on read from the change log took over 100 ms
-- for a user with 100,000 changes (BenchmarkUserStatistics); these rows
-- are a handful per user and project. Triggers keep them in step with
-- changes in the writing transaction, whatever removes changes (a
-- project, component or translation removed) or re-credits them.
--
-- The actions kept are those index.UserStats counts:
-- 2, 5, 7, 9, 30, 36, 37 (translated), 4 (suggested), 78 (uploaded) and
-- 3 (commented); TestUserActivityMatchesChanges recounts them.
CREATE TABLE user_activity (
	user_id       INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
	project_id    INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
	language_code TEXT NOT NULL, -- '' for a change without a language
	action        INTEGER NOT NULL,
	n             INTEGER NOT NULL,
	PRIMARY KEY (user_id, project_id, language_code, action)
) WITHOUT ROWID;

INSERT INTO user_activity (user_id, project_id, language_code, action, n)
	SELECT author_id, project_id, coalesce(language_code, ''), action, count(*) FROM changes
	WHERE author_id IS NOT NULL AND project_id IS NOT NULL AND action IN (2, 3, 4, 5, 7, 9, 30, 36, 37, 78)
	GROUP BY 1, 2, 3, 4;

CREATE TRIGGER user_activity_insert AFTER INSERT ON changes
	WHEN new.author_id IS NOT NULL AND new.project_id IS NOT NULL AND new.action IN (2, 3, 4, 5, 7, 9, 30, 36, 37, 78)
BEGIN
	INSERT INTO user_activity (user_id, project_id, language_code, action, n)
		VALUES (new.author_id, new.project_id, coalesce(new.language_code, ''), new.action, 1)
		ON CONFLICT (user_id, project_id, language_code, action) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER user_activity_delete AFTER DELETE ON changes
	WHEN old.author_id IS NOT NULL AND old.project_id IS NOT NULL AND old.action IN (2, 3, 4, 5, 7, 9, 30, 36, 37, 78)
BEGIN
	UPDATE user_activity SET n = n - 1 WHERE user_id = old.author_id AND project_id = old.project_id
		AND language_code = coalesce(old.language_code, '') AND action = old.action;
END;

CREATE TRIGGER user_activity_update AFTER UPDATE OF author_id, project_id, language_code, action ON changes
BEGIN
	UPDATE user_activity SET n = n - 1 WHERE old.action IN (2, 3, 4, 5, 7, 9, 30, 36, 37, 78) AND user_id = old.author_id
		AND project_id = old.project_id AND language_code = coalesce(old.language_code, '') AND action = old.action;
	INSERT INTO user_activity (user_id, project_id, language_code, action, n)
		SELECT new.author_id, new.project_id, coalesce(new.language_code, ''), new.action, 1
		WHERE new.author_id IS NOT NULL AND new.project_id IS NOT NULL AND new.action IN (2, 3, 4, 5, 7, 9, 30, 36, 37, 78)
		ON CONFLICT (user_id, project_id, language_code, action) DO UPDATE SET n = n + 1;
END;

-- A user's contributions are the translations they edited: the
-- contributors table, looked up by user rather than by translation.
CREATE INDEX contributors_user ON contributors(user_id, translation_id);
