-- Collaboration around a string (reference workspace §2, §3, §7.1):
-- suggestions with votes, comments with mentions, and project labels on
-- source units. units.has_suggestion and units.has_comment say a unit has
-- a row here; the statistics count those columns. Rows are written by the
-- write that changes them, in the same transaction, never by a reader.

-- A proposed target for a unit; plural forms joined with "\x1e\x1e" as
-- units.target. votes is the net sum of suggestion_votes, kept by the
-- write that votes so a list needs no aggregate. address and agent are
-- the reference's userdetails, kept for spam reports.
CREATE TABLE suggestions (
	id        INTEGER PRIMARY KEY,
	unit_id   BIGINT NOT NULL REFERENCES units(id) ON DELETE CASCADE,
	target    TEXT NOT NULL,
	user_id   BIGINT REFERENCES users(id) ON DELETE SET NULL,
	address   TEXT NOT NULL DEFAULT '',
	agent     TEXT NOT NULL DEFAULT '',
	timestamp TEXT NOT NULL,
	votes     INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX suggestions_unit ON suggestions(unit_id, id);
-- suggestion_author: searches and a user's suggestions.
CREATE INDEX suggestions_user ON suggestions(user_id, id);

-- One vote per user and suggestion, +1 or -1.
CREATE TABLE suggestion_votes (
	suggestion_id BIGINT NOT NULL REFERENCES suggestions(id) ON DELETE CASCADE,
	user_id       BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
	value         INTEGER NOT NULL,
	PRIMARY KEY (suggestion_id, user_id)
);

-- A comment on a unit: global and report comments are stored on the
-- source unit, translation comments on the unit itself (§3.1).
CREATE TABLE comments (
	id        INTEGER PRIMARY KEY,
	unit_id   BIGINT NOT NULL REFERENCES units(id) ON DELETE CASCADE,
	comment   TEXT NOT NULL,
	user_id   BIGINT REFERENCES users(id) ON DELETE SET NULL,
	address   TEXT NOT NULL DEFAULT '',
	agent     TEXT NOT NULL DEFAULT '',
	timestamp TEXT NOT NULL,
	resolved  INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX comments_unit ON comments(unit_id, id);
CREATE INDEX comments_user ON comments(user_id, id);

-- The users a comment mentions with @username, kept for the
-- notifications that will read them.
CREATE TABLE comment_mentions (
	comment_id BIGINT NOT NULL REFERENCES comments(id) ON DELETE CASCADE,
	user_id    BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
	PRIMARY KEY (comment_id, user_id)
);

-- A project's labels; color is one of the reference's 16 names.
CREATE TABLE labels (
	id          INTEGER PRIMARY KEY,
	project_id  BIGINT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
	name        TEXT NOT NULL,
	description TEXT NOT NULL DEFAULT '',
	color       TEXT NOT NULL,
	UNIQUE (project_id, name)
);

-- Labels are set on source units; a translation's unit shows its source
-- unit's labels.
CREATE TABLE unit_labels (
	unit_id  BIGINT NOT NULL REFERENCES units(id) ON DELETE CASCADE,
	label_id BIGINT NOT NULL REFERENCES labels(id) ON DELETE CASCADE,
	PRIMARY KEY (unit_id, label_id)
);
CREATE INDEX unit_labels_label ON unit_labels(label_id, unit_id);
