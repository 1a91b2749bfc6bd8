-- Facts that change over time (docs/rules.md). A record is true from valid_at
-- (NULL: always was) until invalid_at (NULL: still is); a record with
-- invalid_at set is history. review says why a record waits for a person
-- ('disputed' fact, preference 'flagged_for_removal'; '' when it does not).
ALTER TABLE records ADD COLUMN valid_at INTEGER;
ALTER TABLE records ADD COLUMN invalid_at INTEGER;
ALTER TABLE records ADD COLUMN review TEXT NOT NULL DEFAULT '';

-- A key is unique among the records that are not history, so a keyed fact
-- keeps its superseded versions under the same key.
DROP INDEX records_key;
CREATE UNIQUE INDEX records_key ON records (workspace, kind, agent_id, user_id, session_id, task_id, key)
	WHERE key IS NOT NULL AND invalid_at IS NULL;
-- A fact's key names a slot per user (or global), whichever agent wrote
-- it: one open fact per slot.
CREATE UNIQUE INDEX records_fact_slot ON records (workspace, user_id, key)
	WHERE kind = 'fact' AND key IS NOT NULL AND invalid_at IS NULL;
-- Every version of a slot, for its history.
CREATE INDEX records_key_versions ON records (workspace, kind, user_id, key) WHERE key IS NOT NULL;

-- Facts written before: true since they were stored.
UPDATE records SET valid_at = created_at WHERE kind = 'fact' AND valid_at IS NULL;
-- Pattern facts were keyed per user and agent (pattern:ACTION with the
-- agent in the scope); a fact's slot is now per user, so the key names the
-- agent too.
UPDATE records SET key = 'pattern:' || agent_id || ':' || substr(key, 9)
	WHERE kind = 'fact' AND category = 'pattern_learned' AND key LIKE 'pattern:%';
-- Preferences flagged for removal wait for review.
UPDATE records SET review = 'flagged_for_removal'
	WHERE kind = 'preference' AND json_extract(data, '$.flagged_for_removal') = 1;
