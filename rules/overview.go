package rules

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/loci-memory/loci"
)

// The overview (loci.OverviewService): user list, stats and the
// timeline of every kind. Counts and groups are the database's (indexed
// GROUP BY queries); no rule here loads every record.

// ListUsers returns the users the workspace knows, newest first.
func (s *Service) ListUsers(ctx context.Context, f loci.UserFilter) (_ []*loci.UserSummary, _ int, err error) {
	// The user list spans agents: keys bound to an agent are refused.
	a, err := s.begin(ctx, loci.OpUserList, loci.Scope{})
	defer a.end(&err)
	if err != nil {
		return nil, 0, err
	}
	if err := loci.CheckText("q", f.Match, loci.MaxOverviewScopeBytes); err != nil {
		return nil, 0, err
	}
	limit, offset, err := checkPage(f.Limit, f.Offset, loci.DefaultListLimit)
	if err != nil {
		return nil, 0, err
	}
	f.Workspace, f.Limit, f.Offset = loci.WorkspaceFrom(ctx), limit, offset
	var users []*loci.UserSummary
	var total int
	err = a.view(func(tx loci.Tx) (err error) {
		users, total, err = tx.ListUserSummaries(ctx, f)
		// The users are not records: no record ids; the listing's total.
		a.count(total)
		return err
	})
	if err != nil {
		return nil, 0, fmt.Errorf("list users: %w", err)
	}
	return users, total, nil
}

// scopeFilter is the filter of the records an overview query names (the
// operation has checked the key's binding against its agent).
func scopeFilter(ctx context.Context, sc loci.Scope) (loci.RecordFilter, error) {
	f := loci.RecordFilter{Workspace: loci.WorkspaceFrom(ctx)}
	for _, v := range []struct {
		name  string
		value string
		dst   **string
	}{{"agent_id", sc.AgentID, &f.AgentID}, {"user_id", sc.UserID, &f.UserID}, {"session_id", sc.SessionID, &f.SessionID}, {"task_id", sc.TaskID, &f.TaskID}} {
		if err := loci.CheckText(v.name, v.value, loci.MaxOverviewScopeBytes); err != nil {
			return f, err
		}
		if v.value != "" {
			*v.dst = loci.Ptr(v.value)
		}
	}
	return f, nil
}

