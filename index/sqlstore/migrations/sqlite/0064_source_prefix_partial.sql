-- The lookup of other components' strings by source text (the "others"
-- source of automatic translation and the "weblate" machinery service,
-- FindSameSource in machinery.go) probes units_source_prefix (migration
-- 0036). Over every unit it was the costliest index of the units table
-- to keep: one entry per unit keyed on text lands on a random page, and
-- its upkeep was nearly half of a corpus import's insert of units
-- (BENCHMARKS.md, "Session 6: import"). Over source units only (a source
-- unit is its own source unit, index/unit.go) it holds one entry per
-- source string, 1.6% of the corpus's units; the lookup finds the source
-- units and reaches their translations through units_source. Both
-- engines use a partial index whose predicate the query repeats word for
-- word (TestFindSameSourcePlan).
DROP INDEX units_source_prefix;
CREATE INDEX units_source_prefix ON units(substr(source, 1, 40)) WHERE source_unit_id = id;
