-- Indexes for searches over every unit (index/sqlstore/search.go), each
-- measured on the benchmark corpus (277,429 units, SQLite CPU time):
--
-- units_state: state:<translated, is:fuzzy, state:approved and the
-- reference's predefined queries count their matches from this index
-- alone instead of every unit row (count(*) WHERE state < 20: 20 ms to
-- 3 ms).
CREATE INDEX units_state ON units(state);
-- units_source: the fields of a unit's source unit (label:, has:label,
-- source_comment:, has:source-comment) go from the few labelled or
-- commented source units to their translations instead of testing every
-- unit (label: over 50 labelled source units: 11 ms to 0.9 ms).
CREATE INDEX units_source ON units(source_unit_id);
-- units_priority: priority:>100 (the strings marked important) read
-- every unit (40 ms; the flag is rare, 100 the default everywhere).
CREATE INDEX units_priority ON units(priority);
-- position and context got none: position is per translation, where
-- units_translation_position serves it (over all units it read 40 ms,
-- and is no question a translator asks), and a context substring cannot
-- use one. Changes by unit have changes_unit (0001).
