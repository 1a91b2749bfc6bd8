package rules

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/loci-memory/loci"
)

// Maintain runs the requested maintenance tasks in one transaction, in
// loci.MaintenanceTasks order; a dry run rolls it back and reports what it
// would have changed. The audit entry names every record the tasks
// changed (or would have: a dry run is audited as one) and counts the
// records created, updated and deleted.
func (s *Service) Maintain(ctx context.Context, req loci.MaintenanceRequest) (_ *loci.MaintenanceReport, err error) {
	a, err := s.begin(ctx, loci.OpMaintenance, loci.Scope{})
	defer a.end(&err)
	if req.DryRun {
		a.dryRun()
	}
	if err != nil {
		return nil, err
	}
	for _, t := range req.Tasks {
		if !slices.Contains(loci.MaintenanceTasks, t) {
			return nil, loci.Errorf(loci.EINVALID, "task must be one of %s", strings.Join(loci.MaintenanceTasks, ", "))
		}
	}
	tasks := req.Tasks
	if len(tasks) == 0 {
		tasks = loci.MaintenanceTasks
	}
	ws := loci.WorkspaceFrom(ctx)
	var rep *loci.MaintenanceReport
	// A dry run's entry is written when the operation ends, its
	// transaction rolled back.
	err = a.update(func(tx loci.Tx) error {
		if err := tx.Lock(ctx, lockName(ws, "maintenance")); err != nil {
			return err
		}
		rep = &loci.MaintenanceReport{DryRun: req.DryRun, Tasks: map[string]*loci.MaintenanceResult{}}
		now := s.now()
		changed := 0
		for _, t := range loci.MaintenanceTasks {
			if !slices.Contains(tasks, t) {
				continue
			}
			res := &loci.MaintenanceResult{IDs: []string{}}
			var err error
			switch t {
			case loci.MaintainConsolidate:
				err = s.consolidate(ctx, tx, now, res)
			case loci.MaintainDecay:
				err = s.decayFacts(ctx, tx, now, res)
			case loci.MaintainPrune:
				err = s.pruneFacts(ctx, tx, now, res)
			case loci.MaintainExpire:
				err = s.expire(ctx, tx, now, res)
			}
			if err != nil {
				return fmt.Errorf("%s: %w", t, err)
			}
			rep.Tasks[t] = res
			a.touch(res.IDs...)
			changed += res.Created + res.Updated + res.Deleted
		}
		a.count(changed)
		if req.DryRun {
			return errRollback
		}
		return nil
	})
	if errors.Is(err, errRollback) {
		err = nil
	}
	if err != nil {
		return nil, fmt.Errorf("maintain: %w", err)
	}
	return rep, nil
}

// patternKey is the key of the pattern_learned fact of an agent's action
// type; with the user it names the slot consolidation keeps one current
// fact in. A ':' or '%' of either is escaped (%3A, %25), so that agent a
// with action b:c and agent a:b with action c keep slots of their own (a
// key without either is as it always was).
func patternKey(agentID, actionType string) string {
	return "pattern:" + patternKeyPart.Replace(agentID) + ":" + patternKeyPart.Replace(actionType)
}

var patternKeyPart = strings.NewReplacer("%", "%25", ":", "%3A")

// consolidate turns, for each user+agent, the action types with at least
// PatternMinEpisodes successful episodes of confidence above
// PatternMinConfidence among the PatternWindow most recent such episodes
// into one current pattern_learned fact: created once, and superseded by a
// new version when its evidence changes, so the evidence history is kept.
func (s *Service) consolidate(ctx context.Context, tx loci.Tx, now time.Time, res *loci.MaintenanceResult) error {
	ws := loci.WorkspaceFrom(ctx)
	success, minConf := loci.OutcomeSuccess, loci.PatternMinConfidence
	recs, err := tx.FindRecords(ctx, loci.RecordFilter{
		Workspace: ws, Kinds: []loci.Kind{loci.KindEpisode}, Outcome: &success,
		MinConfidence: &minConf, LiveAt: now, Order: loci.OrderCreatedDesc,
	})
	if err != nil {
		return err
	}
	type pair struct{ user, agent string }
	window := map[pair]int{}
	groups := map[pair]map[string][]*loci.Record{}
	var order []pair
	for _, r := range recs {
		if r.Confidence <= loci.PatternMinConfidence {
			continue
		}
		p := pair{r.UserID, r.AgentID}
		if window[p] == loci.PatternWindow {
			continue
		}
		window[p]++
		if groups[p] == nil {
			groups[p] = map[string][]*loci.Record{}
			order = append(order, p)
		}
		groups[p][r.ActionType] = append(groups[p][r.ActionType], r)
	}
	for _, p := range order {
		types := make([]string, 0, len(groups[p]))
		for t := range groups[p] {
			types = append(types, t)
		}
		slices.Sort(types)
		for _, actionType := range types {
			eps := groups[p][actionType]
			if len(eps) < loci.PatternMinEpisodes {
				continue
			}
			if err := s.upsertPattern(ctx, tx, now, p.user, p.agent, actionType, eps, res); err != nil {
				return err
			}
		}
	}
	return nil
}

