-- PostgreSQL's migration 0106 has its memory list's row trigger on units
-- run list_add's upsert itself rather than call it; SQLite's triggers of
-- migration 0063 are unchanged. This file keeps the engines' numbers in
-- step.
SELECT 1;
