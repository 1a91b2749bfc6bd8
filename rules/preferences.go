package rules

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/loci-memory/loci"
)

// prefData is a preference's kind-specific data: its JSON (type, value,
// context, learned_from, first_observed, observation_count) and the confidence
// state. The stored confidence is the record's confidence.
type prefData struct {
	Type              string          `json:"type"`
	Value             json.RawMessage `json:"value"`
	Context           string          `json:"context,omitempty"`
	LearnedFrom       string          `json:"learned_from"`
	FirstObserved     string          `json:"first_observed"`
	ObservationCount  int             `json:"observation_count"`
	Source            string          `json:"source"`
	Peak              int             `json:"peak"`
	IsPersistent      bool            `json:"is_persistent"`
	FlaggedForRemoval bool            `json:"flagged_for_removal"`
	LastUsedAt        time.Time       `json:"last_used_at"`
}

// learnedFrom says how a source learns a preference.
var learnedFrom = map[string]string{
	loci.SourceExplicit: "explicit statement",
	loci.SourceImplicit: "session behavior",
	loci.SourceDecision: "session decision",
}

func errPrefNotFound() error { return loci.Errorf(loci.ENOTFOUND, "preference not found") }

// effectiveConfidence is the stored confidence less the decay for disuse
// at now: 10 after 30 days unused, 25 after 90 days, never below 0.
func effectiveConfidence(stored int, lastUsed, now time.Time) int {
	unused := now.Sub(lastUsed)
	switch {
	case unused >= loci.PrefUnusedLongDuration:
		stored -= loci.PrefUnused90Days
	case unused >= loci.PrefUnusedShortDuration:
		stored -= loci.PrefUnused30Days
	}
	return max(stored, 0)
}

func checkPrefName(userID, typ string) error {
	if err := loci.RequireText("user_id", userID, loci.MaxUserIDBytes); err != nil {
		return err
	}
	return loci.RequireText("type", typ, loci.MaxPreferenceTypeBytes)
}

func prefSearchText(d *prefData) string {
	parts := append([]string{strings.ReplaceAll(d.Type, "_", " "), d.Context}, jsonStrings(d.Value)...)
	if len(d.Value) > 0 && d.Value[0] != '"' && d.Value[0] != '[' && d.Value[0] != '{' {
		parts = append(parts, string(d.Value)) // numbers and booleans
	}
	return searchText(strings.Join(parts, " "))
}

// setPrefRecord writes d into rec: data, content and search text. A new
// content drops the embedding of the old one (it would still find the
// value replaced): the record is embedded again.
func setPrefRecord(rec *loci.Record, d *prefData, confidence int) error {
	data, err := json.Marshal(d)
	if err != nil {
		return fmt.Errorf("encode preference: %w", err)
	}
	rec.Data, rec.Confidence = data, float64(confidence)
	if content := d.Type + ": " + string(d.Value); content != rec.Content {
		rec.Content, rec.Embedding, rec.EmbeddingModel = content, nil, ""
	}
	rec.SearchText = prefSearchText(d)
	rec.Review = ""
	if d.FlaggedForRemoval {
		rec.Review = loci.ReviewFlaggedForRemoval
	}
	return nil
}

