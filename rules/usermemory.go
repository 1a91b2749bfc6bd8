package rules

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/loci-memory/loci"
)

// Sessions are stored by the session rules as one record of kind session
// and category "session" per session (key = session_id, confidence 0..100,
// expires_at zero for none) and one record of category "message" per
// message. A session start reads the session records directly.

// contextSessionData is the part of a session record's data a session
// start reads.
type contextSessionData struct {
	Context      json.RawMessage `json:"context,omitempty"`
	Summary      string          `json:"summary,omitempty"`
	IsPersistent bool            `json:"is_persistent"`
	MessageCount int             `json:"message_count"`
}

// UserContext starts a session: it creates the user with empty defaults if
// new, and returns the preferences to apply and the last 5 sessions that are
// persistent or unexpired, by confidence descending.
//
// It writes (the user, when new) and is audited with the write, noting the
// ids of the preferences and sessions it returns.
func (s *Service) UserContext(ctx context.Context, userID string) (_ *loci.UserContext, err error) {
	a, err := s.begin(ctx, loci.OpUserContext, loci.Scope{UserID: userID})
	defer a.end(&err)
	if err != nil {
		return nil, err
	}
	if err := loci.RequireText("user_id", userID, loci.MaxUserIDBytes); err != nil {
		return nil, err
	}
	ws := loci.WorkspaceFrom(ctx)
	out := &loci.UserContext{Preferences: []*loci.Preference{}, Sessions: []*loci.ContextSession{}}
	err = a.update(func(tx loci.Tx) error {
		out.Preferences, out.Sessions = out.Preferences[:0], out.Sessions[:0] // the retry policy may run this twice
		now := s.now()
		var err error
		if out.User, out.Created, err = tx.EnsureUser(ctx, ws, userID, now); err != nil {
			return err
		}
		prefs, ids, err := s.preferencesOf(ctx, tx, loci.RecordFilter{Workspace: ws, Kinds: []loci.Kind{loci.KindPreference}, UserID: &userID})
		if err != nil {
			return err
		}
		for i, p := range prefs {
			if (p.SessionID == "" || p.IsPersistent) && !p.FlaggedForRemoval {
				out.Preferences = append(out.Preferences, p)
				a.touch(ids[i])
			}
		}
		cat := sessionCategory
		recs, err := tx.FindRecords(ctx, loci.RecordFilter{
			Workspace: ws, Kinds: []loci.Kind{loci.KindSession}, UserID: &userID, Category: &cat, Keyed: true, Order: loci.OrderUpdatedDesc,
		})
		if err != nil {
			return err
		}
		for _, r := range recs {
			var d contextSessionData
			if err := decodeData(r, &d); err != nil {
				s.malformed(r, err)
				continue
			}
			if !d.IsPersistent && r.Expired(now) {
				continue
			}
			a.touch(r.ID)
			out.Sessions = append(out.Sessions, &loci.ContextSession{
				SessionID: sessionIDOf(r), Summary: d.Summary, Context: d.Context, IsPersistent: d.IsPersistent,
				Confidence: r.Confidence, MessageCount: d.MessageCount, ExpiresAt: r.ExpiresAt, UpdatedAt: r.UpdatedAt,
			})
			if len(out.Sessions) == loci.ContextSessionCount {
				break
			}
		}
		sort.SliceStable(out.Sessions, func(i, j int) bool { return out.Sessions[i].Confidence > out.Sessions[j].Confidence })
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("user context: %w", err)
	}
	return out, nil
}

// userFilter selects every record about a user.
func userFilter(ctx context.Context, userID string) loci.RecordFilter {
	return loci.RecordFilter{Workspace: loci.WorkspaceFrom(ctx), UserID: &userID, Order: loci.OrderCreatedAsc}
}

// UserMemories returns every record about the user, of every kind, by kind
// and then age: what is true at q.AsOf (now when zero), or everything,
// superseded facts included, with q.IncludeHistory.
func (s *Service) UserMemories(ctx context.Context, userID string, q loci.UserMemoryQuery) (_ []*loci.UserMemory, err error) {
	a, err := s.begin(ctx, loci.OpUserMemories, loci.Scope{UserID: userID})
	defer a.end(&err)
	if err != nil {
		return nil, err
	}
	if err := loci.RequireText("user_id", userID, loci.MaxUserIDBytes); err != nil {
		return nil, err
	}
	out := []*loci.UserMemory{}
	err = a.view(func(tx loci.Tx) error {
		out = out[:0] // the retry policy may run this twice
		f := userFilter(ctx, userID)
		f.LiveAt, f.Lasting = s.now(), []loci.Kind{loci.KindSession}
		if !q.IncludeHistory {
			f.AsOf = s.asOf(q.AsOf)
		}
		recs, err := tx.FindRecords(ctx, f)
		if err != nil {
			return err
		}
		for _, r := range recs {
			a.touch(r.ID)
			out = append(out, userMemoryOf(r))
		}
		return nil
	})
	sort.SliceStable(out, func(i, j int) bool { return out[i].Kind < out[j].Kind })
	return out, err
}

// ForgetUserMemories deletes the user's records that hold every word of
// req.Query (in any text they hold and answer: recordTexts) or whose ids
// req.IDs names, and returns them; a dry run only
// returns them. Every version of a keyed fact is searched (history
// included), so what the user asked to forget does not survive as
// history; a version that does not match stays, and the versions left
// stop naming the forgotten ones. When the current version goes, the key
// has no current fact: the version before it stays ended (its status
// becomes invalidated), as DeleteFact leaves it. So is every past value a
// record keeps (an edited fact's, note's or session's): one that holds
// the words is removed from the record's history, whatever the current
// value says, and answered marked History; the record stays when its
// current value does not hold them.
//
// With req.IncludeAgents (editor; a query), the query also matches the
// agents' own memory, every record of an agent and no user: notes, blocks
// and passages, and what a chat model wrote about an agent
// (agentScopedMatches); they are answered first.
//
// The adds queued in the background that hold what it forgets go with it
// (eventforget.go): with a query and no filters, the user's events (and,
// with IncludeAgents, those of no user) whose messages or results hold
// every word, pending or done, first; then the done events whose results
// name a record it deleted or took a past value of.
//
// It is audited with the ids of the records it forgot (or, dry, would
// forget) and of the sessions whose message count it changed.
func (s *Service) ForgetUserMemories(ctx context.Context, userID string, req loci.ForgetRequest) (_ []*loci.UserMemory, err error) {
	a, err := s.begin(ctx, loci.OpUserForget, loci.Scope{UserID: userID})
	defer a.end(&err)
	if err != nil {
		return nil, err
	}
	if req.DryRun {
		a.dryRun()
	}
	terms, where, err := checkForget(ctx, userID, req)
	if err != nil {
		return nil, err
	}
	out := []*loci.UserMemory{}
	// A dry run changes nothing: it reads, and its entry is queued.
	run := a.update
	if req.DryRun {
		run = a.view
	}
	err = run(func(tx loci.Tx) error {
		out = out[:0] // the retry policy may run this twice
		f := userFilter(ctx, userID)
		if !req.DryRun && len(terms) > 0 && where == nil {
			// The adds queued that hold the words go first: a pending
			// one would write them back (eventforget.go).
			scopes := []loci.EventFilter{{UserID: &userID}}
			if req.IncludeAgents {
				scopes = append(scopes, loci.EventFilter{UserID: loci.Ptr("")})
			}
			if _, err := forgetEvents(ctx, tx, f.Workspace, scopes, eventHoldsTerms(terms)); err != nil {
				return err
			}
		}
		found, versioned, err := forgetMatches(ctx, tx, f, req.IDs, terms, where)
		if err != nil {
			return err
		}
		// Agents' own memory (no user) only when asked, by query only.
		var agents []*loci.Record
		if req.IncludeAgents {
			recs, more, err := agentScopedMatches(ctx, tx, terms)
			if err != nil {
				return err
			}
			for _, r := range recs {
				if where.Match(r) {
					agents = append(agents, r)
				}
			}
			for _, r := range more {
				if where.Match(r) {
					versioned = append(versioned, r)
				}
			}
		}
		if !req.DryRun {
			// What was read is locked and read again: an edit that
			// committed since is seen, one that comes later waits.
			named := func(r *loci.Record) bool { return slices.Contains(req.IDs, r.ID) }
			if found, err = s.recheckForgotten(ctx, tx, f.Workspace, found, versioned, func(r *loci.Record) bool {
				return f.Match(r) && where.Match(r) &&
					(named(r) || len(terms) > 0 && holdsEvery(r, terms) || len(terms) == 0 && len(req.IDs) == 0)
			}); err != nil {
				return err
			}
			if agents, err = s.recheckForgotten(ctx, tx, f.Workspace, agents, nil, func(r *loci.Record) bool {
				return r.UserID == "" && r.AgentID != "" && where.Match(r) && holdsEvery(r, terms)
			}); err != nil {
				return err
			}
		}
		// Each record once, the agents' answered first.
		seen := map[string]bool{}
		var mine []*loci.Record
		for _, r := range agents {
			seen[r.ID] = true
			out = append(out, userMemoryOf(r))
		}
		for _, r := range found {
			if !seen[r.ID] {
				seen[r.ID] = true
				mine = append(mine, r)
				out = append(out, userMemoryOf(r))
			}
		}
		gone := slices.Concat(mine, agents)
		// The past versions that match, of the records that stay: what
		// the user said once is forgotten from history too.
		versioned = slices.DeleteFunc(versioned, func(r *loci.Record) bool { return seen[r.ID] })
		past, err := pastMatches(ctx, tx, versioned, terms)
		if err != nil {
			return err
		}
		for _, p := range past {
			out = append(out, p.memory())
		}
		for _, r := range gone {
			a.touch(r.ID)
		}
		for _, p := range past {
			a.touch(p.rec.ID)
		}
		if req.DryRun {
			return nil
		}
		for _, p := range past {
			if _, err := tx.DeleteVersion(ctx, p.rec.ID, p.v.Version); err != nil {
				return err
			}
		}
		if len(gone) > 0 {
			if err := s.forgetFound(ctx, tx, a, f.Workspace, gone, seen); err != nil {
				return err
			}
		}
		// The done adds that name a record forgotten, or one whose past
		// value was (eventforget.go).
		for _, p := range past {
			gone = append(gone, p.rec)
		}
		return forgetEventsOf(ctx, tx, f.Workspace, gone)
	})
	if err != nil {
		return nil, fmt.Errorf("forget: %w", err)
	}
	return out, nil
}

// recheckForgotten locks the records a forget found (recs), and those
// whose past versions it may take (versioned), against every other
// writer (the slots of keyed facts first, as their writers take them),
// and returns recs as they are now that still match: a record an edit
// changed since the forget read it is read again, and stays if it no
// longer matches (the edit came first); one deleted meanwhile is left
// out. An edit that comes later waits for the forget, and finds the
// record gone. Without it, an acknowledged edit could be deleted by a
// forget of what the record said before it (PostgreSQL, whose
// statements each read what is committed).
func (s *Service) recheckForgotten(ctx context.Context, tx loci.Tx, ws string, recs, versioned []*loci.Record, matches func(*loci.Record) bool) ([]*loci.Record, error) {
	if len(recs)+len(versioned) == 0 {
		return recs, nil
	}
	if _, err := lockFactSlots(ctx, tx, recs); err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(recs)+len(versioned))
	for _, r := range slices.Concat(recs, versioned) {
		ids = append(ids, r.ID)
	}
	if err := tx.LockRecords(ctx, ws, ids); err != nil {
		return nil, err
	}
	if len(recs) == 0 {
		return recs, nil
	}
	now, err := tx.FindRecords(ctx, loci.RecordFilter{Workspace: ws, IDs: ids[:len(recs)], Order: loci.OrderNone})
	if err != nil {
		return nil, err
	}
	byID := make(map[string]*loci.Record, len(now))
	for _, r := range now {
		byID[r.ID] = r
	}
	out := recs[:0:0]
	for _, r := range recs {
		if cur := byID[r.ID]; cur != nil && (cur.Version == r.Version || matches(cur)) {
			out = append(out, cur)
		}
	}
	return out, nil
}

