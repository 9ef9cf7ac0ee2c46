-- Languages are global: the built-in table is seeded into this on open.
CREATE TABLE languages (
	id             INTEGER PRIMARY KEY,
	code           TEXT NOT NULL UNIQUE,
	name           TEXT NOT NULL,
	direction      TEXT NOT NULL DEFAULT 'ltr',
	population     INTEGER NOT NULL DEFAULT 0,
	aliases        TEXT NOT NULL DEFAULT '',   -- codes joined with ','
	plural_id      INTEGER NOT NULL DEFAULT 0,
	plural_source  INTEGER NOT NULL DEFAULT 0,
	plural_number  INTEGER NOT NULL DEFAULT 2,
	plural_formula TEXT NOT NULL DEFAULT 'n != 1',
	plural_type    INTEGER NOT NULL DEFAULT 1
);

CREATE TABLE users (
	id          INTEGER PRIMARY KEY,
	username    TEXT NOT NULL UNIQUE,
	full_name   TEXT NOT NULL DEFAULT '',
	email       TEXT NOT NULL DEFAULT '',
	is_active   INTEGER NOT NULL DEFAULT 1,
	is_bot      INTEGER NOT NULL DEFAULT 0,
	date_joined TEXT NOT NULL
);

CREATE TABLE projects (
	id                 INTEGER PRIMARY KEY,
	slug               TEXT NOT NULL UNIQUE,
	name               TEXT NOT NULL,
	web                TEXT NOT NULL DEFAULT '',
	instructions       TEXT NOT NULL DEFAULT '',
	translation_review INTEGER NOT NULL DEFAULT 0,
	source_review      INTEGER NOT NULL DEFAULT 0,
	set_language_team  INTEGER NOT NULL DEFAULT 1,
	enable_hooks       INTEGER NOT NULL DEFAULT 1,
	language_aliases   TEXT NOT NULL DEFAULT ''
);

-- The many per-component settings are one JSON document: they are read
-- and written whole and never filtered on. Columns are what queries use.
CREATE TABLE components (
	id              INTEGER PRIMARY KEY,
	project_id      INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
	slug            TEXT NOT NULL,
	name            TEXT NOT NULL,
	source_language TEXT NOT NULL,
	is_glossary     INTEGER NOT NULL DEFAULT 0,
	locked          INTEGER NOT NULL DEFAULT 0,
	settings        TEXT NOT NULL,
	UNIQUE (project_id, slug)
);

CREATE TABLE translations (
	id            INTEGER PRIMARY KEY,
	component_id  INTEGER NOT NULL REFERENCES components(id) ON DELETE CASCADE,
	language_code TEXT NOT NULL,
	filename      TEXT NOT NULL DEFAULT '',
	revision      TEXT NOT NULL DEFAULT '',
	is_source     INTEGER NOT NULL DEFAULT 0,
	is_template   INTEGER NOT NULL DEFAULT 0,
	load_error    TEXT NOT NULL DEFAULT '',
	UNIQUE (component_id, language_code)
);
CREATE INDEX translations_language ON translations(language_code);

CREATE TABLE units (
	id                INTEGER PRIMARY KEY,
	translation_id    INTEGER NOT NULL REFERENCES translations(id) ON DELETE CASCADE,
	source_unit_id    INTEGER,
	position          INTEGER NOT NULL,
	context           TEXT NOT NULL DEFAULT '',
	source            TEXT NOT NULL DEFAULT '',
	target            TEXT NOT NULL DEFAULT '',
	previous_source   TEXT NOT NULL DEFAULT '',
	id_hash           INTEGER NOT NULL,
	content_hash      INTEGER NOT NULL,
	location          TEXT NOT NULL DEFAULT '',
	note              TEXT NOT NULL DEFAULT '',
	flags             TEXT NOT NULL DEFAULT '',
	explanation       TEXT NOT NULL DEFAULT '',
	extra_flags       TEXT NOT NULL DEFAULT '',
	state             INTEGER NOT NULL,
	pending           INTEGER NOT NULL DEFAULT 0,
	priority          INTEGER NOT NULL DEFAULT 100,
	num_words         INTEGER NOT NULL DEFAULT 0,
	num_chars         INTEGER NOT NULL DEFAULT 0,
	has_suggestion    INTEGER NOT NULL DEFAULT 0,
	has_comment       INTEGER NOT NULL DEFAULT 0,
	has_failing_check INTEGER NOT NULL DEFAULT 0,
	timestamp         TEXT NOT NULL
);
-- Units are listed per translation in id order and matched on import by
-- id_hash; both lookups are served by these.
CREATE INDEX units_translation ON units(translation_id, id);
CREATE INDEX units_translation_hash ON units(translation_id, id_hash);

