-- Every operation audits itself now (in memory/, inside its transaction
-- for writes), whatever the interface: the entry says which one it came
-- through, and whether it was a dry run.
ALTER TABLE audit_log ADD COLUMN via text NOT NULL DEFAULT '';
ALTER TABLE audit_log ADD COLUMN dry_run boolean NOT NULL DEFAULT false;
