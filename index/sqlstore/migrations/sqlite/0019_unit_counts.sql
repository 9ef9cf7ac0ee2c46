-- The units of a translation are counted in list_counts by the write
-- that inserts them (index/sqlstore/insert.go), once per write, not by a
-- trigger once per row: that trigger was a tenth of an import. Deletes
-- and moves, rarer and not batched, keep their triggers.
DROP TRIGGER units_list_insert;
