-- PostgreSQL's migration 0095 locks a scoped batch's translations
-- instead of their components (lock_write_scopes); a SQLite file has one
-- writer and no such locks. This file keeps the engines' numbers in
-- step.
SELECT 1;
