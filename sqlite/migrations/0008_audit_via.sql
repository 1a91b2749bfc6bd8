-- Every operation audits itself now (in memory/, inside its transaction
-- for writes), whatever the interface: the entry says which one it came
-- through, and whether it was a dry run.
ALTER TABLE audit_log ADD COLUMN via TEXT NOT NULL DEFAULT '';
ALTER TABLE audit_log ADD COLUMN dry_run INTEGER NOT NULL DEFAULT 0;
