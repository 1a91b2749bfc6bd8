-- The in-memory cache of vectorcache.go also holds what lexical search
-- reads (each record's lexemes, term frequencies and search_len), so an
-- update of the analyzed text must restamp the row too. search_vector is
-- generated from search_text, so listing search_text covers it.
DROP TRIGGER records_stamp_change ON records;
CREATE TRIGGER records_stamp_change BEFORE UPDATE OF
	id, workspace, kind, agent_id, user_id, session_id, task_id, key, tags, category, action_type, outcome,
	confidence, created_at, expires_at, embedding, embedding_model, search_text, search_len, change_xid
	ON records FOR EACH ROW EXECUTE FUNCTION records_stamp_change();
