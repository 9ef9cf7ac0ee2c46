-- PostgreSQL's migration 0076 locks the scopes of several writers'
-- batches in a function that keeps its plan; a SQLite file has one
-- writer and no such locks. This file keeps the engines' numbers in
-- step.
SELECT 1;
