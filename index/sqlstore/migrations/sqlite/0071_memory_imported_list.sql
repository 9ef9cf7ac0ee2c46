-- The memory list's imported entries paged by key (issue 27;
-- index/sqlstore/keyset.go, memory.go FindMemory), as migration 0063 did
-- for the units that are entries. list_counts counts one more list:
--   'mi' the imported entries (rows of memory) of memory list <scope>:
--        one project (0 for site-wide entries) and one language pair.
-- memory_lists names those scopes, so that a reader narrows the sum to
-- the projects and languages a filter names (keyList.scopeIn) as 'mu's
-- reader does through translations. A scope row outlives its entries:
-- a few rows per project and pair, never read but by id.
-- Imports write entries one statement each and rarely, so a row trigger
-- counts inserts too; deletes and the cascade from a deleted project
-- (SQLite fires triggers for foreign key actions) by triggers as well.
CREATE TABLE memory_lists (
	id              INTEGER PRIMARY KEY,
	project         BIGINT NOT NULL,
	source_language TEXT NOT NULL,
	target_language TEXT NOT NULL,
	UNIQUE (project, source_language, target_language)
);

INSERT INTO memory_lists (project, source_language, target_language)
	SELECT DISTINCT coalesce(project_id, 0), source_language, target_language FROM memory;

INSERT INTO list_counts (list, scope, bucket, n)
	SELECT 'mi', l.id, m.id >> 10, count(*) FROM memory m JOIN memory_lists l
		ON l.project = coalesce(m.project_id, 0) AND l.source_language = m.source_language
		AND l.target_language = m.target_language
	GROUP BY l.id, m.id >> 10;

CREATE TRIGGER memory_list_insert AFTER INSERT ON memory BEGIN
	INSERT INTO memory_lists (project, source_language, target_language)
		VALUES (coalesce(new.project_id, 0), new.source_language, new.target_language) ON CONFLICT DO NOTHING;
	INSERT INTO list_counts (list, scope, bucket, n)
		SELECT 'mi', id, new.id >> 10, 1 FROM memory_lists WHERE project = coalesce(new.project_id, 0)
			AND source_language = new.source_language AND target_language = new.target_language
		ON CONFLICT (list, scope, bucket) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER memory_list_delete AFTER DELETE ON memory BEGIN
	UPDATE list_counts SET n = n - 1 WHERE list = 'mi' AND bucket = old.id >> 10 AND scope = (SELECT id FROM memory_lists
		WHERE project = coalesce(old.project_id, 0) AND source_language = old.source_language
		AND target_language = old.target_language);
	DELETE FROM list_counts WHERE list = 'mi' AND bucket = old.id >> 10 AND n = 0;
END;

-- Nothing moves an entry today; this keeps the counts exact if anything
-- does (a delete and an insert).
CREATE TRIGGER memory_list_update AFTER UPDATE OF id, project_id, source_language, target_language ON memory
WHEN old.id != new.id OR coalesce(old.project_id, 0) != coalesce(new.project_id, 0)
	OR old.source_language != new.source_language OR old.target_language != new.target_language BEGIN
	UPDATE list_counts SET n = n - 1 WHERE list = 'mi' AND bucket = old.id >> 10 AND scope = (SELECT id FROM memory_lists
		WHERE project = coalesce(old.project_id, 0) AND source_language = old.source_language
		AND target_language = old.target_language);
	DELETE FROM list_counts WHERE list = 'mi' AND bucket = old.id >> 10 AND n = 0;
	INSERT INTO memory_lists (project, source_language, target_language)
		VALUES (coalesce(new.project_id, 0), new.source_language, new.target_language) ON CONFLICT DO NOTHING;
	INSERT INTO list_counts (list, scope, bucket, n)
		SELECT 'mi', id, new.id >> 10, 1 FROM memory_lists WHERE project = coalesce(new.project_id, 0)
			AND source_language = new.source_language AND target_language = new.target_language
		ON CONFLICT (list, scope, bucket) DO UPDATE SET n = n + 1;
END;
