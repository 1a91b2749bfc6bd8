-- Metadata on every record (API.md v1.2): a small JSON object the client
-- owns, in canonical form; NULL for none. Versions keep it with the
-- content they kept.
ALTER TABLE records ADD COLUMN metadata TEXT;
ALTER TABLE record_versions ADD COLUMN metadata TEXT;
