-- A note read by its key (recall, and the read of every remember) names
-- its agent, but records_key_versions (workspace, kind, user_id, key)
-- holds every agent's notes of that key under the same user (''): the read
-- went through all of them, a cost that grew with the agents sharing a
-- key (0.22 ms among 1,000). With agent_id last, the agent's note is one
-- seek; a read by the key alone (a fact's slot, whichever agent wrote it;
-- a user's sessions) keeps the same prefix.
DROP INDEX records_key_versions;
CREATE INDEX records_key_versions ON records (workspace, kind, user_id, key, agent_id) WHERE key IS NOT NULL;
