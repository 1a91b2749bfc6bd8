package rules

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"

	"github.com/loci-memory/loci"
)

// What a forget matches ("forget that I said X"; docs/rules.md, "Deletion is
// real; the audit log keeps that it happened"). A record holds the words when
// any text it holds and answers has them: its content and indexed terms, its
// key, tags and action type, and every text of its data that came from a
// client: a session's context, a fact's evidence, an episode's context,
// outcome details and feedback, a preference's value and context, a note's or
// working entry's value, with the keys and numbers of any JSON object in them.
// The data fields the rules keep for themselves (bookkeeping: times, links,
// counts and loci's own vocabulary) are not the client's words and match
// nothing, so forgetting "user" or "explicit" does not take every message or
// every explicit preference.

// bookkeeping names the top-level data fields whose values loci writes
// itself, never the client: a forget does not look in them.
var bookkeeping = map[string]bool{
	"learned_from": true, "first_observed": true, "source": true, "last_used_at": true, // preference
	"role":         true,                                                                   // message
	"validated_at": true, "last_decay_at": true, "superseded_by": true, "supersedes": true, // fact
}

// recordTexts returns the texts a record holds and answers, for a forget
// to match against.
func recordTexts(r *loci.Record) []string {
	out := []string{r.Content, r.Key, r.ActionType}
	out = append(out, r.Tags...)
	if len(bytes.TrimSpace(r.Data)) == 0 {
		return out
	}
	dec := json.NewDecoder(bytes.NewReader(r.Data))
	dec.UseNumber()
	var data any
	if err := dec.Decode(&data); err != nil {
		// Data that is not JSON is matched as the text it is.
		return append(out, string(r.Data))
	}
	top, ok := data.(map[string]any)
	if !ok {
		return jsonTexts(out, data)
	}
	for k, v := range top {
		if bookkeeping[k] {
			continue
		}
		switch v := v.(type) {
		case string:
			out = append(out, v)
		case map[string]any, []any:
			out = jsonTexts(out, v)
		}
		// A top-level number or boolean is the rules' own (a count, a
		// score, a flag).
	}
	return out
}

// jsonTexts appends every text of a client's JSON value: strings,
// numbers and object keys, at any depth.
func jsonTexts(out []string, v any) []string {
	switch v := v.(type) {
	case string:
		out = append(out, v)
	case json.Number:
		out = append(out, v.String())
	case map[string]any:
		for k, x := range v {
			out = append(jsonTexts(out, x), k)
		}
	case []any:
		for _, x := range v {
			out = jsonTexts(out, x)
		}
	}
	return out
}

// holdsEvery reports whether a record holds every term: among its indexed
// terms (SearchText is already analyzed: its words are compared as they
// are, never stemmed a second time, which would turn "expens" into
// "expen") or the terms of any text it holds and answers (recordTexts).
func holdsEvery(r *loci.Record, terms []string) bool {
	have := map[string]bool{}
	for _, t := range strings.Fields(r.SearchText) {
		have[t] = true
	}
	return textsHoldEvery(have, recordTexts(r), terms)
}

// textsHoldEvery reports whether every term is among have and the terms
// of texts, all together (have gains those).
func textsHoldEvery(have map[string]bool, texts []string, terms []string) bool {
	for _, text := range texts {
		for _, t := range contentTerms(text) {
			have[t] = true
		}
	}
	for _, t := range terms {
		if !have[t] {
			return false
		}
	}
	return true
}

// agentScopedMatches returns the agents' own records (every record of an
// agent and no user: notes, blocks and passages, and the facts a chat
// model wrote about an agent) that hold every term, of every agent of the
// context's workspace (a forget refuses keys bound to one agent), and
// those that do not but keep past versions (versioned), whose versions
// are matched next (pastMatches). Each record is read once, streamed.
func agentScopedMatches(ctx context.Context, tx loci.Tx, terms []string) (found, versioned []*loci.Record, _ error) {
	noUser := ""
	f := loci.RecordFilter{Workspace: loci.WorkspaceFrom(ctx), UserID: &noUser, Order: loci.OrderCreatedAsc}
	err := tx.ScanRecords(ctx, f, func(r *loci.Record) error {
		switch {
		case r.AgentID == "":
			// A global fact is no agent's memory.
		case holdsEvery(r, terms):
			found = append(found, r)
		case keepsVersions(r):
			versioned = append(versioned, r)
		}
		return nil
	})
	return found, versioned, err
}

// keepsVersions reports whether r may keep past versions: a record is
// written at version 1, and each version it keeps is one it has passed.
func keepsVersions(r *loci.Record) bool { return r.Version > 1 }

// pastVersion is a past version of a record that a forget matched.
type pastVersion struct {
	rec *loci.Record
	v   loci.RecordVersion
}

// memory is the past version as a forget answers it: the record as it
// was then, marked History.
func (p pastVersion) memory() *loci.UserMemory {
	m := userMemoryOf(p.rec)
	m.Content, m.Data, m.Metadata, m.UpdatedAt, m.Version = p.v.Content, p.v.Data, p.v.Metadata, p.v.UpdatedAt, p.v.Version
	m.History = true
	return m
}

// pastMatches returns the kept versions of recs that hold every term: in
// the text the version kept (its content and data) or what the record
// still holds of it (its key, tags, action type).
func pastMatches(ctx context.Context, tx loci.Tx, recs []*loci.Record, terms []string) ([]pastVersion, error) {
	var out []pastVersion
	for _, r := range recs {
		vs, err := tx.ListVersions(ctx, r.ID)
		if err != nil {
			return nil, err
		}
		for _, v := range vs {
			was := *r
			was.Content, was.Data, was.SearchText = v.Content, v.Data, ""
			if holdsEvery(&was, terms) {
				out = append(out, pastVersion{rec: r, v: v})
			}
		}
	}
	return out, nil
}
