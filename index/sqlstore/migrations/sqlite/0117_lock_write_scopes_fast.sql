-- PostgreSQL's migration 0117 gives lock_write_scopes a fast path for a
-- batch of unit edits outside glossaries; SQLite's one writer takes no
-- such locks. This file keeps the engines' numbers in step.
SELECT 1;
