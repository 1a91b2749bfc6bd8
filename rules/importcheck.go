package rules

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/loci-memory/loci"
)

// Bounds of an imported record that the API's own writes never pass, so
// that what an import stores reads back like what the API stored.
const (
	maxImportIDBytes      = 64
	maxImportScopeBytes   = loci.MaxAgentIDBytes
	maxImportKeyBytes     = 1024
	maxImportContentBytes = 1 << 20 // a request body's limit: facts and episodes have no other
	maxImportTags         = loci.MaxFactKeywords
	maxImportTagBytes     = loci.MaxFactKeywordBytes
	maxImportModelBytes   = 256
	maxImportDims         = 1 << 14
	maxImportInt          = math.MaxInt32 // the integer columns' range
)

// Times an import accepts: what both backends store exactly (PostgreSQL's
// timestamptz, SQLite's Unix microseconds), and RFC 3339 can write.
var (
	minImportTime = time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC)
	maxImportTime = time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC)
)

// checkImportTime checks a time field: required ones must be set; any set
// one must lie in the range both backends store.
func checkImportTime(field string, t time.Time, required bool) error {
	if t.IsZero() {
		if required {
			return loci.Errorf(loci.EINVALID, "%s is required", field)
		}
		return nil
	}
	if t.Before(minImportTime) || t.After(maxImportTime) {
		return loci.Errorf(loci.EINVALID, "%s must be between years 1 and 9999", field)
	}
	return nil
}

// checkImportData checks that data is what a record of rec's kind stores:
// a JSON object whose fields have the kind's types and ranges. It returns
// the data decoded (the kind's data type; nil when absent).
func checkImportData(field string, rec *loci.Record, data json.RawMessage) (any, error) {
	rules, ok := importOf(rec.Kind)
	if !ok {
		return nil, loci.Errorf(loci.EINVALID, "unknown kind %q", rec.Kind)
	}
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		if rules.importLimits().dataRequired {
			return nil, loci.Errorf(loci.EINVALID, "%s of a %s must hold its value", field, rec.Kind)
		}
		return nil, nil
	}
	if trimmed[0] != '{' {
		return nil, loci.Errorf(loci.EINVALID, "%s of a %s must be a JSON object", field, rec.Kind)
	}
	if !utf8.Valid(trimmed) {
		return nil, loci.Errorf(loci.EINVALID, "%s must be valid UTF-8", field)
	}
	return rules.checkImportData(field, rec, trimmed)
}

// decodeImport decodes data, a record's data, into v, the data type its
// kind stores.
func decodeImport(field string, rec *loci.Record, data []byte, v any) error {
	if err := json.Unmarshal(data, v); err != nil {
		return loci.Errorf(loci.EINVALID, "%s is not what a %s stores: %s", field, rec.Kind, jsonProblem(err))
	}
	return nil
}

func isNull(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || bytes.Equal(t, []byte("null"))
}

