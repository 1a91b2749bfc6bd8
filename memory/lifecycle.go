package memory

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/loci-memory/loci"
)

// lifecycle holds the configurable lifecycle numbers; a zero field means
// the default of the loci package.
type lifecycle struct {
	workingTTL   time.Duration
	workingLimit int
	episodeTTL   time.Duration
	episodeCap   int
}

// WithWorkingTTL sets how long a working-memory entry lives after its last
// write (default loci.DefaultWorkingTTL).
func WithWorkingTTL(d time.Duration) Option { return func(s *Service) { s.life.workingTTL = d } }

// WithWorkingTaskLimit sets the most bytes one task's working values may
// total (default loci.MaxWorkingTaskBytes).
func WithWorkingTaskLimit(n int) Option { return func(s *Service) { s.life.workingLimit = n } }

// WithEpisodeTTL sets how long an episode lives after its creation
// (default loci.DefaultEpisodeTTL).
func WithEpisodeTTL(d time.Duration) Option { return func(s *Service) { s.life.episodeTTL = d } }

// WithEpisodeCap sets how many episodes one user+agent keeps (default
// loci.DefaultEpisodeCap).
func WithEpisodeCap(n int) Option { return func(s *Service) { s.life.episodeCap = n } }

func (l lifecycle) workingTTLOr() time.Duration {
	if l.workingTTL > 0 {
		return l.workingTTL
	}
	return loci.DefaultWorkingTTL
}

func (l lifecycle) workingLimitOr() int {
	if l.workingLimit > 0 {
		return l.workingLimit
	}
	return loci.MaxWorkingTaskBytes
}

func (l lifecycle) episodeTTLOr() time.Duration {
	if l.episodeTTL > 0 {
		return l.episodeTTL
	}
	return loci.DefaultEpisodeTTL
}

func (l lifecycle) episodeCapOr() int {
	if l.episodeCap > 0 {
		return l.episodeCap
	}
	return loci.DefaultEpisodeCap
}

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

// optionalObject checks that raw, when present and not null, is a JSON
// object, and returns it compacted (nil when absent). Compacting is the
// check: it fails on what is not JSON.
func optionalObject(field string, raw json.RawMessage) (json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, nil
	}
	var buf bytes.Buffer
	if raw[0] != '{' || json.Compact(&buf, raw) != nil {
		return nil, loci.Errorf(loci.EINVALID, "%s must be a JSON object", field)
	}
	return buf.Bytes(), nil
}

// requiredJSON checks that raw is a JSON value other than null and returns
// it compacted. Compacting is the check: it fails on what is not JSON.
func requiredJSON(field string, raw json.RawMessage) (json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, loci.Errorf(loci.EINVALID, "%s is required", field)
	}
	var buf bytes.Buffer
	if json.Compact(&buf, raw) != nil {
		return nil, loci.Errorf(loci.EINVALID, "%s must be valid JSON", field)
	}
	return buf.Bytes(), nil
}

// jsonStrings returns the string values found anywhere in a JSON value, so
// structured context can be searched as text.
func jsonStrings(raw json.RawMessage) []string {
	if len(raw) == 0 {
		return nil
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return nil
	}
	var out []string
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			out = append(out, x)
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for k, e := range x {
				out = append(out, k)
				walk(e)
			}
		}
	}
	walk(v)
	return out
}

// round6 rounds a score to 6 decimals, so repeated steps of 0.1 and 0.2
// land on their decimal values (1.0 - 5*0.2 is 0, not 5.55e-17).
func round6(x float64) float64 { return math.Round(x*1e6) / 1e6 }

// decodeData decodes a record's data into v.
func decodeData(rec *loci.Record, v any) error {
	if len(rec.Data) == 0 {
		return nil
	}
	if err := json.Unmarshal(rec.Data, v); err != nil {
		return fmt.Errorf("decode %s %s: %w", rec.Kind, rec.ID, err)
	}
	return nil
}

// errRollback makes a dry run roll back its transaction.
var errRollback = errors.New("dry run: roll back")
