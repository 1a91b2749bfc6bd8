// Package retrieval is loci's hybrid ranking as pure functions: reciprocal
// rank fusion of the candidate lists each signal (lexical BM25 with
// conversational context and session strength, vector similarity, the
// periods a query names) produced, re-scoring with recency, the kind's
// confidence and the query's dates, and optional maximal marginal
// relevance (MMR) diversity. Every result can explain its score: the rank
// and score of each signal, and each re-scoring factor.
//
// Nothing here reads storage or the clock: candidates come in, ranked
// results come out, so rankings are tested on fixed inputs.
package retrieval

import (
	"math"
	"sort"
	"sync"
	"time"

	"github.com/loci-memory/loci"
)

// Signal names. Date is the lexical hits written in the periods a query
// names (see InSpans).
const (
	Lexical = "lexical"
	Vector  = "vector"
	Date    = "date"
)

// Hit is one candidate in one signal's list, best first.
type Hit struct {
	ID    string
	Score float64 // the signal's own score (higher is better), for explain
}

// Candidate is what re-scoring needs to know about a record.
type Candidate struct {
	ID string
	// At is the time recency is measured from (a record's last update).
	At time.Time
	// Confidence is the kind's confidence or relevance scaled to 0..1;
	// HasConfidence is false for kinds that have none (neutral).
	Confidence    float64
	HasConfidence bool
	// Vector, when set, lets MMR measure redundancy between results.
	Vector []float32
	// Written is when the record was written (its creation), which the
	// periods a query names are matched with.
	Written time.Time
}

// Params tunes a ranking. The zero value of a field means its default.
type Params struct {
	// K is the reciprocal rank fusion constant (default 60).
	K float64
	// Weights weighs each signal in the fusion (default 1 each).
	Weights map[string]float64
	// Now is the time recency is measured at.
	Now time.Time
	// RecencyWeight is the share of the final score that recency decides,
	// 0..1; HalfLife is the age at which a record's recency halves
	// (default 30 days).
	RecencyWeight float64
	HalfLife      time.Duration
	// ConfidenceWeight is the share of the final score that the kind's
	// confidence decides, 0..1.
	ConfidenceWeight float64
	// MMRLambda, in (0, 1), turns MMR on: 1 is pure relevance, lower
	// values prefer results unlike those already chosen. 0: off.
	MMRLambda float64
	// Spans are the periods the query names (ParseDates): a result
	// written in one has its score multiplied by 1 + DateBoost, and one
	// written within DateGrace after one by less (see Span.Closeness).
	Spans     []Span
	DateBoost float64
	DateGrace time.Duration
	// Limit is the most results returned (0: all).
	Limit int
	// Explain fills each result's Signals and Confidence (Rank); without
	// it they are nil, and a ranking allocates neither.
	Explain bool
}

// DefaultK is the reciprocal rank fusion constant of the literature.
const DefaultK = 60

// DefaultHalfLife is the age at which recency halves unless told.
const DefaultHalfLife = 30 * 24 * time.Hour

// Result is a ranked record id with its score and the explanation of it,
// in the answer's own type: the ranking fills the signals, the fusion,
// recency, confidence, the date's closeness, the MMR position and Rank
// (the score results are ordered by); the caller adds what it scores
// after ranking (context, session, relevance).
type Result struct {
	ID      string
	Score   float64
	Explain loci.Explanation
}

// Fuse combines the signals' lists by weighted reciprocal rank fusion:
// score(d) = Σ_s w_s / (k + rank_s(d)), scaled by Σ_s w_s / (k + 1) so the
// best possible score is 1. A duplicate id within one list counts at its
// best rank. Results are best first; ties break on id.
func Fuse(lists map[string][]Hit, k float64, weights map[string]float64) []Result {
	return fuse(lists, k, weights, true)
}

// fuseScratch is what fuse uses and keeps nothing of, reused from search
// to search.
type fuseScratch struct {
	at map[string]int
	in []int
}

var fusePool = sync.Pool{New: func() any { return &fuseScratch{at: map[string]int{}} }}

// put gives sc back, with in (grown from sc.in) as its room for the next.
func (sc *fuseScratch) put(in []int) {
	clear(sc.at)
	sc.in = in
	fusePool.Put(sc)
}

// fuse is Fuse; without explain it leaves each result's Signals nil (a
// map a result fewer to allocate).
func fuse(lists map[string][]Hit, k float64, weights map[string]float64, explain bool) []Result {
	if k <= 0 {
		k = DefaultK
	}
	n := 0
	for _, l := range lists {
		n += len(l)
	}
	sc := fusePool.Get().(*fuseScratch)
	at := sc.at // a result's index in out
	out := make([]Result, 0, n)
	// in[i] is 1 + the ordinal of the last list that ranked out[i]: a
	// duplicate within a list counts once, at its best rank.
	in := sc.in[:0]
	defer func() { sc.put(in) }()
	var norm float64
	for li, name := range sortedKeys(lists) {
		w := weight(weights, name)
		if w <= 0 {
			continue
		}
		norm += w / (k + 1)
		for i, h := range lists[name] {
			j, ok := at[h.ID]
			if !ok {
				j = len(out)
				at[h.ID] = j
				out = append(out, Result{ID: h.ID})
				in = append(in, 0)
			}
			if in[j] == li+1 {
				continue
			}
			in[j] = li + 1
			r := &out[j]
			if explain {
				if r.Explain.Signals == nil {
					r.Explain.Signals = map[string]loci.SignalScore{}
				}
				r.Explain.Signals[name] = loci.SignalScore{Rank: i + 1, Score: h.Score}
			}
			r.Explain.Fused += w / (k + float64(i+1))
		}
	}
	for i := range out {
		r := &out[i]
		if norm > 0 {
			r.Explain.Fused /= norm
		}
		r.Score, r.Explain.Rank = r.Explain.Fused, r.Explain.Fused
	}
	sortResults(out)
	return out
}