// startOfDay is the UTC midnight that begins t's day.
func startOfDay(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// Stats returns the overview of the workspace, or of one agent or user.
func (s *Service) Stats(ctx context.Context, q loci.StatsQuery) (_ *loci.Stats, err error) {
	// The workspace's stats span agents: a bound key names its own.
	a, err := s.begin(ctx, loci.OpStats, loci.Scope{AgentID: q.AgentID, UserID: q.UserID})
	defer a.end(&err)
	if err != nil {
		return nil, err
	}
	if err := q.Validate(); err != nil {
		return nil, err
	}
	if q.Top == 0 {
		q.Top = loci.DefaultStatsTop
	}
	if q.Days == 0 {
		q.Days = loci.DefaultStatsDays
	}
	base, err := scopeFilter(ctx, loci.Scope{AgentID: q.AgentID, UserID: q.UserID})
	if err != nil {
		return nil, err
	}
	now := s.now()
	start := startOfDay(now).AddDate(0, 0, -(q.Days - 1))
	var st *loci.Stats
	err = a.view(func(tx loci.Tx) error {
		st = &loci.Stats{AgentID: q.AgentID, UserID: q.UserID, Kinds: map[loci.Kind]int{}, At: now}
		kinds, _, err := tx.CountRecordsBy(ctx, base, loci.GroupKind, 0)
		if err != nil {
			return err
		}
		for _, k := range loci.Kinds {
			st.Kinds[k] = 0
		}
		for _, g := range kinds {
			st.Kinds[loci.Kind(g.Value)] = g.Count
			st.Total += g.Count
		}
		if st.TopAgents, st.Agents, err = topScopes(ctx, tx, base, loci.GroupAgent, q.Top); err != nil {
			return err
		}
		if st.TopUsers, st.Users, err = topScopes(ctx, tx, base, loci.GroupUser, q.Top); err != nil {
			return err
		}
		if st.Growth, err = growth(ctx, tx, base, start, q.Days); err != nil {
			return err
		}
		if st.Newest, err = newest(ctx, tx, base, loci.StatsNewest); err != nil {
			return err
		}
		// The records returned are the newest; the count is the scope's.
		for _, m := range st.Newest {
			a.touch(m.ID)
		}
		a.count(st.Total)
		if s.embedder != nil {
			st.Embeddings.Model = s.embedder.Model()
			st.Embeddings.Pending, err = tx.CountPendingEmbeddings(ctx, base, st.Embeddings.Model)
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("stats: %w", err)
	}
	return st, nil
}

// topScopes returns the largest agents or users of f, and how many there
// are.
func topScopes(ctx context.Context, tx loci.Tx, f loci.RecordFilter, by loci.Grouping, top int) ([]loci.ScopeCount, int, error) {
	groups, n, err := tx.CountRecordsBy(ctx, f, by, top)
	if err != nil {
		return nil, 0, err
	}
	out := make([]loci.ScopeCount, len(groups))
	for i, g := range groups {
		out[i] = loci.ScopeCount{ID: g.Value, Count: g.Count}
	}
	return out, n, nil
}

// growth returns one entry per day from start, days long: the records of
// f created that day and the running total.
func growth(ctx context.Context, tx loci.Tx, f loci.RecordFilter, start time.Time, days int) ([]loci.DayCount, error) {
	before := f
	before.CreatedBefore = start
	total, err := tx.CountRecords(ctx, before)
	if err != nil {
		return nil, err
	}
	since := f
	since.CreatedAfter = start.Add(-time.Microsecond) // exclusive: from start on
	groups, _, err := tx.CountRecordsBy(ctx, since, loci.GroupDay, 0)
	if err != nil {
		return nil, err
	}
	perDay := map[string]int{}
	for _, g := range groups {
		perDay[g.Value] = g.Count
	}
	out := make([]loci.DayCount, days)
	for i := range out {
		date := start.AddDate(0, 0, i).Format(time.DateOnly)
		total += perDay[date]
		out[i] = loci.DayCount{Date: date, Count: perDay[date], Total: total}
	}
	return out, nil
}

// newest returns the n most recently created records of f, newest first:
// n of each kind (each an indexed, ordered read), then merged.
func newest(ctx context.Context, tx loci.Tx, f loci.RecordFilter, n int) ([]*loci.UserMemory, error) {
	var recs []*loci.Record
	for _, k := range loci.Kinds {
		kf := f
		kf.Kinds, kf.Order, kf.Limit = []loci.Kind{k}, loci.OrderCreatedDesc, n
		got, err := tx.FindRecords(ctx, kf)
		if err != nil {
			return nil, err
		}
		recs = append(recs, got...)
	}
	sortNewestFirst(recs)
	out := []*loci.UserMemory{}
	for _, r := range recs[:min(n, len(recs))] {
		out = append(out, userMemoryOf(r))
	}
	return out, nil
}

// sortNewestFirst orders records as OrderCreatedDesc does.
func sortNewestFirst(recs []*loci.Record) {
	sort.Slice(recs, func(i, j int) bool {
		if !recs[i].CreatedAt.Equal(recs[j].CreatedAt) {
			return recs[i].CreatedAt.After(recs[j].CreatedAt)
		}
		return recs[i].ID > recs[j].ID
	})
}

// ListMemories returns the records of every kind q selects, newest first.
func (s *Service) ListMemories(ctx context.Context, q loci.MemoryQuery) (_ []*loci.UserMemory, _ int, err error) {
	// The timeline spans agents: a bound key names its own.
	a, err := s.begin(ctx, loci.OpMemoryList, q.Scope)
	defer a.end(&err)
	if err != nil {
		return nil, 0, err
	}
	f, err := scopeFilter(ctx, q.Scope)
	if err != nil {
		return nil, 0, err
	}
	for _, k := range q.Kinds {
		if !k.Valid() {
			return nil, 0, loci.Errorf(loci.EINVALID, "unknown kind %q", k)
		}
	}
	if !q.Before.IsZero() && !q.After.IsZero() && !q.Before.After(q.After) {
		return nil, 0, loci.Errorf(loci.EINVALID, "before must be after after")
	}
	limit, offset, err := checkPage(q.Limit, q.Offset, loci.DefaultListLimit)
	if err != nil {
		return nil, 0, err
	}
	f.Kinds, f.CreatedBefore, f.CreatedAfter, f.Where = q.Kinds, q.Before, q.After, q.Filters
	f.Order, f.Limit, f.Offset = loci.OrderCreatedDesc, limit, offset
	f.LiveAt, f.Lasting = s.now(), []loci.Kind{loci.KindSession}
	out := []*loci.UserMemory{}
	var total int
	err = a.view(func(tx loci.Tx) error {
		out = out[:0] // the retry policy may run this twice
		recs, n, err := s.findRecords(ctx, tx, f)
		if err != nil {
			return err
		}
		for _, r := range recs {
			a.touch(r.ID)
			out = append(out, userMemoryOf(r))
		}
		total = n
		a.count(total)
		return nil
	})
	if err != nil {
		return nil, 0, fmt.Errorf("list memories: %w", err)
	}
	return out, total, nil
}
