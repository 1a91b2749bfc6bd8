package rules

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/loci-memory/loci"
)

// What a reader bound to an agent reaches of a user's records that
// several agents hold (facts, the review queue): a key bound to an agent,
// or an MCP connection (bound to one agent), reads its agent's records and
// those of no agent, never another agent's (docs/rules.md, "Memory is
// isolated by workspace and scope"). A reader bound to no agent reads
// every agent's.

// readerAgent returns the agent a read answers for: the agent of the
// context's key when the key is bound to one, else asked (an MCP
// connection's agent); "" for every agent's records. The caller has
// checked asked against the key's binding (begin).
func readerAgent(ctx context.Context, asked string) string {
	if p := loci.PrincipalFrom(ctx); p != nil && p.AgentID != "" {
		return p.AgentID
	}
	return asked
}

// inReach returns the disjoint filters of what of f a reader for agent
// reaches: f itself for agent "" (every agent's records), else f's records
// of the agent and f's records of no agent.
func inReach(f loci.RecordFilter, agent string) []loci.RecordFilter {
	if agent == "" {
		return []loci.RecordFilter{f}
	}
	own, none := f, f
	own.AgentID, none.AgentID = &agent, loci.Ptr("")
	return []loci.RecordFilter{own, none}
}

// findParts returns the page of the records that the disjoint filters
// parts select (parts share their Order, Limit and Offset: the page's), and
// how many they select in all. One filter is read as it is; several are
// each read up to the page's end and merged in their order.
func findParts(ctx context.Context, tx loci.Tx, parts []loci.RecordFilter) ([]*loci.Record, int, error) {
	total := 0
	for _, f := range parts {
		n, err := tx.CountRecords(ctx, f)
		if err != nil {
			return nil, 0, err
		}
		total += n
	}
	if len(parts) == 1 {
		recs, err := tx.FindRecords(ctx, parts[0])
		return recs, total, err
	}
	page := parts[0]
	cmp := recordOrder(page.Order)
	if cmp == nil {
		return nil, 0, fmt.Errorf("find parts: order %d is not merged", page.Order)
	}
	var all []*loci.Record
	for _, f := range parts {
		f.Offset = 0
		if page.Limit > 0 {
			f.Limit = page.Offset + page.Limit
		}
		recs, err := tx.FindRecords(ctx, f)
		if err != nil {
			return nil, 0, err
		}
		all = append(all, recs...)
	}
	slices.SortFunc(all, cmp)
	all = all[min(page.Offset, len(all)):]
	if page.Limit > 0 {
		all = all[:min(page.Limit, len(all))]
	}
	return all, total, nil
}

// recordOrder compares two records in order o as the backends sort them
// (ties on id, byte by byte), or is nil for an order it does not know.
func recordOrder(o loci.Order) func(a, b *loci.Record) int {
	desc := func(by func(a, b *loci.Record) int) func(a, b *loci.Record) int {
		return func(a, b *loci.Record) int {
			if c := by(a, b); c != 0 {
				return -c
			}
			return -strings.Compare(a.ID, b.ID)
		}
	}
	switch o {
	case loci.OrderConfidenceDesc:
		return desc(func(a, b *loci.Record) int {
			switch {
			case a.Confidence < b.Confidence:
				return -1
			case a.Confidence > b.Confidence:
				return 1
			}
			return 0
		})
	case loci.OrderUpdatedDesc:
		return desc(func(a, b *loci.Record) int { return a.UpdatedAt.Compare(b.UpdatedAt) })
	case loci.OrderCreatedDesc:
		return desc(func(a, b *loci.Record) int { return a.CreatedAt.Compare(b.CreatedAt) })
	}
	return nil
}
