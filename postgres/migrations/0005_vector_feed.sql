-- The change feed behind each process's in-memory vector cache (see
-- vectorcache.go). Every change that can alter a record's vector search
-- standing is stamped with the 64-bit id of the transaction that made it:
-- change_xid on the row for inserts and updates, a tombstone for deletes.
-- A reader that has applied everything committed as of a snapshot whose
-- xmin was H re-reads only the rows and tombstones stamped >= H: every
-- transaction that commits later has an id >= H, whenever it stamped.
-- Writers take no shared lock and touch no shared row.
-- Rows written before this migration keep 0 (added without a rewrite);
-- inserts are stamped by the default, updates by the trigger below.
ALTER TABLE records ADD COLUMN change_xid bigint NOT NULL DEFAULT 0;
ALTER TABLE records ALTER COLUMN change_xid SET DEFAULT pg_current_xact_id()::text::bigint;
CREATE INDEX records_change ON records (workspace, change_xid);

-- Updates of what a vector search reads (filterable fields, the embedding
-- and its model) restamp the row; TouchRecords (access counts) does not.
-- A row moved to another workspace leaves a tombstone in the old one.
-- search_path is fixed at creation, so the trigger finds record_tombstones
-- in this schema whatever the writer's path is.
CREATE TABLE record_tombstones (
	workspace  text COLLATE "C" NOT NULL,
	id         text COLLATE "C" NOT NULL,
	xid        bigint NOT NULL,
	deleted_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX record_tombstones_change ON record_tombstones (workspace, xid);
CREATE INDEX record_tombstones_at ON record_tombstones (deleted_at);

-- Tombstones are pruned after a while (DeleteRecords); floor is one more
-- than the largest xid pruned, so a reader whose horizon is below it knows
-- it may have missed a delete and reloads.
CREATE TABLE record_feed (
	id    integer PRIMARY KEY CHECK (id = 1),
	floor bigint NOT NULL
);
INSERT INTO record_feed (id, floor) VALUES (1, 0);

CREATE FUNCTION records_stamp_change() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $fn$
BEGIN
	NEW.change_xid := pg_current_xact_id()::text::bigint;
	IF OLD.workspace IS DISTINCT FROM NEW.workspace OR OLD.id IS DISTINCT FROM NEW.id THEN
		INSERT INTO record_tombstones (workspace, id, xid) VALUES (OLD.workspace, OLD.id, NEW.change_xid);
	END IF;
	RETURN NEW;
END
$fn$;
CREATE TRIGGER records_stamp_change BEFORE UPDATE OF
	id, workspace, kind, agent_id, user_id, session_id, task_id, key, tags, category, action_type, outcome,
	confidence, created_at, expires_at, embedding, embedding_model, change_xid
	ON records FOR EACH ROW EXECUTE FUNCTION records_stamp_change();

CREATE FUNCTION records_tombstone() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $fn$
BEGIN
	INSERT INTO record_tombstones (workspace, id, xid)
		SELECT workspace, id, pg_current_xact_id()::text::bigint FROM gone;
	RETURN NULL;
END
$fn$;
CREATE TRIGGER records_tombstone AFTER DELETE ON records
	REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION records_tombstone();
