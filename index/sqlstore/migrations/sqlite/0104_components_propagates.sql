-- PostgreSQL's migration 0104 keeps whether a component propagates
-- translations in a column of its own and gives its batches of unit
-- edits a smaller statement for their scopes' locks (lock_write_scopes);
-- SQLite's one writer takes no such locks. This file keeps the engines'
-- numbers in step.
SELECT 1;
