-- Fewer index writes per record (issue 37). Most records have no session
-- and no task (a passage, a note, a fact), yet each was entered in the
-- session and task indexes under '': two more B-tree inserts per record
-- that no read used (a read of a session or a task names it). Those
-- indexes now hold only the records that have one; a filter naming a
-- session or a task says so (session_id <> '', postgres/tx.go), which a
-- generic plan needs to use them. records_pending_embedding (workspace,
-- embedding_model) served no read that records_pending (embedding_model,
-- created_at, id) or the scope indexes do not.
DROP INDEX records_task;
CREATE INDEX records_task ON records (workspace, task_id, kind) WHERE task_id <> '';
DROP INDEX records_session;
CREATE INDEX records_session ON records (workspace, session_id, kind) WHERE session_id <> '';
DROP INDEX records_pending_embedding;
