-- PostgreSQL's migration 0105 gives its batches of unit edits a smaller
-- statement for their scopes' locks (lock_write_scopes); SQLite's one
-- writer takes no such locks. This file keeps the engines' numbers in
-- step.
SELECT 1;
