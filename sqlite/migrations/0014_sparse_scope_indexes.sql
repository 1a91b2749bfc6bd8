-- Fewer index writes per record (issue 37). Most records have no session
-- and no task (a passage, a note, a fact), yet each was entered in the
-- session and task indexes under '': two more B-tree inserts per record
-- that no read used (a read of a session or a task names it). Those
-- indexes now hold only the records that have one; a filter naming a
-- session or a task says so (session_id <> '', sqlite/tx.go) so the
-- planner may use them. records_pending_embedding duplicated
-- records_embedding_model for the one read that used it, a quick count
-- of a workspace's pending embeddings, which now counts every
-- workspace's from records_embedding_model (an upper bound: nothing
-- pending there means nothing pending in the workspace).
DROP INDEX records_task;
CREATE INDEX records_task ON records (workspace, task_id, kind) WHERE task_id <> '';
DROP INDEX records_session;
CREATE INDEX records_session ON records (workspace, session_id, kind) WHERE session_id <> '';
DROP INDEX records_pending_embedding;