// ObservePreference applies one observation of a preference (docs/rules.md,
// "Preferences: contradiction by case, decay computed at read time"): explicit
// sets 100 and persistent; implicit starts at 40 and adds 15 per repeat of the
// same value up to 85; a decision is stored with its session at 100, not
// persistent. A new value replaces the old one and restarts its count. A
// repeat of the same value needs only the creator role; a change (another
// value or source, a flagged preference) needs editor.
func (s *Service) ObservePreference(ctx context.Context, in loci.PreferenceInput) (_ *loci.Preference, _ bool, err error) {
	a, err := s.begin(ctx, loci.OpPreferenceObserve, loci.Scope{UserID: in.UserID, SessionID: in.SessionID})
	defer a.end(&err)
	if err != nil {
		return nil, false, err
	}
	if err := in.Validate(); err != nil {
		return nil, false, err
	}
	value, err := requiredJSON("value", in.Value)
	if err != nil {
		return nil, false, err
	}
	sessionID := ""
	if in.Source == loci.SourceDecision {
		sessionID = in.SessionID
	}
	ws := loci.WorkspaceFrom(ctx)
	var pref *loci.Preference
	created := false
	err = a.update(func(tx loci.Tx) error {
		created = false // the retry policy may run this twice
		if err := tx.Lock(ctx, lockName(ws, "preference", in.UserID, sessionID, in.Type)); err != nil {
			return err
		}
		now := s.now()
		old, err := s.findPref(ctx, tx, in.UserID, in.Type, sessionID)
		if err != nil && loci.ErrorCode(err) != loci.ENOTFOUND {
			return err
		}
		var rec *loci.Record
		var d prefData
		var conf int
		if old == nil {
			created = true
			rec, d, conf = newPref(ws, in, sessionID, value, now)
		} else {
			rec = old
			if d, conf, err = observeAgain(ctx, rec, in, value, now); err != nil {
				return err
			}
		}
		if in.Context != "" {
			d.Context = in.Context
		}
		d.LearnedFrom = learnedFrom[d.Source]
		d.Peak, d.LastUsedAt = max(d.Peak, conf), now
		if err := setPrefRecord(rec, &d, conf); err != nil {
			return err
		}
		rec.UpdatedAt = now
		a.touch(rec.ID)
		if created {
			a.created()
			err = tx.InsertRecord(ctx, rec)
		} else {
			prev := rec.Version
			rec.Version = prev + 1
			err = tx.UpdateRecord(ctx, rec, prev)
		}
		if err != nil {
			return err
		}
		pref, err = prefOf(rec, now)
		return err
	})
	if err != nil {
		return nil, false, fmt.Errorf("observe preference: %w", err)
	}
	return pref, created, nil
}

// newPref is the record, data and confidence of preference in's first
// observation (value, in.Value checked), in session sessionID ("" for
// none), as at now.
func newPref(ws string, in loci.PreferenceInput, sessionID string, value json.RawMessage, now time.Time) (*loci.Record, prefData, int) {
	rec := &loci.Record{
		ID: newID(), Workspace: ws, Kind: loci.KindPreference,
		Scope: loci.Scope{UserID: in.UserID, SessionID: sessionID}, Key: in.Type,
		CreatedAt: now, Version: 1,
	}
	d := prefData{Type: in.Type, Value: value, FirstObserved: now.Format(time.DateOnly), ObservationCount: 1, Source: in.Source}
	conf := 0
	switch in.Source {
	case loci.SourceExplicit:
		conf, d.IsPersistent = loci.PrefExplicitConfidence, true
	case loci.SourceImplicit:
		conf = loci.PrefImplicitStart
	case loci.SourceDecision:
		conf = loci.PrefDecisionConfidence
	}
	return rec, d, conf
}

// observeAgain is the data and confidence of rec, a known preference,
// observed again as in says (value, in.Value checked), as at now; a change
// of what is known needs the editor role.
func observeAgain(ctx context.Context, rec *loci.Record, in loci.PreferenceInput, value json.RawMessage, now time.Time) (prefData, int, error) {
	var d prefData
	if err := decodeData(rec, &d); err != nil {
		return d, 0, err
	}
	eff := effectiveConfidence(int(math.Round(rec.Confidence)), d.LastUsedAt, now)
	same := bytes.Equal(d.Value, value) && !d.FlaggedForRemoval
	// Creating needs the creator role (the route's), and so does
	// observing a known preference again: the same value, from the same
	// source or as behaviour (implicit), only adds an observation and
	// raises its confidence, as a use does. Changing what is known needs
	// editor: another value (or a preference flagged for removal, which
	// waits for a person), or another source (an explicit statement of
	// what was implicit makes it persistent at 100, as confirm does).
	restated := in.Source == loci.SourceImplicit || in.Source == d.Source
	if !same || !restated {
		if err := loci.Authorize(ctx, loci.RoleEditor); err != nil {
			return d, 0, err
		}
	}
	if same {
		d.ObservationCount++
	} else {
		d.Value, d.ObservationCount, d.FirstObserved, d.Peak = value, 1, now.Format(time.DateOnly), 0
		d.FlaggedForRemoval, d.IsPersistent = false, false
	}
	var conf int
	switch {
	case in.Source == loci.SourceExplicit:
		conf, d.IsPersistent, d.Source = loci.PrefExplicitConfidence, true, in.Source
	case in.Source == loci.SourceDecision:
		conf, d.Source = loci.PrefDecisionConfidence, in.Source
	case same: // an implicit repeat
		conf = max(eff, min(eff+loci.PrefImplicitStep, loci.PrefImplicitMax))
	default: // implicit, new value
		conf, d.Source = loci.PrefImplicitStart, in.Source
	}
	return d, conf, nil
}

