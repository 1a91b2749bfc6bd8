-- Metadata on every record (API.md v1.2), as in SQLite's 0009_metadata.sql:
-- a small JSON object the client owns, kept as written (json, not jsonb,
-- so the canonical text round-trips exactly); NULL for none.
ALTER TABLE records ADD COLUMN metadata json;
ALTER TABLE record_versions ADD COLUMN metadata json;

-- The in-memory search indexes filter on metadata (RecordFilter.Where), so
-- changing it restamps the row for the change feed, as 0008 does for
-- validity.
CREATE TRIGGER records_stamp_metadata BEFORE UPDATE OF metadata
	ON records FOR EACH ROW EXECUTE FUNCTION records_stamp_change();
