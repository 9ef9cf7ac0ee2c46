-- PostgreSQL's migration 0109 has the batch's fold read list_counts_delta,
-- a table SQLite does not have, only when the transaction wrote to it;
-- SQLite's triggers are unchanged. This file keeps the engines' numbers
-- in step.
SELECT 1;