// lockPref takes the preference's lock for the rest of tx (concurrent
// read-modify-writes of one preference take turns) and reads it.
func (s *Service) lockPref(ctx context.Context, tx loci.Tx, ws, userID, typ, sessionID string) (*loci.Record, error) {
	if err := tx.Lock(ctx, lockName(ws, "preference", userID, sessionID, typ)); err != nil {
		return nil, err
	}
	return s.findPref(ctx, tx, userID, typ, sessionID)
}

// findPref returns the user's preference of type typ in session sessionID
// ("" for the user-level one). ENOTFOUND when absent.
func (s *Service) findPref(ctx context.Context, tx loci.Tx, userID, typ, sessionID string) (*loci.Record, error) {
	recs, err := tx.FindRecords(ctx, loci.RecordFilter{
		Workspace: loci.WorkspaceFrom(ctx), Kinds: []loci.Kind{loci.KindPreference},
		UserID: &userID, SessionID: &sessionID, Key: &typ,
	})
	if err != nil {
		return nil, err
	} else if len(recs) == 0 {
		return nil, errPrefNotFound()
	}
	return recs[0], nil
}

// ListPreferences returns the user's preferences by effective confidence.
func (s *Service) ListPreferences(ctx context.Context, userID, sessionID string) (_ []*loci.Preference, err error) {
	a, err := s.begin(ctx, loci.OpPreferenceList, loci.Scope{UserID: userID, SessionID: sessionID})
	defer a.end(&err)
	if err != nil {
		return nil, err
	}
	if err := loci.RequireText("user_id", userID, loci.MaxUserIDBytes); err != nil {
		return nil, err
	}
	f := loci.RecordFilter{Workspace: loci.WorkspaceFrom(ctx), Kinds: []loci.Kind{loci.KindPreference}, UserID: &userID}
	if sessionID != "" {
		f.SessionID = &sessionID
	}
	var out []*loci.Preference
	err = a.view(func(tx loci.Tx) error {
		prefs, ids, err := s.preferencesOf(ctx, tx, f)
		out = prefs
		a.touch(ids...)
		return err
	})
	return out, err
}

// preferencesOf returns the preferences f selects, by effective confidence,
// then type, then session, and their records' ids in the same order.
func (s *Service) preferencesOf(ctx context.Context, tx loci.Tx, f loci.RecordFilter) ([]*loci.Preference, []string, error) {
	recs, err := tx.FindRecords(ctx, f)
	if err != nil {
		return nil, nil, err
	}
	now := s.now()
	type found struct {
		p  *loci.Preference
		id string
	}
	all := make([]found, 0, len(recs))
	for _, r := range recs {
		p, err := prefOf(r, now)
		if err != nil {
			s.malformed(r, err)
			continue
		}
		all = append(all, found{p, r.ID})
	}
	sort.SliceStable(all, func(i, j int) bool {
		a, b := all[i].p, all[j].p
		if a.Confidence != b.Confidence {
			return a.Confidence > b.Confidence
		} else if a.Type != b.Type {
			return a.Type < b.Type
		}
		return a.SessionID < b.SessionID
	})
	out, ids := make([]*loci.Preference, len(all)), make([]string, len(all))
	for i, f := range all {
		out[i], ids[i] = f.p, f.id
	}
	return out, ids, nil
}

