-- PostgreSQL's migration 0100 makes lock_write_scopes read each named
-- object's translation by its key; a SQLite file has no such locks.
-- This file keeps the engines' numbers in step.
SELECT 1;
