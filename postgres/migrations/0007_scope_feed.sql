-- Search indexes now live above the store, one per scope searched, in each
-- process (package index), and rank with the same Go BM25 on every
-- backend; the generated tsvector, its GIN index and search_len (read only
-- by the SQL ranking this replaces) go, which also makes writes cheaper.
-- The change feed of migrations 0005 and 0006 stays: it is how each
-- process keeps its indexes exact. Tombstones now name the scope and kind a
-- record had, so that a process updates only the indexes of the scopes a
-- delete or a move touched; a move to another scope leaves one too.
DROP TRIGGER records_stamp_change ON records;
DROP INDEX IF EXISTS records_search;
DROP INDEX IF EXISTS records_search_len;
ALTER TABLE records DROP COLUMN IF EXISTS search_vector;
ALTER TABLE records DROP COLUMN IF EXISTS search_len;

-- Tombstones written before this migration name no scope: drop them, and
-- raise the floor past them (when there were any), so any reader that might
-- need them starts over.
WITH gone AS (DELETE FROM record_tombstones RETURNING 1)
UPDATE record_feed SET floor = greatest(floor, pg_current_xact_id()::text::bigint + 1)
WHERE id = 1 AND EXISTS (SELECT 1 FROM gone);
ALTER TABLE record_tombstones
	ADD COLUMN kind text COLLATE "C" NOT NULL DEFAULT '',
	ADD COLUMN agent_id text COLLATE "C" NOT NULL DEFAULT '',
	ADD COLUMN user_id text COLLATE "C" NOT NULL DEFAULT '',
	ADD COLUMN session_id text COLLATE "C" NOT NULL DEFAULT '',
	ADD COLUMN task_id text COLLATE "C" NOT NULL DEFAULT '';

CREATE OR REPLACE FUNCTION records_stamp_change() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $fn$
BEGIN
	NEW.change_xid := pg_current_xact_id()::text::bigint;
	IF OLD.workspace IS DISTINCT FROM NEW.workspace OR OLD.id IS DISTINCT FROM NEW.id
		OR OLD.kind IS DISTINCT FROM NEW.kind OR OLD.agent_id IS DISTINCT FROM NEW.agent_id
		OR OLD.user_id IS DISTINCT FROM NEW.user_id OR OLD.session_id IS DISTINCT FROM NEW.session_id
		OR OLD.task_id IS DISTINCT FROM NEW.task_id THEN
		INSERT INTO record_tombstones (workspace, id, xid, kind, agent_id, user_id, session_id, task_id)
			VALUES (OLD.workspace, OLD.id, NEW.change_xid, OLD.kind, OLD.agent_id, OLD.user_id, OLD.session_id, OLD.task_id);
	END IF;
	RETURN NEW;
END
$fn$;
-- Every update of what an index keeps restamps the row; TouchRecords
-- (access counts) does not.
CREATE TRIGGER records_stamp_change BEFORE UPDATE OF
	id, workspace, kind, agent_id, user_id, session_id, task_id, key, search_text, data, tags, category,
	action_type, outcome, confidence, created_at, updated_at, expires_at, version, embedding, embedding_model,
	change_xid
	ON records FOR EACH ROW EXECUTE FUNCTION records_stamp_change();

CREATE OR REPLACE FUNCTION records_tombstone() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $fn$
BEGIN
	INSERT INTO record_tombstones (workspace, id, xid, kind, agent_id, user_id, session_id, task_id)
		SELECT workspace, id, pg_current_xact_id()::text::bigint, kind, agent_id, user_id, session_id, task_id FROM gone;
	RETURN NULL;
END
$fn$;
