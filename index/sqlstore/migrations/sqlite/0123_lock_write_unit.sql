-- PostgreSQL's migration 0123 locks a batch of one unit edit in one
-- function call (lock_write_unit); SQLite's one writer takes no such
-- locks. This file keeps the engines' numbers in step.
SELECT 1;
