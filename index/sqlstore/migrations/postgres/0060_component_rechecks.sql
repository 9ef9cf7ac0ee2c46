-- A background recheck's place, resumed at the next start (see the
-- SQLite migration of the same number).
CREATE TABLE component_rechecks (
	component_id   BIGINT PRIMARY KEY REFERENCES components(id) ON DELETE CASCADE,
	translation_id BIGINT NOT NULL DEFAULT 0,
	after_unit_id  BIGINT NOT NULL DEFAULT 0
);
