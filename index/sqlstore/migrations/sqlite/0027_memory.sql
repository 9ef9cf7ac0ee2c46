-- Translation memory (reference workspace §5). The memory of translated
-- strings is not copied: units already hold every translated string with
-- its source, context, state, language pair and project, so project and
-- shared lookups read units (see index/sqlstore/memory.go and
-- docs/memory.md). Only entries that no unit backs are stored here: those
-- imported from TMX or JSON files. project_id NULL is a site-wide entry,
-- seen by every lookup; otherwise only that project's. Plural forms are
-- joined with "\x1e\x1e" as units.source and units.target.
CREATE TABLE memory (
	id              INTEGER PRIMARY KEY,
	source_language TEXT NOT NULL,
	target_language TEXT NOT NULL,
	source          TEXT NOT NULL,
	target          TEXT NOT NULL,
	context         TEXT NOT NULL DEFAULT '',
	origin          TEXT NOT NULL DEFAULT '',
	project_id      BIGINT REFERENCES projects(id) ON DELETE CASCADE,
	user_id         BIGINT REFERENCES users(id) ON DELETE SET NULL,
	timestamp       TEXT NOT NULL
);
-- Lists and exports filter by language pair, pages in id order.
CREATE INDEX memory_pair ON memory(source_language, target_language, id);
CREATE INDEX memory_project ON memory(project_id, id);

-- The reference's shared pool (§5.1): a project's strings feed it when
-- contribute_shared_tm is on, and its lookups read it when use_shared_tm
-- is; both default on, as the reference's DEFAULT_SHARED_TM. Unlike the
-- reference, a private project never feeds the pool, whatever the flag.
ALTER TABLE projects ADD COLUMN use_shared_tm INTEGER NOT NULL DEFAULT 1;
ALTER TABLE projects ADD COLUMN contribute_shared_tm INTEGER NOT NULL DEFAULT 1;
