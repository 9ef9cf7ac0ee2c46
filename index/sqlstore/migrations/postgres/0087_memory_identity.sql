-- An imported memory entry is identified by its language pair, scope
-- (project, 0 site-wide), source, target and context: ImportMemory skips
-- an entry identical to a stored one (issue 29, the reference reuses
-- identical entries). Migration 0078 made that a probe of
-- memory_duplicate per entry, which PostgreSQL planned from statistics
-- taken while the pair was small: in the import's transaction the
-- prepared probe took a generic plan that read the whole pair through
-- memory_pair for every entry (a set-based probe a chunk took the same
-- plan, or a sequential scan), so an import slowed as the pair grew
-- (issue 31: 5,000 entries beside 15,000 took 2.2-8.5x the same into an
-- empty pair). The rule is now a unique index and the import inserts ON
-- CONFLICT DO NOTHING: the index's own uniqueness check is one descent
-- of the index per entry, whatever the statistics say. The texts are
-- hashed (md5 as a uuid: 16 bytes each) so a long text stays under the
-- B-tree's entry limit; two distinct texts with one md5 would only make
-- the second entry count as a duplicate. Entries stored twice before
-- (none should be: every import has skipped duplicates) keep the first.
DROP INDEX memory_duplicate;
DELETE FROM memory WHERE id NOT IN (SELECT min(id) FROM memory
	GROUP BY source_language, target_language, coalesce(project_id, 0), md5(source), md5(target), md5(context));
CREATE UNIQUE INDEX memory_identity ON memory(source_language, target_language, coalesce(project_id, 0),
	CAST(md5(source) AS uuid), CAST(md5(target) AS uuid), CAST(md5(context) AS uuid));
