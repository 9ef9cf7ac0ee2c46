-- PostgreSQL's migration 0110 splits the memory list's row trigger on
-- units in two (an edit's condition, a moved unit's), so that an edit
-- parses half the condition text; SQLite's triggers of migration 0063 are
-- unchanged. This file keeps the engines' numbers in step.
SELECT 1;
