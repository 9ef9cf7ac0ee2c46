-- PostgreSQL's migration 0104 keeps whether a component propagates
-- translations in a column of its own, for its scoped batches' locks
-- (lock_write_scopes), instead of parsing the settings at every batch;
-- SQLite's one writer takes no such locks. This file keeps the engines'
-- numbers in step.
SELECT 1;
