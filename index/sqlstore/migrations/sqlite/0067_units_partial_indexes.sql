-- Two indexes of units narrowed to the rows their queries look for, for
-- the import's speed (issue 26): every index of units costs each inserted
-- row a B-tree insertion, and a partial index only for the rows its
-- predicate admits (BENCHMARKS.md, "Session 7: import").
--
-- units_priority (migration 0023) serves priority:>100 and the like, the
-- strings marked more or less important than the default. 100 is the
-- default of almost every unit (all 277,429 of the corpus), so the index
-- held one useless entry per unit; now it holds the rare others. The
-- search adds the predicate word for word to a priority term whose range
-- leaves 100 out (search.go, priorityFrag); a term that takes in 100
-- matches nearly every unit and reads the scope's units as before.
DROP INDEX units_priority;
CREATE INDEX units_priority ON units(priority) WHERE priority != 100;
-- units_target_prefix (migration 0032) finds a translation's units by
-- target for the reused check; an empty target is never reused (nor
-- looked up by it), and 41% of the corpus's units are untranslated. The
-- lookups (checks_batch.go, byTarget) repeat the predicate word for word.
DROP INDEX units_target_prefix;
CREATE INDEX units_target_prefix ON units(translation_id, substr(target, 1, 64)) WHERE target != '';