// checkForget checks a forget request of user userID and returns its
// query's terms and its filter (nil: none).
func checkForget(ctx context.Context, userID string, req loci.ForgetRequest) ([]string, *loci.MemoryFilter, error) {
	if err := loci.RequireText("user_id", userID, loci.MaxUserIDBytes); err != nil {
		return nil, nil, err
	}
	terms := tokens(req.Query)
	if strings.TrimSpace(req.Query) != "" && len(terms) == 0 {
		return nil, nil, loci.Errorf(loci.EINVALID, "query must contain at least one word")
	}
	where, err := loci.ParseMemoryFilter(req.Filters)
	if err != nil {
		return nil, nil, err
	}
	if len(terms) == 0 && len(req.IDs) == 0 && where == nil {
		return nil, nil, loci.Errorf(loci.EINVALID, "forget needs a query, ids or filters")
	}
	if req.IncludeAgents {
		if len(terms) == 0 {
			return nil, nil, loci.Errorf(loci.EINVALID, "include_agents extends a query to agents' notes, blocks and passages: it needs a query")
		}
		if err := loci.Authorize(ctx, loci.RoleEditor); err != nil {
			return nil, nil, err
		}
	}
	return terms, where, nil
}

// forgetMatches returns the records of f, the user's scope, that a forget
// names: by id, and those that hold every term of the query (every
// record, for filters alone); where, if given, must match them all. With
// a query, it also returns the records that where matches whose current
// value does not hold the terms but that keep past versions (versioned):
// their versions are matched next (pastMatches).
func forgetMatches(ctx context.Context, tx loci.Tx, f loci.RecordFilter, ids, terms []string, where *loci.MemoryFilter) (found, versioned []*loci.Record, _ error) {
	if len(ids) > 0 {
		byID := f
		byID.IDs = ids
		recs, err := tx.FindRecords(ctx, byID)
		if err != nil {
			return nil, nil, err
		}
		found = append(found, recs...)
	}
	if len(terms) > 0 || (len(ids) == 0 && where != nil) {
		// Every record of the user's scope is read once (streamed,
		// not held): a forget needs every match, not the best few.
		err := tx.ScanRecords(ctx, f, func(r *loci.Record) error {
			if !where.Match(r) {
				return nil
			}
			if len(terms) == 0 || holdsEvery(r, terms) {
				found = append(found, r)
			} else if keepsVersions(r) {
				versioned = append(versioned, r)
			}
			return nil
		})
		if err != nil {
			return nil, nil, err
		}
	}
	if where != nil {
		found = slices.DeleteFunc(found, func(r *loci.Record) bool { return !where.Match(r) })
	}
	return found, versioned, nil
}

