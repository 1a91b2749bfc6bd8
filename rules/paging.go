package rules

import "github.com/loci-memory/loci"

// checkSearch checks a kind search's query text and limit (0: the default
// for searches) and returns the limit.
func checkSearch(query string, limit int) (int, error) {
	if limit < 0 || limit > loci.MaxSearchLimit {
		return 0, loci.Errorf(loci.EINVALID, "limit must be between 1 and %d", loci.MaxSearchLimit)
	} else if limit == 0 {
		limit = loci.DefaultSearchLimit
	}
	if len(tokens(query)) == 0 {
		return 0, loci.Errorf(loci.EINVALID, "q must contain at least one word")
	}
	return limit, nil
}

// checkPage checks a listing's limit and offset: 0 gives def, more than
// loci.MaxListLimit or a negative value is invalid.
func checkPage(limit, offset, def int) (int, int, error) {
	if limit < 0 || limit > loci.MaxListLimit {
		return 0, 0, loci.Errorf(loci.EINVALID, "limit must be between 1 and %d", loci.MaxListLimit)
	} else if offset < 0 {
		return 0, 0, loci.Errorf(loci.EINVALID, "offset must not be negative")
	}
	if limit == 0 {
		limit = def
	}
	return limit, offset, nil
}
