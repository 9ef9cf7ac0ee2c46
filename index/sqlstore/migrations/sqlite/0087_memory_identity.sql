-- An imported memory entry is identified by its language pair, scope
-- (project, 0 site-wide), source, target and context; ImportMemory
-- inserts ON CONFLICT DO NOTHING against this unique index instead of
-- probing memory_duplicate (migration 0078) per entry, as on PostgreSQL
-- (see its migration 0087: the probe's plans made the import slow with
-- the pair's size there). SQLite has no entry limit, so the texts are
-- the key as they are (PostgreSQL hashes them). Entries stored twice
-- before (none should be) keep the first.
DROP INDEX memory_duplicate;
DELETE FROM memory WHERE id NOT IN (SELECT min(id) FROM memory
	GROUP BY source_language, target_language, coalesce(project_id, 0), source, target, context);
CREATE UNIQUE INDEX memory_identity ON memory(source_language, target_language, coalesce(project_id, 0),
	source, target, context);
