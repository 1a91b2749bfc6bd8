-- Metadata on every record (docs/records.md), as in SQLite's
-- 0009_metadata.sql: a small JSON object the client owns, kept as written
-- (json, not jsonb, so the canonical text round-trips exactly); NULL for none.
ALTER TABLE records ADD COLUMN metadata json;
ALTER TABLE record_versions ADD COLUMN metadata json;

-- The in-memory search indexes filter on metadata (RecordFilter.Where), so
-- changing it restamps the row for the change feed, as 0008 does for
-- validity.
CREATE TRIGGER records_stamp_metadata BEFORE UPDATE OF metadata
	ON records FOR EACH ROW EXECUTE FUNCTION records_stamp_change();

-- A repeat (docs/rules.md: the same content again, case and spacing aside)
-- is found by the hash of the content so normalized (loci.ContentHash):
-- rows written before get theirs from Go right after this file, in the
-- same transaction (backfillContentHash).
ALTER TABLE records ADD COLUMN content_hash text COLLATE "C";
CREATE INDEX records_content_hash ON records (workspace, content_hash, kind, user_id, agent_id) WHERE content_hash IS NOT NULL;
