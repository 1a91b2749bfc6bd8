-- A user's review queue (facts and preferences that wait for a person:
-- disputed, flagged for removal) was found by reading every fact and
-- preference of the user on records_user. Those waiting are few: a
-- partial index holds them alone, so an insert of any other record adds
-- nothing to it, and a filter naming review states (review <> '',
-- sqlite/tx.go) reads only them.
CREATE INDEX records_review ON records (workspace, user_id, kind) WHERE review <> '';
