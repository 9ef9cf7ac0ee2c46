-- PostgreSQL's migration 0085 lets its writer count user_activity for
-- the changes it inserts, in place of a statement trigger; SQLite's row
-- trigger is a call inside the process and stays. This file keeps the
-- engines' numbers in step.
SELECT 1;
