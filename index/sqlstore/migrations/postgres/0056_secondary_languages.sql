-- A translator's secondary languages (the reference's
-- Profile.secondary_languages): language codes in the order the user
-- gave them, comma-separated (no code holds a comma). The editor lists
-- the string in these languages first among its other languages. A
-- column rather than a table: every read of a user (the principal of
-- each request) has them without a join; the store checks the codes on
-- each write, and a code whose language is gone later is skipped.
ALTER TABLE users ADD COLUMN secondary_languages TEXT NOT NULL DEFAULT '';
