-- write_log: what each write transaction touched, in commit order, so
-- that every process sharing the database can tell which of its cached
-- answers another one made stale (index/sqlstore/shared.go). deps is "*"
-- (everything) or the write clock's stripes, comma-separated.
CREATE TABLE write_log (
	seq  BIGINT PRIMARY KEY,
	deps TEXT NOT NULL
);
