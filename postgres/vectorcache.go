package postgres

import (
	"context"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/loci-memory/loci"
)

// The vector cache is each process's in-memory copy of what exact vector
// and lexical search read, per workspace: every record's filterable fields,
// its unit vector, stored by (model, dimension) in columns, and its
// lexemes with their frequencies and its length in an inverted index
// (lexcache.go), so that a query scores a workspace in Go in milliseconds
// instead of in SQL in seconds. PostgreSQL stays the source of truth, and replicas (several
// processes on one database) stay exact through a change feed that
// migration 0005 keeps in the database:
//
//   - every insert, and every update of a field a search reads (migration
//     0006 adds the analyzed text), stamps the row with the 64-bit id of its transaction (change_xid);
//   - every delete leaves a tombstone stamped the same way.
//
// Transaction ids are assigned in order but commit in any order, so a
// reader cannot keep "the highest stamp it has seen". It keeps instead the
// xmin H of the snapshot it last read the feed in: every transaction with
// an id below H had finished when that snapshot was taken, so its effects
// were in it; every transaction that commits later, whenever it stamped,
// has an id >= H. The next read, in one statement (one snapshot), fetches
// the rows and tombstones stamped >= H, applies them, and moves H to that
// snapshot's xmin. A transaction still running at one read is re-read at
// the next (its id is >= the new H), so nothing is missed, whatever the
// order of commits; a stamp read twice is applied twice, harmlessly. The
// cost of a read with nothing new is one index probe per table, and
// writers share no counter or row, so they are not serialized.
//
// Reads are serialized per workspace and each runs in a statement of its
// own, in a READ COMMITTED transaction, so each applies a later snapshot
// than the one before. A transaction that has written anything (it has a
// transaction id) or runs at a stricter isolation level does not read the
// feed: it would see its own uncommitted rows, or an older snapshot. It
// searches in SQL instead, as it does after writing records itself.
//
// A search scores the cache, applying the filter (RecordFilter.Match)
// before the cut, then reads the winners' rows in the caller's transaction
// and checks them: each must still match, with the same vector and score.
// If one does not (a commit landed between the two statements), it
// searches again; after a few tries, in SQL.

// vectorCache holds the loaded workspaces of one DB.
type vectorCache struct {
	mu     sync.Mutex
	spaces map[string]*vspace
	// answered and lexAnswered count the vector and lexical searches
	// answered from the cache (for tests).
	answered, lexAnswered atomic.Int64
}

func newVectorCache() *vectorCache {
	return &vectorCache{spaces: map[string]*vspace{}}
}

// vspace is one workspace's cache.
type vspace struct {
	// refresh serializes reads of the feed, so that each applies a later
	// snapshot than the last.
	refresh sync.Mutex
	loaded  bool
	horizon int64 // H: changes by transactions with ids >= H may be missing

	mu     sync.RWMutex // guards at, groups and lex
	at     map[string]vloc
	groups map[vkey]*vgroup
	lex    *lexIndex
}

type vkey struct {
	model string
	dims  int
}

type vloc struct {
	g    *vgroup
	slot int32
}

// vgroup holds the vectors of one model and dimension: cols[d][slot].
// Slots are append-only; a removed record leaves a dead slot (nil meta,
// zero vector), compacted away when they pile up.
type vgroup struct {
	metas []*loci.Record
	cols  [][]float32
	live  int
}

// space returns the workspace's cache, read up to date in tx, or ok false
// when tx cannot read the feed (see above).
func (c *vectorCache) space(ctx context.Context, tx *Tx, workspace string) (*vspace, bool, error) {
	c.mu.Lock()
	sp := c.spaces[workspace]
	if sp == nil {
		sp = &vspace{}
		c.spaces[workspace] = sp
	}
	c.mu.Unlock()

	sp.refresh.Lock()
	defer sp.refresh.Unlock()
	for {
		loading := !sp.loaded
		feed, err := readFeed(ctx, tx, workspace, sp.horizon, loading)
		if err != nil {
			return nil, false, err
		}
		if !feed.ok {
			return nil, false, nil
		}
		if !loading && feed.floor > sp.horizon {
			// Tombstones this cache may not have read were pruned.
			sp.loaded, sp.horizon = false, 0
			continue
		}
		sp.mu.Lock()
		if loading {
			sp.at, sp.groups, sp.lex = map[string]vloc{}, map[vkey]*vgroup{}, newLexIndex()
		}
		for _, id := range feed.deleted {
			sp.remove(id)
			sp.lex.remove(id)
		}
		for _, ch := range feed.changed {
			sp.put(ch.meta, ch.vec)
			sp.lex.put(ch.meta, ch.xid, ch.length, ch.lexemes, ch.tfs)
		}
		sp.mu.Unlock()
		sp.loaded, sp.horizon = true, feed.horizon
		return sp, true, nil
	}
}

// feed is what one read of the change feed returned.
type feed struct {
	ok      bool  // the transaction may read the feed
	horizon int64 // the snapshot's xmin
	floor   int64 // tombstones below it may have been pruned
	changed []change
	deleted []string
}

