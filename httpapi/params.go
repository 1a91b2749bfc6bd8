package httpapi

import (
	"net/http"
	"strconv"
	"time"

	"github.com/loci-memory/loci"
)

// pageParams reads a listing's limit and offset from the query: limit
// between 1 and loci.MaxListLimit (def when absent; 0 lets the service
// choose), offset not negative.
func pageParams(r *http.Request, def int) (limit, offset int, err error) {
	limit, err = queryInt(r, "limit", def)
	if err != nil {
		return 0, 0, err
	}
	if r.URL.Query().Has("limit") && (limit < 1 || limit > loci.MaxListLimit) {
		return 0, 0, loci.Errorf(loci.EINVALID, "limit must be between 1 and %d", loci.MaxListLimit)
	}
	offset, err = queryInt(r, "offset", 0)
	return limit, offset, err
}

// queryInt reads a non-negative integer query parameter, def when absent.
func queryInt(r *http.Request, name string, def int) (int, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, loci.Errorf(loci.EINVALID, "%s must be a non-negative integer", name)
	}
	return n, nil
}

// queryBool reads a boolean query parameter, false when absent.
func queryBool(r *http.Request, name string) (bool, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, loci.Errorf(loci.EINVALID, "%s must be true or false", name)
	}
	return b, nil
}

// page returns the items of one page of a listing held in full.
func page[T any](items []T, limit, offset int) []T {
	return items[min(offset, len(items)):min(offset+limit, len(items))]
}

// givenTime checks a time a request gave: one loci stores
// (loci.CheckTime), and not Go's zero time, 0001-01-01T00:00:00Z, which
// the rules read as none given (now, or no expiry).
func givenTime(field string, t time.Time) error {
	if t.IsZero() {
		return loci.Errorf(loci.EINVALID, "%s must be after 0001-01-01T00:00:00Z", field)
	}
	return loci.CheckTime(field, t)
}

// parseTime reads an RFC 3339 time (zero when v is empty), in UTC.
func parseTime(name, v string) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return time.Time{}, loci.Errorf(loci.EINVALID, "%s must be an RFC 3339 time, e.g. 2026-01-02T15:04:05Z", name)
	}
	return t.UTC(), givenTime(name, t)
}
