-- PostgreSQL's migration 0098 adds the marker of a process alone on the
-- database (lease.go); a SQLite file belongs to one process. This file
-- keeps the engines' numbers in step.
SELECT 1;