// upsertPattern creates the pattern_learned fact of one user+agent+action
// type from its source episodes, or, when the current one's evidence or
// text differs, a new version that supersedes it (the old one keeps its
// evidence as history).
func (s *Service) upsertPattern(ctx context.Context, tx loci.Tx, now time.Time, userID, agentID, actionType string, eps []*loci.Record, res *loci.MaintenanceResult) error {
	ws := loci.WorkspaceFrom(ctx)
	ids := make([]string, len(eps))
	for i, e := range eps {
		ids[i] = e.ID
	}
	text := fmt.Sprintf("Successful pattern for %s: High confidence achieved in %d instances", actionType, len(eps))
	keywords := []string{actionType, "learned_pattern"}
	if agentID != "" {
		keywords = append(keywords, agentID)
	}
	key := patternKey(agentID, actionType)
	if err := tx.Lock(ctx, factSlotLock(ws, userID, key)); err != nil {
		return err
	}
	cur, err := tx.FindRecords(ctx, loci.RecordFilter{
		Workspace: ws, Kinds: []loci.Kind{loci.KindFact}, UserID: &userID, Key: &key, AsOf: now,
	})
	if err != nil {
		return err
	}
	evidence := map[string]any{}
	if len(cur) > 0 {
		var d factData
		if err := decodeData(cur[0], &d); err != nil {
			return err
		}
		if len(d.Evidence) > 0 {
			if err := json.Unmarshal(d.Evidence, &evidence); err != nil {
				return fmt.Errorf("decode evidence of %s: %w", cur[0].ID, err)
			}
		}
		var prevIDs []string
		if raw, err := json.Marshal(evidence["source_episodes"]); err == nil {
			json.Unmarshal(raw, &prevIDs)
		}
		if slices.Equal(prevIDs, ids) && cur[0].Content == text {
			return nil // nothing new
		}
	}
	evidence["source_episodes"] = ids
	raw, err := json.Marshal(evidence)
	if err != nil {
		return fmt.Errorf("encode evidence: %w", err)
	}
	rec := &loci.Record{
		ID: newID(), Workspace: ws, Kind: loci.KindFact, Scope: loci.Scope{UserID: userID, AgentID: agentID}, Key: key,
		Content: text, SearchText: factSearchText(text, keywords), Tags: keywords,
		Category: loci.CategoryPatternLearned, Confidence: loci.FactInitialRelevance,
		CreatedAt: now, UpdatedAt: now, Version: 1, ValidAt: now,
	}
	changed, err := s.insertFact(ctx, tx, rec, factData{Evidence: raw}, now)
	if err != nil {
		return err
	}
	res.Created++
	res.IDs = append(res.IDs, rec.ID)
	if changed.superseded != nil {
		res.Updated++
		res.IDs = append(res.IDs, changed.superseded.ID)
	}
	return nil
}

// decayFacts multiplies by 0.9 (floor 0.1) the relevance of current facts
// above the floor that nobody accessed for 30 days, at most once per
// 30-day period of disuse: a fact decays again only 30 days after its last
// decay. History (superseded and invalidated facts) does not decay.
func (s *Service) decayFacts(ctx context.Context, tx loci.Tx, now time.Time, res *loci.MaintenanceResult) error {
	floor := loci.FactDecayFloor
	recs, err := tx.FindRecords(ctx, loci.RecordFilter{
		Workspace: loci.WorkspaceFrom(ctx), Kinds: []loci.Kind{loci.KindFact}, MinConfidence: &floor, AsOf: now,
		Order: loci.OrderCreatedAsc,
	})
	if err != nil {
		return err
	}
	for _, r := range recs {
		if r.Confidence <= loci.FactDecayFloor {
			continue
		}
		var d factData
		if err := decodeData(r, &d); err != nil {
			s.malformed(r, err)
			continue
		}
		since := r.CreatedAt
		if r.LastAccessedAt.After(since) {
			since = r.LastAccessedAt
		}
		if d.LastDecayAt.After(since) {
			since = d.LastDecayAt
		}
		if now.Sub(since) < loci.FactDecayAfter {
			continue
		}
		err := updateFact(ctx, tx, r, now, func(r *loci.Record, d *factData, now time.Time) {
			r.Confidence = max(round6(r.Confidence*loci.FactDecayFactor), loci.FactDecayFloor)
			d.LastDecayAt = now
		})
		if err != nil {
			return err
		}
		res.Updated++
		res.IDs = append(res.IDs, r.ID)
	}
	return nil
}

