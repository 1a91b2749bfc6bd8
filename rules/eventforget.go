package rules

import (
	"context"
	"encoding/json"

	"github.com/loci-memory/loci"
)

// The adds queued in the background (events.go) hold what they were
// given and what they wrote: the request holds the messages, and a done
// event's result each memory's content and what an update or delete of
// the model's replaced. So deletion takes them too (docs/rules.md,
// "Deletion is real"): a delete or a forget deletes the events whose
// result names a memory it deleted (or took a past value of), and a forget
// by query the events of its scope whose messages and results hold every
// word, pending or done; deleting an agent deletes the agent's events,
// deleting a user the user's. A pending event goes before it writes what
// was forgotten back; one a worker holds rolls its work back (its finish
// finds no event). A forget takes the events that hold its words before
// it reads the records, so that on a backend whose statements each read
// what is committed (PostgreSQL), an add finishing meanwhile is either
// rolled back or finished before the records are read, and its writes
// forgotten with them.

// forgetEvents deletes the events of workspace ws, among those of the
// scopes given, that holds selects, and returns how many it deleted.
func forgetEvents(ctx context.Context, tx loci.Tx, ws string, scopes []loci.EventFilter, holds func(*loci.QueuedEvent) bool) (int, error) {
	seen := map[string]bool{}
	var ids []string
	for _, f := range scopes {
		f.Workspace = ws
		err := tx.ScanEvents(ctx, f, func(e *loci.QueuedEvent) error {
			if !seen[e.ID] && holds(e) {
				seen[e.ID] = true
				ids = append(ids, e.ID)
			}
			return nil
		})
		if err != nil {
			return 0, err
		}
	}
	if len(ids) == 0 {
		return 0, nil
	}
	return tx.DeleteEventsByID(ctx, ws, ids)
}

// forgetEventsOf deletes the done events of workspace ws whose result
// names one of recs, records deleted (or whose past values were): as
// written, updated, deleted, found already held, or superseded. An add of
// messages writes facts (memoryOf) and changes facts only (scopeFilter),
// so the events are read only for facts.
func forgetEventsOf(ctx context.Context, tx loci.Tx, ws string, recs []*loci.Record) error {
	ids := map[string]bool{}
	var facts []*loci.Record
	for _, r := range recs {
		if r.Kind == loci.KindFact && !ids[r.ID] {
			ids[r.ID] = true
			facts = append(facts, r)
		}
	}
	if len(facts) == 0 {
		return nil
	}
	scopes := eventScopesOf(facts)
	if len(facts) <= narrowEventReads {
		// Only the events whose result's text holds one of the ids are
		// read (a user's week of queued adds may be thousands).
		var narrowed []loci.EventFilter
		for _, f := range scopes {
			for _, r := range facts {
				f.ResultHolds = r.ID
				narrowed = append(narrowed, f)
			}
		}
		scopes = narrowed
	}
	_, err := forgetEvents(ctx, tx, ws, scopes, func(e *loci.QueuedEvent) bool {
		res, ok := eventResult(e)
		if !ok {
			return len(e.Result) > 0 // unreadable: it may name them
		}
		for _, m := range res.Results {
			if ids[m.ID] || ids[m.PreviousID] {
				return true
			}
		}
		return false
	})
	return err
}

// narrowEventReads is how many deleted facts forgetEventsOf reads the
// events naming each of, one read each, before it reads its scopes' events
// whole instead.
const narrowEventReads = 16

// eventScopesOf returns the scopes of the events that may name recs: an
// event writes a memory about its user (with its agent), or, with a
// model, about its agent (no user; any user's event of the agent may
// update or delete it since).
func eventScopesOf(recs []*loci.Record) []loci.EventFilter {
	seen := map[[2]string]bool{}
	var out []loci.EventFilter
	for _, r := range recs {
		var f loci.EventFilter
		var key [2]string
		switch {
		case r.UserID != "":
			f.UserID, key = loci.Ptr(r.UserID), [2]string{"user", r.UserID}
		case r.AgentID != "":
			f.AgentID, key = loci.Ptr(r.AgentID), [2]string{"agent", r.AgentID}
		default:
			f.UserID, f.AgentID, key = loci.Ptr(""), loci.Ptr(""), [2]string{"none"}
		}
		if !seen[key] {
			seen[key] = true
			out = append(out, f)
		}
	}
	return out
}

// eventHoldsTerms returns whether an event holds every term of a query:
// among the words of its messages, and of the memories its result wrote
// and replaced, all together, as a record holds them among all its texts
// (holdsEvery).
func eventHoldsTerms(terms []string) func(*loci.QueuedEvent) bool {
	return func(e *loci.QueuedEvent) bool {
		var texts []string
		var in loci.MessagesInput
		if err := json.Unmarshal(e.Request, &in); err != nil {
			texts = append(texts, string(e.Request)) // matched as the text it is
		}
		for _, m := range in.Messages {
			texts = append(texts, m.Content, m.Name)
		}
		if res, ok := eventResult(e); ok {
			for _, m := range res.Results {
				texts = append(texts, m.Content, m.Previous)
			}
		} else {
			texts = append(texts, string(e.Result))
		}
		return textsHoldEvery(map[string]bool{}, texts, terms)
	}
}

// eventResult decodes a done event's result: false when it has none, or
// one that does not decode.
func eventResult(e *loci.QueuedEvent) (*loci.MessagesResult, bool) {
	if len(e.Result) == 0 {
		return nil, false
	}
	var res loci.MessagesResult
	if err := json.Unmarshal(e.Result, &res); err != nil {
		return nil, false
	}
	return &res, true
}
