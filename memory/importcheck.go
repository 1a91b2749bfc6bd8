package memory

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

// importData returns a new value of the data type a record of kind (and,
// for sessions, category) stores, for decoding its data into.
func importData(kind loci.Kind, category string) any {
	switch kind {
	case loci.KindNote:
		return &noteData{}
	case loci.KindBlock:
		return &blockData{}
	case loci.KindWorking:
		return &workingData{}
	case loci.KindEpisode:
		return &episodeData{}
	case loci.KindFact:
		return &factData{}
	case loci.KindPreference:
		return &prefData{}
	case loci.KindSession:
		if category == messageCategory {
			return &messageData{}
		}
		return &sessionData{}
	}
	return &map[string]json.RawMessage{}
}

// checkImportData checks that data is what a record of rec's kind stores:
// a JSON object whose fields have the kind's types and ranges. It returns
// the data decoded (importData's type; nil when absent).
func checkImportData(field string, rec *loci.Record, data json.RawMessage) (any, error) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		if rec.Kind == loci.KindNote || rec.Kind == loci.KindWorking {
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
	v := importData(rec.Kind, rec.Category)
	if err := json.Unmarshal(trimmed, v); err != nil {
		return nil, loci.Errorf(loci.EINVALID, "%s is not what a %s stores: %s", field, rec.Kind, jsonProblem(err))
	}
	switch d := v.(type) {
	case *noteData:
		if isNull(d.Value) {
			return nil, loci.Errorf(loci.EINVALID, "%s of a note must hold its value", field)
		}
		// The value a note write accepts: not an empty or blank string.
		if _, _, err := checkNoteValue(d.Value); err != nil {
			return nil, loci.Errorf(loci.EINVALID, "%s of a note: %s", field, loci.ErrorMessage(err))
		}
	case *workingData:
		if isNull(d.Value) {
			return nil, loci.Errorf(loci.EINVALID, "%s of a working memory entry must hold its value", field)
		}
	case *blockData:
		if d.Limit < 0 || d.Limit > loci.MaxBlockLimit {
			return nil, loci.Errorf(loci.EINVALID, "%s: a block's limit must be from 0 to %d", field, loci.MaxBlockLimit)
		}
	case *episodeData:
		if c := d.ConfidenceScore; c != nil && (*c < 0 || *c > 1) {
			return nil, loci.Errorf(loci.EINVALID, "%s: confidence_score must be from 0 to 1", field)
		}
	case *factData:
		if d.ContradictionCount < 0 || d.ContradictionCount > maxImportInt {
			return nil, loci.Errorf(loci.EINVALID, "%s: contradiction_count is out of range", field)
		}
	case *prefData:
		if d.ObservationCount < 0 || d.ObservationCount > maxImportInt || d.Peak < 0 || d.Peak > 100 {
			return nil, loci.Errorf(loci.EINVALID, "%s: observation_count or peak is out of range", field)
		}
		if d.Source != "" && learnedFrom[d.Source] == "" {
			return nil, loci.Errorf(loci.EINVALID, "%s: source must be explicit, implicit or decision", field)
		}
	case *sessionData:
		if d.MessageCount < 0 || d.MessageCount > maxImportInt {
			return nil, loci.Errorf(loci.EINVALID, "%s: message_count is out of range", field)
		}
	case *messageData:
		if d.Index < 0 || d.Index > maxImportInt {
			return nil, loci.Errorf(loci.EINVALID, "%s: a message's index is out of range", field)
		}
	}
	return v, nil
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
	if err := checkImportMetadata("metadata", rec.Metadata); err != nil {
		return nil, err
	}
	if !rec.Kind.Valid() {
		return nil, loci.Errorf(loci.EINVALID, "unknown kind %q", rec.Kind)
	}
	for _, f := range []struct {
		name, v string
		max     int
	}{
		{"agent_id", rec.AgentID, maxImportScopeBytes}, {"user_id", rec.UserID, maxImportScopeBytes},
		{"session_id", rec.SessionID, maxImportScopeBytes}, {"task_id", rec.TaskID, maxImportScopeBytes},
		{"key", rec.Key, maxImportKeyBytes}, {"category", rec.Category, maxImportScopeBytes},
		{"action_type", rec.ActionType, maxImportScopeBytes}, {"outcome", rec.Outcome, maxImportScopeBytes},
		{"content", rec.Content, maxContentOf(rec.Kind)}, {"search_text", searchText, 2 * maxImportContentBytes},
		{"embedding_model", rec.EmbeddingModel, maxImportModelBytes},
	} {
		if err := loci.CheckText(f.name, f.v, f.max); err != nil {
			return nil, err
		}
	}
	if err := checkImportScope(rec); err != nil {
		return nil, err
	}
	if len(rec.Tags) > maxImportTags {
		return nil, loci.Errorf(loci.EINVALID, "at most %d tags", maxImportTags)
	}
	for i, tag := range rec.Tags {
		if err := loci.RequireText("tag", tag, maxImportTagBytes); err != nil {
			return nil, err
		} else if slices.Contains(rec.Tags[:i], tag) {
			return nil, loci.Errorf(loci.EINVALID, "tag %q is given twice", tag)
		}
	}
	if data, err = checkImportData("data", rec, rec.Data); err != nil {
		return nil, err
	}
	maxConfidence := 100.0
	if rec.Kind == loci.KindFact || rec.Kind == loci.KindEpisode {
		maxConfidence = 1
	}
	if math.IsNaN(rec.Confidence) || rec.Confidence < 0 || rec.Confidence > maxConfidence {
		return nil, loci.Errorf(loci.EINVALID, "confidence of a %s must be from 0 to %g", rec.Kind, maxConfidence)
	}
	if rec.AccessCount < 0 || rec.AccessCount > maxImportInt {
		return nil, loci.Errorf(loci.EINVALID, "access_count must be from 0 to %d", maxImportInt)
	}
	if rec.Version < 1 || rec.Version > maxImportInt {
		return nil, loci.Errorf(loci.EINVALID, "version must be from 1 to %d", maxImportInt)
	}
	if err := checkImportTime("created_at", rec.CreatedAt, true); err != nil {
		return nil, err
	} else if err := checkImportTime("updated_at", rec.UpdatedAt, true); err != nil {
		return nil, err
	} else if err := checkImportTime("last_accessed_at", rec.LastAccessedAt, false); err != nil {
		return nil, err
	} else if err := checkImportTime("expires_at", rec.ExpiresAt, false); err != nil {
		return nil, err
	}
	if rec.UpdatedAt.Before(rec.CreatedAt) {
		return nil, loci.Errorf(loci.EINVALID, "updated_at must not be before created_at")
	}
	if len(rec.Embedding) > 0 || rec.EmbeddingModel != "" {
		if len(rec.Embedding) == 0 || rec.EmbeddingModel == "" {
			return nil, loci.Errorf(loci.EINVALID, "embedding and embedding_model go together")
		} else if len(rec.Embedding) > maxImportDims {
			return nil, loci.Errorf(loci.EINVALID, "an embedding has at most %d dimensions", maxImportDims)
		}
	}
	seen := map[int]bool{}
	for _, v := range versions {
		if v.Version < 1 || v.Version >= rec.Version || seen[v.Version] {
			return nil, loci.Errorf(loci.EINVALID, "each kept version must be distinct and below the record's version %d", rec.Version)
		}
		seen[v.Version] = true
		if err := loci.CheckText("a version's content", v.Content, maxImportContentBytes); err != nil {
			return nil, err
		} else if err := checkImportMetadata("a version's metadata", v.Metadata); err != nil {
			return nil, err
		} else if _, err := checkImportData("a version's data", rec, v.Data); err != nil {
			return nil, err
		} else if err := checkImportTime("a version's updated_at", v.UpdatedAt, true); err != nil {
			return nil, err
		}
	}
	return data, nil
}