// forgetFound deletes the records found, each in its own user's scope of
// workspace ws (an agent's own memory in the scope of no user): the
// versions of a keyed fact left stop naming them (gone holds the ids of
// every record the caller deletes), and a forgotten message leaves its
// session with one message less.
func (s *Service) forgetFound(ctx context.Context, tx loci.Tx, a *audited, ws string, found []*loci.Record, gone map[string]bool) error {
	// The versions of a keyed fact are held still while the matched
	// ones go: what is deleted is exactly what matched, and the
	// versions left stop naming it (unlinkForgottenFacts).
	keyed, err := lockFactSlots(ctx, tx, found)
	if err != nil {
		return err
	}
	var users []string
	byUser := map[string][]string{}
	for _, r := range found {
		if _, ok := byUser[r.UserID]; !ok {
			users = append(users, r.UserID)
		}
		byUser[r.UserID] = append(byUser[r.UserID], r.ID)
	}
	for _, u := range users {
		if _, err := tx.DeleteRecords(ctx, loci.RecordFilter{Workspace: ws, UserID: &u, IDs: byUser[u]}); err != nil {
			return err
		}
	}
	if err := unlinkForgottenFacts(ctx, tx, a, keyed, gone, s.now()); err != nil {
		return err
	}
	var sessions []string
	for _, r := range found {
		if isMessage(r) && !slices.Contains(sessions, r.SessionID) {
			sessions = append(sessions, r.SessionID)
		}
	}
	recounted, err := s.recountMessages(ctx, tx, sessions)
	a.touch(recounted...)
	return err
}

