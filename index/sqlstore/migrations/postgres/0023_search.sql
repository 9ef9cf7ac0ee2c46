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
-- position, priority and context got none: over all units they are
-- rare (position is per translation, served by units_translation_position),
-- and a context substring cannot use one. Changes by unit have
-- changes_unit (0001).
