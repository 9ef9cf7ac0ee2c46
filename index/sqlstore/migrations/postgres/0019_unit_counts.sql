-- The units of a translation are counted in list_counts by the write
-- that inserts them (index/sqlstore/insert.go), as on SQLite, where the
-- per-row trigger was a tenth of an import: one code path for both
-- engines. Deletes and moves keep their triggers.
DROP TRIGGER units_list_insert ON units;
DROP FUNCTION units_list_insert();
