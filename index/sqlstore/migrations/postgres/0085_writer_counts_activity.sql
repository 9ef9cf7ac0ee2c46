-- The writer counts the user_activity of the changes it inserts itself
-- (activity.go) and says so in each of its transactions with the
-- setting tolk.activity_counted: the trigger, a statement trigger over
-- a transition table that cost 30-35 µs of the server's CPU for an
-- edit's one change (issue 31), runs only in other transactions. The
-- WHEN of a statement trigger may read settings, not rows: it is
-- evaluated once per statement, before the function would be called.
DROP TRIGGER user_activity_insert ON changes;
CREATE TRIGGER user_activity_insert AFTER INSERT ON changes
	REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT
	WHEN (current_setting('tolk.activity_counted', true) IS DISTINCT FROM 'on')
	EXECUTE FUNCTION user_activity_insert();