// UsePreference adds 5 to the effective confidence, up to the peak, and
// marks the preference used now.
func (s *Service) UsePreference(ctx context.Context, userID, typ, sessionID string) (*loci.Preference, error) {
	return s.changePref(ctx, loci.OpPreferenceUse, userID, typ, sessionID, nil, func(d *prefData, stored, eff int, now time.Time) int {
		d.LastUsedAt = now
		return min(eff+loci.PrefUseStep, max(d.Peak, eff))
	})
}

// ConfirmPreference sets the confidence to 100 and makes the preference
// persistent.
func (s *Service) ConfirmPreference(ctx context.Context, userID, typ, sessionID string) (*loci.Preference, error) {
	return s.changePref(ctx, loci.OpPreferenceConfirm, userID, typ, sessionID, nil, func(d *prefData, stored, eff int, now time.Time) int {
		d.LastUsedAt, d.IsPersistent, d.FlaggedForRemoval = now, true, false
		d.Peak = loci.PrefExplicitConfidence
		return loci.PrefExplicitConfidence
	})
}

// ContradictPreference applies a contradiction: by behaviour (implicit) it
// takes 30 at once; by the user (explicit) it sets 0 and flags the
// preference for removal.
func (s *Service) ContradictPreference(ctx context.Context, userID, typ, sessionID, source string) (*loci.Preference, error) {
	var invalid error
	change := func(d *prefData, stored, eff int, now time.Time) int {
		return max(stored-loci.PrefContradictImplicit, 0)
	}
	switch source {
	case loci.SourceImplicit:
	case loci.SourceExplicit:
		change = func(d *prefData, stored, eff int, now time.Time) int {
			d.FlaggedForRemoval = true
			return 0
		}
	default:
		invalid = loci.Errorf(loci.EINVALID, "source must be implicit or explicit")
	}
	return s.changePref(ctx, loci.OpPreferenceContradict, userID, typ, sessionID, invalid, change)
}

// changePref is operation op: it applies change, which returns the new
// stored confidence, to a preference. A non-nil invalid is the error of
// an argument the caller checked (refused, and audited, before the
// preference's name is checked).
func (s *Service) changePref(ctx context.Context, op *loci.Operation, userID, typ, sessionID string, invalid error, change func(d *prefData, stored, eff int, now time.Time) int) (_ *loci.Preference, err error) {
	a, err := s.begin(ctx, op, loci.Scope{UserID: userID, SessionID: sessionID})
	defer a.end(&err)
	if err != nil {
		return nil, err
	}
	if invalid != nil {
		return nil, invalid
	} else if err := checkPrefName(userID, typ); err != nil {
		return nil, err
	}
	ws := loci.WorkspaceFrom(ctx)
	var pref *loci.Preference
	err = a.update(func(tx loci.Tx) error {
		rec, err := s.lockPref(ctx, tx, ws, userID, typ, sessionID)
		if err != nil {
			return err
		}
		a.touch(rec.ID)
		var d prefData
		if err := decodeData(rec, &d); err != nil {
			return err
		}
		now := s.now()
		stored := int(math.Round(rec.Confidence))
		conf := change(&d, stored, effectiveConfidence(stored, d.LastUsedAt, now), now)
		if err := setPrefRecord(rec, &d, conf); err != nil {
			return err
		}
		prev := rec.Version
		rec.UpdatedAt, rec.Version = now, prev+1
		if err := tx.UpdateRecord(ctx, rec, prev); err != nil {
			return err
		}
		pref, err = prefOf(rec, now)
		return err
	})
	return pref, err
}

// ClearPreferences deletes every preference of the user.
func (s *Service) ClearPreferences(ctx context.Context, userID string) (n int, err error) {
	a, err := s.begin(ctx, loci.OpPreferenceClear, loci.Scope{UserID: userID})
	defer a.end(&err)
	if err != nil {
		return 0, err
	}
	if err := loci.RequireText("user_id", userID, loci.MaxUserIDBytes); err != nil {
		return 0, err
	}
	err = a.update(func(tx loci.Tx) (err error) {
		n, err = deleteTouched(ctx, tx, a, loci.RecordFilter{
			Workspace: loci.WorkspaceFrom(ctx), Kinds: []loci.Kind{loci.KindPreference}, UserID: &userID,
		})
		return err
	})
	return n, err
}