// jsonProblem describes a decoding error without echoing the input.
func jsonProblem(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return "field " + te.Field + " must be " + te.Type.String()
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

// checkImportRecord checks an imported record as strictly as the API checks
// a write: identity, kind, scope, sizes, the kind's data shape, scores,
// counters and times in range, and its kept versions likewise. It returns
// the record's data decoded (checkImportData).
func checkImportRecord(rec *loci.Record, searchText string, versions []loci.RecordVersion) (data any, err error) {
	if err := loci.RequireText("id", rec.ID, maxImportIDBytes); err != nil {
		return nil, err
	}
	if err := checkImportMetadata("metadata", &rec.Metadata); err != nil {
		return nil, err
	}
	rules, ok := importOf(rec.Kind)
	if !rec.Kind.Valid() || !ok {
		return nil, loci.Errorf(loci.EINVALID, "unknown kind %q", rec.Kind)
	}
	limits := rules.importLimits()
	if err := checkImportTexts(rec, searchText, limits); err != nil {
		return nil, err
	}
	if err := rules.checkImportScope(rec); err != nil {
		return nil, err
	}
	if err := checkImportTags(rec.Tags); err != nil {
		return nil, err
	}
	if data, err = checkImportData("data", rec, rec.Data); err != nil {
		return nil, err
	}
	if err := checkImportRanges(rec, limits); err != nil {
		return nil, err
	}
	if err := checkImportVersions(rec, versions); err != nil {
		return nil, err
	}
	return data, nil
}

// checkImportTexts checks the sizes of an imported record's texts: its
// scope, key, category, content (its kind's bound) and search text.
func checkImportTexts(rec *loci.Record, searchText string, limits importLimits) error {
	for _, f := range []struct {
		name, v string
		max     int
	}{
		{"agent_id", rec.AgentID, maxImportScopeBytes}, {"user_id", rec.UserID, maxImportScopeBytes},
		{"session_id", rec.SessionID, maxImportScopeBytes}, {"task_id", rec.TaskID, maxImportScopeBytes},
		{"key", rec.Key, maxImportKeyBytes}, {"category", rec.Category, maxImportScopeBytes},
		{"action_type", rec.ActionType, maxImportScopeBytes}, {"outcome", rec.Outcome, maxImportScopeBytes},
		{"content", rec.Content, limits.maxContent}, {"search_text", searchText, 2 * maxImportContentBytes},
		{"embedding_model", rec.EmbeddingModel, maxImportModelBytes},
	} {
		if err := loci.CheckText(f.name, f.v, f.max); err != nil {
			return err
		}
	}
	return nil
}

// checkImportTags checks an imported record's tags: how many, their
// sizes, none twice.
func checkImportTags(tags []string) error {
	if len(tags) > maxImportTags {
		return loci.Errorf(loci.EINVALID, "at most %d tags", maxImportTags)
	}
	for i, tag := range tags {
		if err := loci.RequireText("tag", tag, maxImportTagBytes); err != nil {
			return err
		} else if slices.Contains(tags[:i], tag) {
			return loci.Errorf(loci.EINVALID, "tag %q is given twice", tag)
		}
	}
	return nil
}

// checkImportRanges checks an imported record's scores, counters, times
// and embedding are in range.
func checkImportRanges(rec *loci.Record, limits importLimits) error {
	maxConfidence := limits.maxConfidence
	if math.IsNaN(rec.Confidence) || rec.Confidence < 0 || rec.Confidence > maxConfidence {
		return loci.Errorf(loci.EINVALID, "confidence of a %s must be from 0 to %g", rec.Kind, maxConfidence)
	}
	if rec.AccessCount < 0 || rec.AccessCount > maxImportInt {
		return loci.Errorf(loci.EINVALID, "access_count must be from 0 to %d", maxImportInt)
	}
	if rec.Version < 1 || rec.Version > maxImportInt {
		return loci.Errorf(loci.EINVALID, "version must be from 1 to %d", maxImportInt)
	}
	if err := checkImportTime("created_at", rec.CreatedAt, true); err != nil {
		return err
	} else if err := checkImportTime("updated_at", rec.UpdatedAt, true); err != nil {
		return err
	} else if err := checkImportTime("last_accessed_at", rec.LastAccessedAt, false); err != nil {
		return err
	} else if err := checkImportTime("expires_at", rec.ExpiresAt, false); err != nil {
		return err
	} else if err := checkImportTime("valid_at", rec.ValidAt, false); err != nil {
		return err
	} else if err := checkImportTime("invalid_at", rec.InvalidAt, false); err != nil {
		return err
	}
	if !rec.InvalidAt.IsZero() && rec.InvalidAt.Before(validFrom(rec)) {
		return loci.Errorf(loci.EINVALID, "invalid_at must not be before valid_at (or created_at, without one)")
	}
	if err := checkImportExpiry(rec, limits.expiry); err != nil {
		return err
	}
	if rec.UpdatedAt.Before(rec.CreatedAt) {
		return loci.Errorf(loci.EINVALID, "updated_at must not be before created_at")
	}
	if len(rec.Embedding) > 0 || rec.EmbeddingModel != "" {
		if len(rec.Embedding) == 0 || rec.EmbeddingModel == "" {
			return loci.Errorf(loci.EINVALID, "embedding and embedding_model go together")
		} else if len(rec.Embedding) > maxImportDims {
			return loci.Errorf(loci.EINVALID, "an embedding has at most %d dimensions", maxImportDims)
		}
	}
	return nil
}

// checkImportExpiry checks that an imported record has an expires_at if
// and only if its kind's lifecycle gives it one (importExpiry).
func checkImportExpiry(rec *loci.Record, expiry importExpiry) error {
	switch {
	case expiry == expiryNever && !rec.ExpiresAt.IsZero():
		return loci.Errorf(loci.EINVALID, "a %s takes no expires_at: it never expires", rec.Kind)
	case expiry == expiryRequired && rec.ExpiresAt.IsZero():
		return loci.Errorf(loci.EINVALID, "expires_at is required: every %s record expires "+
			"(working memory after its last write, an episode after its creation)", rec.Kind)
	}
	return nil
}

// checkImportVersions checks an imported record's kept versions as the
// record itself is checked.
func checkImportVersions(rec *loci.Record, versions []loci.RecordVersion) error {
	seen := map[int]bool{}
	for i := range versions {
		v := &versions[i]
		if v.Version < 1 || v.Version >= rec.Version || seen[v.Version] {
			return loci.Errorf(loci.EINVALID, "each kept version must be distinct and below the record's version %d", rec.Version)
		}
		seen[v.Version] = true
		if err := loci.CheckText("a version's content", v.Content, maxImportContentBytes); err != nil {
			return err
		} else if err := checkImportMetadata("a version's metadata", &v.Metadata); err != nil {
			return err
		} else if _, err := checkImportData("a version's data", rec, v.Data); err != nil {
			return err
		} else if err := checkImportTime("a version's updated_at", v.UpdatedAt, true); err != nil {
			return err
		}
	}
	return nil
}

// need refuses a record of a kind that requires field without it.
func need(rec *loci.Record, field, v string) error {
	if strings.TrimSpace(v) == "" {
		return loci.Errorf(loci.EINVALID, "a %s needs %s", rec.Kind, field)
	}
	return nil
}

// firstError returns the first of errs that is not nil.
func firstError(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// checkImportMetadata checks metadata as a write does (its limits), and
// puts it in the canonical form loci stores (keys sorted, compact, &, <
// and > unescaped), so that what an import stores exports the same. A
// top-level key holding '.', which earlier versions wrote, is taken
// back.
func checkImportMetadata(field string, raw *json.RawMessage) error {
	if *raw == nil {
		return nil
	}
	canon, err := loci.NormalizeImportedMetadata(*raw)
	if err != nil {
		return loci.Errorf(loci.ErrorCode(err), "%s: %s", field, loci.ErrorMessage(err))
	}
	if canon == nil {
		return loci.Errorf(loci.EINVALID, "%s must be a non-empty object", field)
	}
	*raw = canon
	return nil
}