// pruneFacts deletes the current facts below relevance 0.1 that are not
// validated. History is kept, and so is a fact linked to another version
// of its key (the successor of a superseded fact, or a fact a later
// version will supersede): pruning it would leave the timeline naming a
// fact that is gone.
func (s *Service) pruneFacts(ctx context.Context, tx loci.Tx, now time.Time, res *loci.MaintenanceResult) error {
	ws := loci.WorkspaceFrom(ctx)
	below := loci.FactPruneBelow
	recs, err := tx.FindRecords(ctx, loci.RecordFilter{
		Workspace: ws, Kinds: []loci.Kind{loci.KindFact}, MaxConfidence: &below, AsOf: now, Order: loci.OrderCreatedAsc,
	})
	if err != nil {
		return err
	}
	var ids []string
	for _, r := range recs {
		var d factData
		if err := decodeData(r, &d); err != nil {
			s.malformed(r, err)
			continue
		}
		if !d.IsValidated && d.Supersedes == "" && d.SupersededBy == "" {
			ids = append(ids, r.ID)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	n, err := tx.DeleteRecords(ctx, loci.RecordFilter{Workspace: ws, Kinds: []loci.Kind{loci.KindFact}, IDs: ids})
	res.Deleted += n
	res.IDs = append(res.IDs, ids...)
	return err
}

// expire deletes the working entries, episodes and non-persistent sessions
// whose time has come, and the notes, passages and facts whose time to live
// (set by their writer) has passed; an expired fact of a key leaves its
// neighbours in the key's timeline as a deletion does. Which kinds are
// deleted as they are is each kind's word (kindRules.expiresByDelete).
func (s *Service) expire(ctx context.Context, tx loci.Tx, now time.Time, res *loci.MaintenanceResult) error {
	facts, err := tx.FindRecords(ctx, loci.RecordFilter{
		Workspace: loci.WorkspaceFrom(ctx), Kinds: []loci.Kind{loci.KindFact}, ExpiredAt: now, Order: loci.OrderCreatedAsc,
	})
	if err != nil {
		return err
	}
	for _, r := range facts {
		if err := deleteFactTx(ctx, tx, nil, r, now); err != nil {
			return err
		}
		res.IDs = append(res.IDs, r.ID)
		res.Deleted++
	}
	f := loci.RecordFilter{
		Workspace: loci.WorkspaceFrom(ctx), Kinds: expiredByDeleteKinds(),
		ExpiredAt: now, Order: loci.OrderCreatedAsc,
	}
	recs, err := tx.FindRecords(ctx, f)
	if err != nil {
		return err
	}
	if len(recs) > 0 {
		for _, r := range recs {
			res.IDs = append(res.IDs, r.ID)
		}
		n, err := tx.DeleteRecords(ctx, f)
		res.Deleted += n
		if err != nil {
			return err
		}
	}
	return s.expireSessions(ctx, tx, now, res)
}

// expireSessions deletes the sessions that are not persistent and whose
// expires_at has passed, with their messages. Persistent sessions are never
// deleted automatically (docs/rules.md, "Automatic deletion only where a
// kind's lifecycle says so"), whatever their expires_at says.
func (s *Service) expireSessions(ctx context.Context, tx loci.Tx, now time.Time, res *loci.MaintenanceResult) error {
	ws := loci.WorkspaceFrom(ctx)
	recs, err := tx.FindRecords(ctx, loci.RecordFilter{
		Workspace: ws, Kinds: []loci.Kind{loci.KindSession}, Category: loci.Ptr(sessionCategory),
		ExpiredAt: now, Order: loci.OrderCreatedAsc,
	})
	if err != nil {
		return err
	}
	for _, r := range recs {
		var d sessionData
		if err := json.Unmarshal(r.Data, &d); err != nil {
			s.malformed(r, err)
			continue
		}
		if d.IsPersistent {
			continue
		}
		// The session and its messages: its user's (a session id of
		// another user's, which only an import could bring, stays).
		n, err := tx.DeleteRecords(ctx, loci.RecordFilter{
			Workspace: ws, Kinds: []loci.Kind{loci.KindSession}, SessionID: loci.Ptr(r.SessionID), UserID: loci.Ptr(r.UserID),
		})
		if err != nil {
			return err
		}
		res.Deleted += n
		res.IDs = append(res.IDs, r.ID)
	}
	return nil
}

// errRollback makes a dry run roll back its transaction.
var errRollback = errors.New("dry run: roll back")
