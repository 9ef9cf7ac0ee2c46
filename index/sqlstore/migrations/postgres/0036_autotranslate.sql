-- Automatic translation (issue 29; reference workspace §6.3).
--
-- A unit written by automatic translation says so until a person saves
-- it again, as the reference's Unit.automatically_translated (API field
-- automatically_translated, search is:automatically-translated).
ALTER TABLE units ADD COLUMN automatically_translated BIGINT NOT NULL DEFAULT 0;

-- The "others" source (and the "weblate" machinery service) look up the
-- translated strings of other components by their exact source text.
-- The reference goes through an md5(lower(source)) index; an index on
-- the text's first 40 characters is one both engines build the same way
-- (substr counts characters on both) and narrows a lookup to the few
-- strings sharing a prefix, where the full comparison decides.
CREATE INDEX units_source_prefix ON units(substr(source, 1, 40));

-- An automatic translation job: the request's parameters and how far it
-- got. Each batch's writes and the new cursor (the last unit id done)
-- commit in one transaction, so a job killed midway resumes after its
-- last batch, doing no unit twice and losing none (autotranslate/).
-- The id is the task's UUID, its address under /api/tasks/.
CREATE TABLE autotranslate_jobs (
	id             TEXT PRIMARY KEY,
	project_id     BIGINT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
	component_id   BIGINT NOT NULL REFERENCES components(id) ON DELETE CASCADE,
	translation_id BIGINT NOT NULL REFERENCES translations(id) ON DELETE CASCADE,
	user_id        BIGINT REFERENCES users(id) ON DELETE SET NULL,
	params         TEXT NOT NULL,
	cursor         BIGINT NOT NULL DEFAULT 0,
	total          BIGINT NOT NULL DEFAULT 0,
	done           BIGINT NOT NULL DEFAULT 0,
	updated        BIGINT NOT NULL DEFAULT 0,
	completed      BIGINT NOT NULL DEFAULT 0,
	error          TEXT NOT NULL DEFAULT '',
	created        TEXT NOT NULL,
	finished       TEXT
);
-- Startup resumes the jobs not completed; old completed ones are dropped.
CREATE INDEX autotranslate_jobs_open ON autotranslate_jobs(completed, created);