// maxContentOf is the most content bytes the API stores for a kind.
func maxContentOf(k loci.Kind) int {
	switch k {
	case loci.KindNote:
		return loci.MaxNoteValueBytes
	case loci.KindPassage:
		return loci.MaxPassageBytes
	case loci.KindWorking:
		return loci.MaxWorkingTaskBytes
	case loci.KindSession:
		return max(loci.MaxSessionSummary, loci.MaxMessageBytes)
	case loci.KindBlock:
		return loci.MaxBlockLimit * 4 // a block's limit is in characters
	}
	return maxImportContentBytes
}

// checkImportScope checks the scope and fields a kind requires (DESIGN
// §1.2), so that every imported record is reachable the way the API
// reaches its kind.
func checkImportScope(rec *loci.Record) error {
	need := func(field, v string) error {
		if strings.TrimSpace(v) == "" {
			return loci.Errorf(loci.EINVALID, "a %s needs %s", rec.Kind, field)
		}
		return nil
	}
	var errs []error
	switch rec.Kind {
	case loci.KindNote, loci.KindBlock:
		errs = append(errs, need("agent_id", rec.AgentID), need("key", rec.Key))
	case loci.KindPassage:
		errs = append(errs, need("agent_id", rec.AgentID))
	case loci.KindWorking:
		errs = append(errs, need("task_id", rec.TaskID), need("key", rec.Key))
	case loci.KindEpisode:
		errs = append(errs, need("user_id", rec.UserID), need("agent_id", rec.AgentID), checkOutcome(rec.Outcome, true))
	case loci.KindFact:
		errs = append(errs, checkCategory(rec.Category, true))
	case loci.KindPreference:
		errs = append(errs, need("user_id", rec.UserID), need("key", rec.Key))
	case loci.KindSession:
		errs = append(errs, need("user_id", rec.UserID), need("session_id", rec.SessionID))
		if !slices.Contains([]string{sessionCategory, messageCategory}, rec.Category) {
			errs = append(errs, loci.Errorf(loci.EINVALID, "a session record's category must be %s or %s", sessionCategory, messageCategory))
		} else if rec.Category == sessionCategory && rec.Key != rec.SessionID {
			// A session is found by its key, its messages by session_id.
			errs = append(errs, loci.Errorf(loci.EINVALID, "a session's key must be its session_id"))
		}
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// checkImportMetadata checks metadata as a write does (its limits, API.md
// v1.2) and that it is in the canonical form loci stores, so that what an
// import stores exports the same.
func checkImportMetadata(field string, raw json.RawMessage) error {
	if raw == nil {
		return nil
	}
	canon, err := loci.NormalizeMetadata(raw)
	if err != nil {
		return loci.Errorf(loci.ErrorCode(err), "%s: %s", field, loci.ErrorMessage(err))
	}
	if !bytes.Equal(canon, raw) {
		return loci.Errorf(loci.EINVALID, "%s must be a non-empty object in canonical form (keys sorted, compact), as loci exports it", field)
	}
	return nil
}
