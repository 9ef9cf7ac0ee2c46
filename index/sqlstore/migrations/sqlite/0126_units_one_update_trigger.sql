-- PostgreSQL's migration 0126 folds five of units' AFTER UPDATE row
-- triggers (side rows, trigram note, memory list, and the moves') into one
-- (issue 31); the units list's move trigger of 0001 stays. SQLite's triggers are unchanged: its side rows are partial indexes
-- (see 0114), and its trigger bodies run inside the statement without a
-- function call of their own. This file keeps the engines' numbers in
-- step.
SELECT 1;