// DeleteUser deletes every record about the user, of every kind (with
// their versions, index entries and embeddings), the records of the
// user's sessions that carry no user (messages appended without one, what
// a chat model wrote about the agent from the user's conversations), the
// adds queued for the user, and the user.
func (s *Service) DeleteUser(ctx context.Context, userID string) (n int, err error) {
	a, err := s.begin(ctx, loci.OpUserDelete, loci.Scope{UserID: userID})
	defer a.end(&err)
	if err != nil {
		return 0, err
	}
	if err := loci.RequireText("user_id", userID, loci.MaxUserIDBytes); err != nil {
		return 0, err
	}
	ws := loci.WorkspaceFrom(ctx)
	err = a.update(func(tx loci.Tx) error {
		n = 0 // the retry policy may run this twice
		if err := tx.Lock(ctx, lockName(ws, "user", userID)); err != nil {
			return err
		}
		// The adds queued for the user hold what they said: deleted
		// first, so that none writes it back (one a worker holds rolls
		// back; eventforget.go).
		if _, err := tx.DeleteEvents(ctx, ws, userID, time.Time{}); err != nil {
			return err
		}
		cat := sessionCategory
		sessions, err := tx.FindRecords(ctx, loci.RecordFilter{Workspace: ws, Kinds: []loci.Kind{loci.KindSession}, UserID: &userID, Category: &cat, Keyed: true})
		if err != nil {
			return err
		}
		noUser := ""
		var userless []*loci.Record
		for _, r := range sessions {
			sid := sessionIDOf(r)
			if err := tx.ScanRecords(ctx, loci.RecordFilter{Workspace: ws, SessionID: &sid, UserID: &noUser}, func(r *loci.Record) error {
				userless = append(userless, r)
				return nil
			}); err != nil {
				return err
			}
		}
		if len(userless) > 0 {
			gone := map[string]bool{}
			for _, r := range userless {
				gone[r.ID] = true
				a.touch(r.ID)
			}
			if err := s.forgetFound(ctx, tx, a, ws, userless, gone); err != nil {
				return err
			}
			// Another user's add may name one (a model's update of what
			// it wrote about the agent).
			if err := forgetEventsOf(ctx, tx, ws, userless); err != nil {
				return err
			}
			n += len(userless)
		}
		m, err := deleteTouched(ctx, tx, a, loci.RecordFilter{Workspace: ws, UserID: &userID})
		if err != nil {
			return err
		}
		n += m
		a.count(n)
		_, err = tx.DeleteUser(ctx, ws, userID)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("delete user: %w", err)
	}
	return n, nil
}

func userMemoryOf(r *loci.Record) *loci.UserMemory {
	return &loci.UserMemory{
		ID: r.ID, Kind: r.Kind, UserID: r.UserID, AgentID: r.AgentID, SessionID: r.SessionID, TaskID: r.TaskID, Key: r.Key,
		Content: r.Content, Data: r.Data, Tags: r.Tags, Metadata: r.Metadata, Category: r.Category, ActionType: r.ActionType,
		Outcome: r.Outcome, Confidence: r.Confidence, AccessCount: r.AccessCount,
		CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt, ExpiresAt: r.ExpiresAt, Version: r.Version,
		ValidAt: r.ValidAt, InvalidAt: r.InvalidAt, Review: r.Review,
		LastAccessedAt: r.LastAccessedAt,
	}
}

// sessionIDOf returns the id of a session record: its key, else its scope.
func sessionIDOf(r *loci.Record) string {
	if r.Key != "" {
		return r.Key
	}
	return r.SessionID
}
