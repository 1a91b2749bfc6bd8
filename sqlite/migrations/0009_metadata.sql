-- Metadata on every record (docs/records.md, "Metadata"): a small JSON object
-- the client owns, in canonical form; NULL for none. Versions keep it with the
-- content they kept.
ALTER TABLE records ADD COLUMN metadata TEXT;
ALTER TABLE record_versions ADD COLUMN metadata TEXT;

-- A repeat (docs/rules.md: the same content again, case and spacing aside)
-- is found by the hash of the content so normalized
-- (loci.ContentHash): rows written before get theirs from Go right
-- after this file, in the same transaction (backfillContentHash).
ALTER TABLE records ADD COLUMN content_hash TEXT;
CREATE INDEX records_content_hash ON records (workspace, content_hash, kind, user_id, agent_id) WHERE content_hash IS NOT NULL;
