package rules

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/loci-memory/loci"
)

// factData is a fact's kind-specific data. Relevance is the record's
// confidence, keywords its tags, the agent its agent_id.
type factData struct {
	Evidence           json.RawMessage `json:"evidence,omitempty"`
	IsValidated        bool            `json:"is_validated"`
	ValidatedAt        time.Time       `json:"validated_at,omitzero"`
	ContradictionCount int             `json:"contradiction_count"`
	// LastDecayAt is when decay last applied, so that one period of disuse
	// decays once however often maintenance runs.
	LastDecayAt time.Time `json:"last_decay_at,omitzero"`
	// SupersededBy and Supersedes link the versions of a keyed fact: the
	// fact that replaced this one, and the one it replaced.
	SupersededBy string `json:"superseded_by,omitempty"`
	Supersedes   string `json:"supersedes,omitempty"`
	// Role is the role of the conversation's message the fact was
	// stored from ("user"), when it was.
	Role string `json:"role,omitempty"`
}

func errFactNotFound() error { return loci.Errorf(loci.ENOTFOUND, "fact not found") }

func checkCategory(category string, required bool) error {
	if category == "" && !required {
		return nil
	}
	if !loci.ValidCategory(category) {
		return loci.Errorf(loci.EINVALID, "category must be a name of a-z, 0-9 and _ starting with a letter, at most 64 bytes (for example %s)", strings.Join(loci.FactCategories, ", "))
	}
	return nil
}

// cleanKeywords trims keywords and drops empty and repeated ones (the
// input's Validate has checked them).
func cleanKeywords(in []string) []string {
	out := []string{}
	for _, k := range in {
		k = strings.TrimSpace(k)
		if k == "" || slices.Contains(out, k) {
			continue
		}
		out = append(out, k)
	}
	return out
}

func factSearchText(fact string, keywords []string) string {
	return searchText(fact + " " + strings.Join(keywords, " "))
}

