-- The marker of a process alone on the database (lease.go): the backend
-- of its lease's session, set once it holds the lease exclusively and
-- cleared before it lets go. A newcomer that finds it set once it holds
-- the lease shared knows that process ended without stepping down, and
-- waits out the time it may still answer from its caches.
CREATE TABLE solo_lease (
	id     SMALLINT PRIMARY KEY CHECK (id = 1),
	holder INTEGER
);
INSERT INTO solo_lease (id, holder) VALUES (1, NULL);
