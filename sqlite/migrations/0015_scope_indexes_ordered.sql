-- A session's (or a task's) records are read in the order they were
-- written: GetSession, a session's deletion and its message recount name
-- the session, its kind and often its user, and ask created_at order.
-- Without statistics SQLite then preferred records_user (workspace,
-- user_id, kind, created_at) or records_kind_created, which give that
-- order but read every record of the user (or the workspace) of the kind:
-- one session's 50 messages cost 34 ms once the user had 100,000. With
-- created_at last, records_session and records_task give the order too,
-- and are chosen: the read costs what the session holds.
DROP INDEX records_session;
CREATE INDEX records_session ON records (workspace, session_id, kind, created_at) WHERE session_id <> '';
DROP INDEX records_task;
CREATE INDEX records_task ON records (workspace, task_id, kind, created_at) WHERE task_id <> '';