// deleteTouched deletes the records f selects, noting their ids, and
// returns how many it deleted (the count noted).
func deleteTouched(ctx context.Context, tx loci.Tx, a *audited, f loci.RecordFilter) (int, error) {
	err := tx.ScanRecords(ctx, f, func(r *loci.Record) error {
		a.touch(r.ID)
		return nil
	})
	if err != nil {
		return 0, err
	}
	n, err := tx.DeleteRecords(ctx, f)
	a.count(n)
	return n, err
}

// DeletePreference deletes the user's preferences of one type.
func (s *Service) DeletePreference(ctx context.Context, userID, typ string) (n int, err error) {
	a, err := s.begin(ctx, loci.OpPreferenceForget, loci.Scope{UserID: userID})
	defer a.end(&err)
	if err != nil {
		return 0, err
	}
	if err := checkPrefName(userID, typ); err != nil {
		return 0, err
	}
	err = a.update(func(tx loci.Tx) (err error) {
		n, err = deleteTouched(ctx, tx, a, loci.RecordFilter{
			Workspace: loci.WorkspaceFrom(ctx), Kinds: []loci.Kind{loci.KindPreference}, UserID: &userID, Key: &typ,
		})
		if err == nil && n == 0 {
			return errPrefNotFound()
		}
		return err
	})
	return n, err
}

// ResolvePreference settles a preference flagged for removal: keep clears
// the flag (the confidence stays as the contradiction left it), otherwise
// the preference is forgotten.
func (s *Service) ResolvePreference(ctx context.Context, userID, typ, sessionID string, keep bool) (_ *loci.Preference, err error) {
	a, err := s.begin(ctx, loci.OpPreferenceResolve, loci.Scope{UserID: userID, SessionID: sessionID})
	defer a.end(&err)
	if err != nil {
		return nil, err
	}
	if err := checkPrefName(userID, typ); err != nil {
		return nil, err
	}
	ws := loci.WorkspaceFrom(ctx)
	var pref *loci.Preference
	err = a.update(func(tx loci.Tx) error {
		rec, err := s.lockPref(ctx, tx, ws, userID, typ, sessionID)
		if err != nil {
			return err
		}
		var d prefData
		if err := decodeData(rec, &d); err != nil {
			return err
		}
		if !d.FlaggedForRemoval {
			return loci.Errorf(loci.ECONFLICT, "the preference is not flagged for removal")
		}
		a.touch(rec.ID)
		now := s.now()
		if !keep {
			if pref, err = prefOf(rec, now); err != nil {
				return err
			}
			_, err = tx.DeleteRecords(ctx, loci.RecordFilter{Workspace: ws, Kinds: []loci.Kind{loci.KindPreference}, IDs: []string{rec.ID}})
			return err
		}
		d.FlaggedForRemoval = false
		if err := setPrefRecord(rec, &d, int(math.Round(rec.Confidence))); err != nil {
			return err
		}
		prev := rec.Version
		rec.UpdatedAt, rec.Version = now, prev+1
		if err := tx.UpdateRecord(ctx, rec, prev); err != nil {
			return err
		}
		pref, err = prefOf(rec, now)
		return err
	})
	return pref, err
}

func prefOf(r *loci.Record, now time.Time) (*loci.Preference, error) {
	var d prefData
	if err := decodeData(r, &d); err != nil {
		return nil, err
	}
	stored := int(math.Round(r.Confidence))
	eff := effectiveConfidence(stored, d.LastUsedAt, now)
	return &loci.Preference{
		UserID: r.UserID, SessionID: r.SessionID, Type: d.Type, Value: d.Value, Context: d.Context,
		LearnedFrom: d.LearnedFrom, FirstObserved: d.FirstObserved, ObservationCount: d.ObservationCount,
		Source: d.Source, Confidence: eff, StoredConfidence: stored, Peak: d.Peak, Tier: loci.Tier(eff),
		IsPersistent: d.IsPersistent, FlaggedForRemoval: d.FlaggedForRemoval, LastUsedAt: d.LastUsedAt,
		CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt, Metadata: ownMetadata(r),
	}, nil
}