CREATE TABLE changes (
	id             INTEGER PRIMARY KEY,
	action         INTEGER NOT NULL,
	timestamp      TEXT NOT NULL,
	project_id     INTEGER REFERENCES projects(id) ON DELETE CASCADE,
	component_id   INTEGER REFERENCES components(id) ON DELETE CASCADE,
	translation_id INTEGER REFERENCES translations(id) ON DELETE CASCADE,
	unit_id        INTEGER REFERENCES units(id) ON DELETE SET NULL,
	language_code  TEXT,
	user_id        INTEGER REFERENCES users(id) ON DELETE SET NULL,
	author_id      INTEGER REFERENCES users(id) ON DELETE SET NULL,
	target         TEXT NOT NULL DEFAULT '',
	details        TEXT NOT NULL DEFAULT ''
);
CREATE INDEX changes_translation ON changes(translation_id, timestamp, id);
CREATE INDEX changes_component ON changes(component_id, timestamp, id);
CREATE INDEX changes_project ON changes(project_id, timestamp, id);
CREATE INDEX changes_language ON changes(language_code, timestamp, id);
CREATE INDEX changes_unit ON changes(unit_id);
CREATE INDEX changes_timestamp ON changes(timestamp, id);

-- Statistics are kept, never recounted per request: one row per
-- translation, and one per component, project and language holding the
-- sum of its translations' rows, updated by delta in the same transaction
-- as the write that changes a translation (scope: 't', 'c', 'p', 'l').
CREATE TABLE stats (
	scope            TEXT NOT NULL,
	scope_key        TEXT NOT NULL,
	total            INTEGER NOT NULL DEFAULT 0,
	total_words      INTEGER NOT NULL DEFAULT 0,
	total_chars      INTEGER NOT NULL DEFAULT 0,
	translated       INTEGER NOT NULL DEFAULT 0,
	translated_words INTEGER NOT NULL DEFAULT 0,
	translated_chars INTEGER NOT NULL DEFAULT 0,
	fuzzy            INTEGER NOT NULL DEFAULT 0,
	fuzzy_words      INTEGER NOT NULL DEFAULT 0,
	fuzzy_chars      INTEGER NOT NULL DEFAULT 0,
	failing          INTEGER NOT NULL DEFAULT 0,
	failing_words    INTEGER NOT NULL DEFAULT 0,
	failing_chars    INTEGER NOT NULL DEFAULT 0,
	approved         INTEGER NOT NULL DEFAULT 0,
	approved_words   INTEGER NOT NULL DEFAULT 0,
	approved_chars   INTEGER NOT NULL DEFAULT 0,
	readonly         INTEGER NOT NULL DEFAULT 0,
	readonly_words   INTEGER NOT NULL DEFAULT 0,
	readonly_chars   INTEGER NOT NULL DEFAULT 0,
	suggestions      INTEGER NOT NULL DEFAULT 0,
	comments         INTEGER NOT NULL DEFAULT 0,
	last_change      TEXT NOT NULL DEFAULT '',
	last_author      TEXT NOT NULL DEFAULT '',
	PRIMARY KEY (scope, scope_key)
) WITHOUT ROWID;