// Rescore multiplies each fused score by the recency and confidence
// blend: score = fused × (1 − rw − cw + rw·recency + cw·confidence), and,
// when the query names periods, by 1 + DateBoost × the closeness of the
// time the result was written to them. A candidate without confidence
// counts as fully confident. Results missing from cands keep their fused
// score with recency 1. Best first.
func Rescore(results []Result, cands map[string]Candidate, p Params) []Result {
	return rescore(append([]Result(nil), results...), cands, p, true)
}

// rescore is Rescore of rs in place; without explain it leaves each
// result's Confidence nil.
func rescore(rs []Result, cands map[string]Candidate, p Params, explain bool) []Result {
	half := p.HalfLife
	if half <= 0 {
		half = DefaultHalfLife
	}
	rw, cw := clamp01(p.RecencyWeight), clamp01(p.ConfidenceWeight)
	if rw+cw > 1 {
		rw, cw = rw/(rw+cw), cw/(rw+cw)
	}
	for i := range rs {
		r := &rs[i]
		rec, conf := 1.0, 1.0
		if c, ok := cands[r.ID]; ok {
			if !c.At.IsZero() && !p.Now.IsZero() {
				age := max(p.Now.Sub(c.At), 0)
				rec = math.Pow(0.5, float64(age)/float64(half))
			}
			if c.HasConfidence {
				conf = clamp01(c.Confidence)
				if explain {
					r.Explain.Confidence = &conf
				}
			}
		}
		r.Explain.Recency = rec
		r.Score = r.Explain.Fused * (1 - rw - cw + rw*rec + cw*conf)
		if len(p.Spans) > 0 && p.DateBoost > 0 {
			r.Explain.Date = Closeness(p.Spans, cands[r.ID].Written, p.DateGrace)
			r.Score *= 1 + p.DateBoost*r.Explain.Date
		}
		r.Explain.Rank = r.Score
	}
	sortResults(rs)
	return rs
}

// MMR reorders results by maximal marginal relevance: each next result
// maximises λ·relevance − (1−λ)·(its greatest cosine similarity to those
// already chosen), relevance being the score scaled to the best one.
// Candidates without a vector are never redundant. Scores are kept; only
// the order changes, and each result's MMRRank records it.
func MMR(results []Result, cands map[string]Candidate, lambda float64) []Result {
	if lambda <= 0 || lambda >= 1 || len(results) < 2 {
		return results
	}
	top := results[0].Score
	if top <= 0 {
		top = 1
	}
	left := append([]Result(nil), results...)
	out := make([]Result, 0, len(results))
	for len(left) > 0 {
		best, bestVal := 0, math.Inf(-1)
		for i, r := range left {
			var red float64
			for _, c := range out {
				red = max(red, Cosine(cands[r.ID].Vector, cands[c.ID].Vector))
			}
			if v := lambda*r.Score/top - (1-lambda)*red; v > bestVal {
				best, bestVal = i, v
			}
		}
		r := left[best]
		r.Explain.MMRRank = len(out) + 1
		out = append(out, r)
		left = append(left[:best], left[best+1:]...)
	}
	return out
}

// Rank runs the pipeline: Fuse, Rescore, then MMR when asked, and cuts to
// p.Limit.
func Rank(lists map[string][]Hit, cands map[string]Candidate, p Params) []Result {
	out := rescore(fuse(lists, p.K, p.Weights, p.Explain), cands, p, p.Explain)
	if p.MMRLambda > 0 {
		// MMR reorders a pool a few times larger than what is returned.
		pool := len(out)
		if p.Limit > 0 {
			pool = min(pool, 3*p.Limit)
		}
		out = append(MMR(out[:pool], cands, p.MMRLambda), out[pool:]...)
	}
	if p.Limit > 0 && len(out) > p.Limit {
		out = out[:p.Limit]
	}
	return out
}

// Cosine is the cosine similarity of a and b (0 when either is empty or
// zero, or their lengths differ).
func Cosine(a, b []float32) float64 {
	if len(a) == 0 || len(a) != len(b) {
		return 0
	}
	var s, na, nb float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return s / math.Sqrt(na*nb)
}

func weight(w map[string]float64, name string) float64 {
	if v, ok := w[name]; ok {
		return v
	}
	return 1
}

func clamp01(x float64) float64 { return min(max(x, 0), 1) }

func sortedKeys(m map[string][]Hit) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func sortResults(rs []Result) {
	sort.SliceStable(rs, func(i, j int) bool {
		if rs[i].Score != rs[j].Score {
			return rs[i].Score > rs[j].Score
		}
		return rs[i].ID < rs[j].ID
	})
}
