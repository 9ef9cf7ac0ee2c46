-- A unit's failing quality checks, one row per unit and check id, as the
-- reference's Check model (reference workspace §1.1): a dismissed check
-- keeps its row with dismissed = 1. units.has_failing_check says the unit
-- has a row that is not dismissed; the statistics count that column.
-- Rows are written by the write that changes what the checks read
-- (index/sqlstore/checks.go), never by a reader.
CREATE TABLE checks (
	unit_id   BIGINT NOT NULL REFERENCES units(id) ON DELETE CASCADE,
	name      TEXT NOT NULL,
	dismissed INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (unit_id, name)
);
-- check:<id> searches and the component summary go from a check id to
-- its units.
CREATE INDEX checks_name ON checks(name, unit_id);
