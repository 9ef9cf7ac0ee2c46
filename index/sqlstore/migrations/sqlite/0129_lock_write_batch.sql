-- PostgreSQL's migration 0129 locks a batch of several scoped writes in
-- one function call (lock_write_batch); SQLite's one writer takes no such
-- locks. This file keeps the engines' numbers in step.
SELECT 1;