// StoreFact stores a fact of a user (or global) with relevance 1.0. A
// keyed fact takes its place in the key's slot (placeFact).
func (s *Service) StoreFact(ctx context.Context, in loci.FactInput) (_ *loci.Fact, err error) {
	a, err := s.begin(ctx, loci.OpFactAdd, loci.Scope{UserID: in.UserID, AgentID: in.AgentID})
	defer a.end(&err)
	if err != nil {
		return nil, err
	}
	if err := in.Validate(); err != nil {
		return nil, err
	}
	keywords := cleanKeywords(in.Keywords)
	evidence, err := optionalObject("evidence", in.Evidence)
	if err != nil {
		return nil, err
	}
	validAt := in.ValidAt.UTC().Truncate(time.Microsecond)
	ws := loci.WorkspaceFrom(ctx)
	var fact *loci.Fact
	err = a.update(func(tx loci.Tx) error {
		w := &memWrite{s: s, tx: tx, a: a, ws: ws, now: s.now()}
		if in.Key != "" {
			// The slot's versions are placed by valid_at, which defaults
			// to now: now is read under the slot's lock.
			if err := w.lock(ctx, factSlotLock(ws, in.UserID, in.Key)); err != nil {
				return err
			}
		}
		// The same content again (case and spacing aside), current in the same
		// scope and key, is the fact already stored: nothing is written
		// (docs/rules.md, "A repeat changes nothing (NOOP)"). A fact placed in
		// the past (valid_at) is history being filled in, never a repeat. One
		// that brings keywords the fact lacks adds them, keeping the fact's
		// value as a version.
		if in.ValidAt.IsZero() {
			old, err := w.sameFact(ctx, in)
			if err != nil {
				return err
			} else if old != nil {
				ev, err := w.repeatOf(ctx, old, repeat{tags: keywords, maxTags: loci.MaxFactKeywords, search: factSearchText})
				if err != nil {
					return err
				}
				if ev.Event == loci.EventUpdate {
					if old, err = tx.GetRecord(ctx, ws, ev.ID); err != nil {
						return err
					}
				}
				fact, err = factOf(old, w.now)
				return err
			}
		}
		now := w.now
		rec := &loci.Record{
			ID: newID(), Workspace: ws, Kind: loci.KindFact, Scope: loci.Scope{UserID: in.UserID, AgentID: in.AgentID}, Key: in.Key,
			Content: in.Fact, SearchText: factSearchText(in.Fact, keywords), Tags: keywords,
			Category: in.Category, Confidence: loci.FactInitialRelevance, CreatedAt: now, UpdatedAt: now, Version: 1,
			ValidAt: validAt,
		}
		if rec.ValidAt.IsZero() {
			rec.ValidAt = now
		}
		a.touch(rec.ID)
		a.created()
		changed, err := s.insertFact(ctx, tx, rec, factData{Evidence: evidence}, now)
		if err != nil {
			return err
		}
		a.touch(changed.ids()...)
		if fact, err = factOf(rec, now); err != nil {
			return err
		}
		// Another agent's version of the slot is not named to a key
		// bound to an agent.
		if changed.superseded != nil {
			fact.Supersedes = toldID(ctx, changed.superseded)
		}
		if changed.next != nil {
			fact.SupersededBy = toldID(ctx, changed.next)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store fact: %w", err)
	}
	return fact, nil
}

// sameFact returns the fact current now in in's scope and key (a key's
// slot is per user, whichever agent) whose content is in.Fact, case and
// spacing aside, or nil. The caller holds the slot's lock of a keyed fact.
func (w *memWrite) sameFact(ctx context.Context, in loci.FactInput) (*loci.Record, error) {
	f := loci.RecordFilter{Workspace: w.ws, Kinds: []loci.Kind{loci.KindFact}, UserID: &in.UserID, AsOf: w.now}
	if in.Key != "" {
		f.Key = &in.Key
	} else {
		f.AgentID = &in.AgentID
	}
	same, err := w.sameContent(ctx, f, in.Key, in.Fact)
	if err != nil || same == nil {
		return nil, err
	}
	w.a.touch(same.ID)
	return same, nil
}

// factFilter selects the facts q's user may see: the user's own (and
// global ones when IncludeGlobal), or only global ones without a user;
// those true at q.AsOf (now when zero) unless q.IncludeHistory; only the
// disputed ones when q.Status asks. Whatever agent wrote them: the callers
// keep to what the reader's agent reaches (inReach).
func (s *Service) factFilter(ctx context.Context, q loci.FactQuery) (loci.RecordFilter, error) {
	if err := checkCategory(q.Category, false); err != nil {
		return loci.RecordFilter{}, err
	}
	f := loci.RecordFilter{Workspace: loci.WorkspaceFrom(ctx), Kinds: []loci.Kind{loci.KindFact}, UserID: &q.UserID, LiveAt: s.now()}
	if !q.IncludeHistory {
		f.AsOf = s.asOf(q.AsOf)
	}
	switch q.Status {
	case "":
	case loci.FactDisputed:
		f.Review = []string{loci.ReviewDisputed}
	default:
		return loci.RecordFilter{}, loci.Errorf(loci.EINVALID, "status must be %s", loci.FactDisputed)
	}
	if q.UserID != "" {
		if err := loci.RequireText("user_id", q.UserID, loci.MaxUserIDBytes); err != nil {
			return loci.RecordFilter{}, err
		}
		f.OrGlobalUser = q.IncludeGlobal
	}
	if q.Category != "" {
		f.Category = &q.Category
	}
	return f, nil
}

// SearchFacts ranks facts against q.Query by hybrid retrieval (their
// relevance is the confidence that weighs in) and bumps the access of what
// it returns. The query is embedded before the transaction.
func (s *Service) SearchFacts(ctx context.Context, q loci.FactQuery) (_ *loci.FactResults, err error) {
	a, err := s.begin(ctx, loci.OpFactSearch, loci.Scope{UserID: q.UserID, AgentID: q.AgentID})
	defer a.end(&err)
	if err != nil {
		return nil, err
	}
	f, err := s.factFilter(ctx, q)
	if err != nil {
		return nil, err
	}
	limit, err := checkSearch(q.Query, q.Limit)
	if err != nil {
		return nil, err
	}
	qvec := s.embedQuery(ctx, q.Query)
	var out *loci.FactResults
	// A write: the search bumps the access of what it returns.
	err = a.update(func(tx loci.Tx) error {
		ranked, err := s.rank(ctx, tx, Query{Text: q.Query, Filters: inReach(f, readerAgent(ctx, q.AgentID)), Limit: limit, Explain: q.Explain}, qvec)
		if err != nil {
			return err
		}
		hits := ranked.Hits
		if q.IncludeHistory {
			hits = currentFirst(hits, s.asOf(q.AsOf))
		}
		recs := make([]*loci.Record, len(hits))
		for i, h := range hits {
			recs[i] = h.Record
			a.touch(h.Record.ID)
		}
		if err := s.touchFacts(ctx, tx, recs); err != nil {
			return err
		}
		// Built afresh on each run: the retry policy may run this twice.
		out = &loci.FactResults{Results: []loci.ScoredFact{}, PendingEmbeddings: ranked.PendingEmbeddings, Retrieval: ranked.Retrieval}
		at := s.asOf(q.AsOf) // each fact's status as of the time asked
		for _, h := range hits {
			fact, err := factOf(h.Record, at)
			if err != nil {
				s.malformed(h.Record, err)
				continue
			}
			out.Results = append(out.Results, loci.ScoredFact{Fact: fact, Metadata: metadataOf(h.Record), Score: h.Score, Match: h.Match, Explain: h.Explain})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// touchFacts bumps the access count and time of facts being returned, in
// the store and in recs.
func (s *Service) touchFacts(ctx context.Context, tx loci.Tx, recs []*loci.Record) error {
	if len(recs) == 0 {
		return nil
	}
	now := s.now()
	ids := make([]string, len(recs))
	for i, r := range recs {
		ids[i] = r.ID
		r.AccessCount++
		r.LastAccessedAt = now
	}
	return tx.TouchRecords(ctx, recs[0].Workspace, ids, now)
}

// FactsByKeyword returns the facts carrying q.Keyword, by relevance, and
// bumps the access of what it returns.
func (s *Service) FactsByKeyword(ctx context.Context, q loci.FactQuery) (_ []*loci.Fact, _ int, err error) {
	a, err := s.begin(ctx, loci.OpFactList, loci.Scope{UserID: q.UserID, AgentID: q.AgentID})
	defer a.end(&err)
	if err != nil {
		return nil, 0, err
	}
	f, err := s.factFilter(ctx, q)
	if err != nil {
		return nil, 0, err
	}
	if f.Limit, f.Offset, err = checkPage(q.Limit, q.Offset, loci.DefaultListLimit); err != nil {
		return nil, 0, err
	}
	if k := strings.TrimSpace(q.Keyword); k != "" {
		f.Tags = []string{k}
	}
	f.Order = loci.OrderConfidenceDesc
	parts := inReach(f, readerAgent(ctx, q.AgentID))
	out := []*loci.Fact{}
	var total int
	// A write: the listing bumps the access of what it returns.
	err = a.update(func(tx loci.Tx) (err error) {
		out = out[:0] // the retry policy may run this twice
		recs, n, err := findParts(ctx, tx, parts)
		if err != nil {
			return err
		}
		total = n
		a.touchRecords(recs)
		a.count(total)
		if err := s.touchFacts(ctx, tx, recs); err != nil {
			return err
		}
		at := s.asOf(q.AsOf) // each fact's status as of the time asked
		for _, r := range recs {
			fact, err := factOf(r, at)
			if err != nil {
				s.malformed(r, err)
				continue
			}
			out = append(out, fact)
		}
		return nil
	})
	return out, total, err
}

// ValidateFact adds 0.1 to a fact's relevance, at most 1.0, and marks it
// validated.
func (s *Service) ValidateFact(ctx context.Context, id string) (_ *loci.Fact, err error) {
	a, err := s.begin(ctx, loci.OpFactValidate, loci.Scope{})
	defer a.end(&err)
	if err != nil {
		return nil, err
	}
	return s.changeFact(ctx, a, id, func(rec *loci.Record, d *factData, now time.Time) {
		rec.Confidence = min(round6(rec.Confidence+loci.FactValidateStep), loci.FactMaxRelevance)
		d.IsValidated, d.ValidatedAt = true, now
	})
}

// ContradictFact takes 0.2 from a fact's relevance, at least 0.0, counts
// the contradiction and marks the fact disputed.
func (s *Service) ContradictFact(ctx context.Context, id string) (_ *loci.Fact, err error) {
	a, err := s.begin(ctx, loci.OpFactContradict, loci.Scope{})
	defer a.end(&err)
	if err != nil {
		return nil, err
	}
	return s.changeFact(ctx, a, id, func(rec *loci.Record, d *factData, now time.Time) {
		rec.Confidence = max(round6(rec.Confidence-loci.FactContradictStep), 0)
		d.ContradictionCount++
		rec.Review = loci.ReviewDisputed
	})
}

// changeFact applies change to a fact that has not ended and stores it:
// history does not change. a is the operation's audit entry.
func (s *Service) changeFact(ctx context.Context, a *audited, id string, change func(*loci.Record, *factData, time.Time)) (*loci.Fact, error) {
	var fact *loci.Fact
	err := s.updateFactTx(ctx, a, id, func(tx loci.Tx, rec *loci.Record, now time.Time) error {
		if ended(rec, now) {
			return loci.Errorf(loci.ECONFLICT, "the fact is no longer true (since %s): history does not change", rec.InvalidAt.Format(time.RFC3339Nano))
		}
		if err := updateFact(ctx, tx, rec, now, change); err != nil {
			return err
		}
		var err error
		fact, err = factOf(rec, now)
		return err
	})
	return fact, err
}

// updateFact applies change to rec's fields and data and writes it.
func updateFact(ctx context.Context, tx loci.Tx, rec *loci.Record, now time.Time, change func(*loci.Record, *factData, time.Time)) error {
	var d factData
	if err := decodeData(rec, &d); err != nil {
		return err
	}
	change(rec, &d, now)
	data, err := json.Marshal(d)
	if err != nil {
		return fmt.Errorf("encode fact: %w", err)
	}
	prev := rec.Version
	rec.Data, rec.UpdatedAt, rec.Version = data, now, prev+1
	return tx.UpdateRecord(ctx, rec, prev)
}

// factOf returns the fact a record holds, with its status at now.
func factOf(r *loci.Record, now time.Time) (*loci.Fact, error) {
	var d factData
	if err := decodeData(r, &d); err != nil {
		return nil, err
	}
	keywords := r.Tags
	if keywords == nil {
		keywords = []string{}
	}
	return &loci.Fact{
		ID: r.ID, UserID: r.UserID, AgentID: r.AgentID, Category: r.Category, Fact: r.Content,
		Keywords: keywords, Evidence: d.Evidence, RelevanceScore: r.Confidence,
		AccessCount: r.AccessCount, LastAccessedAt: r.LastAccessedAt,
		IsValidated: d.IsValidated, ValidatedAt: d.ValidatedAt, ContradictionCount: d.ContradictionCount,
		CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt,
		Key: r.Key, ValidAt: validFrom(r), InvalidAt: r.InvalidAt, SupersededBy: d.SupersededBy, Supersedes: d.Supersedes,
		Status: factStatus(r, &d, now), Metadata: ownMetadata(r),
	}, nil
}

// factStatus says what a fact is at now (the time a listing asks about:
// as_of, or now).
func factStatus(r *loci.Record, d *factData, now time.Time) string {
	switch {
	case ended(r, now) && d.SupersededBy != "":
		return loci.FactSuperseded
	case ended(r, now):
		return loci.FactInvalidated
	case r.ValidAt.After(now):
		return loci.FactFuture
	case r.Review == loci.ReviewDisputed:
		return loci.FactDisputed
	}
	return loci.FactCurrent
}

// round6 rounds a score to 6 decimals, so repeated steps of 0.1 and 0.2
// land on their decimal values (1.0 - 5*0.2 is 0, not 5.55e-17).
func round6(x float64) float64 { return math.Round(x*1e6) / 1e6 }