type change struct {
	meta *loci.Record // filterable fields only
	vec  []float32    // nil: no embedding
	xid  int64        // the row's change_xid
	// search_len, and the lexemes of search_vector with their numbers
	// of positions
	length  int32
	lexemes []string
	tfs     []int32
}

// readFeed reads, in one statement (so one snapshot), that snapshot's
// xmin and the workspace's rows and tombstones stamped >= since; when
// loading, every row instead.
func readFeed(ctx context.Context, tx *Tx, workspace string, since int64, loading bool) (*feed, error) {
	rows, err := tx.tx.Query(ctx, `WITH s AS MATERIALIZED (
			SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint AS h,
				pg_current_xact_id_if_assigned() IS NULL
					AND current_setting('transaction_isolation') = 'read committed' AS ok,
				(SELECT floor FROM record_feed WHERE id = 1) AS floor
		)
		SELECT 0, s.h, s.ok, s.floor, NULL::text, NULL::text, NULL::text, NULL::text, NULL::text, NULL::text,
			NULL::text, NULL::text[], NULL::text, NULL::text, NULL::text, NULL::float8, NULL::timestamptz,
			NULL::timestamptz, NULL::real[], NULL::text, NULL::bigint, NULL::integer, NULL::text[], NULL::integer[],
			NULL::timestamptz, NULL::timestamptz, NULL::text
		FROM s
		UNION ALL
		SELECT 1, NULL, NULL, NULL, r.id, r.kind, r.agent_id, r.user_id, r.session_id, r.task_id,
			r.key, r.tags, r.category, r.action_type, r.outcome, r.confidence, r.created_at,
			r.expires_at, r.embedding, r.embedding_model, r.change_xid, r.search_len,
			ARRAY(SELECT u.lexeme FROM unnest(r.search_vector) u),
			ARRAY(SELECT cardinality(u.positions) FROM unnest(r.search_vector) u),
			r.valid_at, r.invalid_at, r.review
		FROM s, records r
		WHERE s.ok AND r.workspace = $1 AND r.change_xid >= $2
		UNION ALL
		SELECT 2, NULL, NULL, NULL, t.id, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
			NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL
		FROM s, record_tombstones t
		WHERE s.ok AND NOT $3 AND t.workspace = $1 AND t.xid >= $2`, workspace, since, loading)
	if err != nil {
		return nil, fmt.Errorf("read vector feed: %w", err)
	}
	defer rows.Close()
	fd := &feed{}
	for rows.Next() {
		var (
			tag                                                             int32
			h, floor                                                        *int64
			ok                                                              *bool
			id, kind, agent, user, session, task, key, cat, act, out, model *string
			tags                                                            []string
			conf                                                            *float64
			created, expires                                                *time.Time
			vec                                                             []float32
			xid                                                             *int64
			length                                                          *int32
			lexemes                                                         []string
			tfs                                                             []int32
			validAt, invalidAt                                              *time.Time
			review                                                          *string
		)
		if err := rows.Scan(&tag, &h, &ok, &floor, &id, &kind, &agent, &user, &session, &task,
			&key, &tags, &cat, &act, &out, &conf, &created, &expires, &vec, &model, &xid, &length, &lexemes, &tfs,
			&validAt, &invalidAt, &review); err != nil {
			return nil, fmt.Errorf("read vector feed: %w", err)
		}
		switch tag {
		case 0:
			fd.ok, fd.horizon, fd.floor = *ok, *h, *floor
		case 1:
			m := &loci.Record{ID: *id, Workspace: workspace, Kind: loci.Kind(*kind), Category: *cat, ActionType: *act,
				Outcome: *out, Confidence: *conf, CreatedAt: created.UTC(), EmbeddingModel: *model}
			m.AgentID, m.UserID, m.SessionID, m.TaskID = *agent, *user, *session, *task
			if key != nil {
				m.Key = *key
			}
			if len(tags) > 0 {
				m.Tags = tags
			}
			if expires != nil {
				m.ExpiresAt = expires.UTC()
			}
			if validAt != nil {
				m.ValidAt = validAt.UTC()
			}
			if invalidAt != nil {
				m.InvalidAt = invalidAt.UTC()
			}
			if review != nil {
				m.Review = *review
			}
			if len(lexemes) != len(tfs) {
				return nil, fmt.Errorf("read vector feed: %d lexemes, %d frequencies", len(lexemes), len(tfs))
			}
			fd.changed = append(fd.changed, change{meta: m, vec: vec, xid: *xid, length: *length, lexemes: lexemes, tfs: tfs})
		case 2:
			fd.deleted = append(fd.deleted, *id)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read vector feed: %w", err)
	}
	return fd, nil
}

// put stores m's vector (replacing the record's, if any); a nil vector
// removes the record.
func (sp *vspace) put(m *loci.Record, vec []float32) {
	sp.remove(m.ID)
	if len(vec) == 0 {
		return
	}
	k := vkey{m.EmbeddingModel, len(vec)}
	g := sp.groups[k]
	if g == nil {
		g = &vgroup{cols: make([][]float32, len(vec))}
		sp.groups[k] = g
	}
	slot := int32(len(g.metas))
	g.metas = append(g.metas, m)
	for d, x := range vec {
		g.cols[d] = append(g.cols[d], x)
	}
	g.live++
	sp.at[m.ID] = vloc{g, slot}
}

// remove drops the record with id, if cached.
func (sp *vspace) remove(id string) {
	loc, ok := sp.at[id]
	if !ok {
		return
	}
	delete(sp.at, id)
	g := loc.g
	g.metas[loc.slot] = nil
	for d := range g.cols {
		g.cols[d][loc.slot] = 0
	}
	g.live--
	if dead := len(g.metas) - g.live; dead > 1024 && dead > g.live {
		sp.compact(g)
	}
}

// compact rebuilds g without its dead slots.
func (sp *vspace) compact(g *vgroup) {
	var metas []*loci.Record
	cols := make([][]float32, len(g.cols))
	for d := range cols {
		cols[d] = make([]float32, 0, g.live)
	}
	for s, m := range g.metas {
		if m == nil {
			continue
		}
		sp.at[m.ID] = vloc{g, int32(len(metas))}
		metas = append(metas, m)
		for d := range cols {
			cols[d] = append(cols[d], g.cols[d][s])
		}
	}
	g.metas, g.cols = metas, cols
}

// hit is a cached record and its score.
type hit struct {
	meta  *loci.Record
	score float32
}

// search returns the best limit records that match f with a vector of
// model, by dot product with query, best first, ties by id: the order of
// the SQL paths. The filter is applied before the cut.
func (sp *vspace) search(f *loci.RecordFilter, model string, query []float32, limit int) []hit {
	g := sp.groups[vkey{model, len(query)}]
	if g == nil || g.live == 0 {
		return nil
	}
	scores := make([]float32, len(g.metas))
	for d, q := range query {
		if q == 0 {
			continue
		}
		for s, x := range g.cols[d] {
			// The conversion rounds each product, so that the sum is
			// the same as dot's, with or without fused multiply-add.
			scores[s] += float32(q * x)
		}
	}
	top := topK[hit]{k: limit, before: ranksBefore}
	for s, score := range scores {
		m := g.metas[s]
		if m == nil {
			continue
		}
		c := hit{m, score}
		if !top.wants(c) {
			continue
		}
		if !f.Match(m) {
			continue
		}
		top.push(c)
	}
	return top.sorted()
}

// ranksBefore orders hits as SQL's ORDER BY score DESC, id does: NaN
// above every number (PostgreSQL's float order), ties by id.
func ranksBefore(a, b hit) bool {
	an, bn := math.IsNaN(float64(a.score)), math.IsNaN(float64(b.score))
	switch {
	case an != bn:
		return an
	case !an && a.score != b.score:
		return a.score > b.score
	}
	return a.meta.ID < b.meta.ID
}

// dot is the score search gives vec, computed the same way.
func dot(query, vec []float32) float32 {
	var s float32
	for d, q := range query {
		if q == 0 {
			continue
		}
		s += float32(q * vec[d])
	}
	return s
}

// searchCached answers SearchVector from the cache, or reports ok false
// when the caller must search in SQL.
func (tx *Tx) searchCached(ctx context.Context, f loci.RecordFilter, model string, query []float32, limit int) (out []loci.ScoredRecord, ok bool, err error) {
	const tries = 3
	for range tries {
		sp, ok, err := tx.db.cache.space(ctx, tx, f.Workspace)
		if err != nil || !ok {
			return nil, false, err
		}
		sp.mu.RLock()
		hits := sp.search(&f, model, query, limit)
		sp.mu.RUnlock()
		if len(hits) == 0 {
			tx.db.cache.answered.Add(1)
			return nil, true, nil
		}
		ids := make([]string, len(hits))
		for i, h := range hits {
			ids[i] = h.meta.ID
		}
		rows, err := tx.tx.Query(ctx, `SELECT `+recordColumns+` FROM records WHERE workspace = $1 AND id = ANY($2::text[])`, f.Workspace, ids)
		if err != nil {
			return nil, false, fmt.Errorf("search vector: %w", err)
		}
		recs, err := scanRecords(rows)
		if err != nil {
			return nil, false, err
		}
		byID := make(map[string]*loci.Record, len(recs))
		for _, r := range recs {
			byID[r.ID] = r
		}
		out = out[:0]
		for _, h := range hits {
			r := byID[h.meta.ID]
			if r == nil || !f.Match(r) || r.EmbeddingModel != model || len(r.Embedding) != len(query) {
				break
			}
			if s := dot(query, r.Embedding); s != h.score && !(s != s && h.score != h.score) {
				break
			}
			out = append(out, loci.ScoredRecord{Record: r, Score: float64(h.score)})
		}
		if len(out) == len(hits) {
			tx.db.cache.answered.Add(1)
			return out, true, nil
		}
		// A commit landed between the feed and the rows: again.
	}
	return nil, false, nil
}
