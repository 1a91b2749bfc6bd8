-- BM25 needs each record's length in terms: search_len is the number of
-- whitespace-separated terms of search_text, as the SQLite index counts
-- them (strings.Fields). The store writes it with search_text on every
-- insert and update; rows written before this migration get it from SQL.
ALTER TABLE records ADD COLUMN search_len integer NOT NULL DEFAULT 0;
UPDATE records SET search_len = coalesce(array_length(regexp_split_to_array(btrim(search_text, E' \t\n\r\f\v'), E'\\s+'), 1), 0)
	WHERE btrim(search_text, E' \t\n\r\f\v') <> '';
-- N and the average length are read from this index alone.
CREATE INDEX records_search_len ON records (workspace) INCLUDE (search_len);
-- The embedding queue reads pending records oldest first from this index.
CREATE INDEX records_pending ON records (embedding_model, created_at, id);
