-- Several writers (issue 31) is PostgreSQL's migration 0046: a SQLite
-- file has one writer, whose counters and log stay as they are. This
-- file keeps the engines' numbers in step.
SELECT 1;
