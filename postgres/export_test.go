package postgres

// SetVectorCache turns db's in-memory vector cache on or off, so that
// tests can compare it with the SQL paths.
func SetVectorCache(db *DB, on bool) {
	if on {
		db.cache = newVectorCache()
	} else {
		db.cache = nil
	}
}

// CachedSearches is how many searches db's vector cache has answered.
func CachedSearches(db *DB) int64 {
	if db.cache == nil {
		return 0
	}
	return db.cache.answered.Load()
}

// CachedLexicalSearches is how many lexical searches db's cache has
// answered.
func CachedLexicalSearches(db *DB) int64 {
	if db.cache == nil {
		return 0
	}
	return db.cache.lexAnswered.Load()
}
