-- PostgreSQL's migration 0114 moves the same-target lookup, the rare
-- states and the pending units to side tables so that an edit's UPDATE of
-- units is heap-only there (issue 31). SQLite has no heap-only updates
-- (a row is rewritten in its B-tree leaf, and only the indexes whose
-- columns change are touched), so its partial indexes stay. This file
-- keeps the engines' numbers in step.
SELECT 1;
