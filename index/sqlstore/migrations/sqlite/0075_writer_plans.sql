-- PostgreSQL's migration 0075 moves its counters' SQL functions into
-- PL/pgSQL, which keeps their plans; SQLite counts in its triggers and
-- in Go, with no such functions. This file keeps the engines' numbers
-- in step.
SELECT 1;
