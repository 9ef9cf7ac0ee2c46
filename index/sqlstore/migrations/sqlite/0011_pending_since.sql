-- When a unit's pending work began: set as pending goes from 0 to 1 and
-- never moved by later edits, cleared (NULL) when a commit clears
-- pending. The scheduler commits a component once its oldest pending
-- work is older than commit_pending_age (DueCommits); the reference
-- measured the age from the newest edit, so a busy translation never
-- committed. removed_units.removed and pending_files.created already say
-- when their work began.
--
-- Every statement that sets pending = 1 must set
-- pending_since = coalesce(pending_since, <now>) in the same statement;
-- a re-pend (units marked pending again, e.g. by a pull re-applying
-- edits) included.
ALTER TABLE units ADD COLUMN pending_since TEXT;

-- Units pending before this migration began no later than their last
-- edit; that is the best the rows know.
UPDATE units SET pending_since = timestamp WHERE pending != 0;
