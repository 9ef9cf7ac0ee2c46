-- units_state (migration 0023) narrowed to the states other than empty
-- (0) and translated (20), for the import's speed (issue 26): it held an
-- entry per unit, and dropping it took ~0.3 s of the writer's ~2.7 s off
-- a corpus import (BENCHMARKS.md, "Session 8: import"; "Session 9:
-- import"). Empty and translated units are nearly every unit (of the
-- corpus's 277,429, 113,866 are empty and none needs editing or is
-- approved), so a search for them meets a match every row or two walking
-- units by id, and its count comes from the statistics rows
-- (search_count.go, countByState) rather than from this index. The rare
-- states (needs editing, approved, read-only) keep their entries: a
-- search term that leaves 0 and 20 out carries the predicate word for
-- word (search.go, stateFrag) and reads them from the index.
DROP INDEX units_state;
CREATE INDEX units_state ON units(state) WHERE state NOT IN (0, 20);
