package memory

import (
	"encoding/json"
	"regexp"
	"sort"
	"strings"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/analysis"
	"github.com/loci-memory/loci/index"
	"github.com/loci-memory/loci/retrieval"
)

// speakerOf names who said r: a conversation message's role ("user",
// "assistant", or a speaker's name), "" for any other record.
func speakerOf(r *loci.Record) string {
	if !isMessage(r) || len(r.Data) == 0 {
		return ""
	}
	var d struct {
		Role string `json:"role"`
	}
	if json.Unmarshal(r.Data, &d) != nil {
		return ""
	}
	return d.Role
}

// userRole is the role of the user's messages: the user's id names them
// too.
const userRole = "user"

// participantOf returns the analysed terms that name the participant a
// candidate belongs to: a message's speaker (its role or name, and for
// the user's messages the user's id), or the user any other record is
// about (its scope's user). names caches the analysis of each name.
func participantOf(d *index.Doc, names map[string][]string) []string {
	terms := func(name string) []string {
		t, ok := names[name]
		if !ok {
			t = analysis.Terms(name)
			names[name] = t
		}
		return t
	}
	if d.Speaker != "" {
		t := terms(d.Speaker)
		if strings.EqualFold(d.Speaker, userRole) && d.Meta.UserID != "" {
			t = append(t[:len(t):len(t)], terms(d.Meta.UserID)...)
		}
		return t
	}
	if d.Meta.UserID != "" {
		return terms(d.Meta.UserID)
	}
	return nil
}

// preferParticipants re-scores the lexical list for a query that names
// participants (see RankingParams.ParticipantBoost): the score of each
// candidate that belongs to a named participant is multiplied by 1 +
// boost, and that of each other candidate that holds a name of one (holds
// says which query terms each candidate holds: index.Result.Holds, asked
// only then) by 1 + mention. The query terms (at most 64) name a participant when one of
// the candidates belongs to it. Nothing changes when the query names
// none, or when every candidate belongs to one it names (preferring
// them all says nothing). Best first, ties on id.
func preferParticipants(terms []string, lex []retrieval.Hit, docs map[string]*index.Doc, holds func() map[string]uint64, boost, mention float64) []retrieval.Hit {
	if len(terms) < 2 || !anyParticipant(lex, docs) {
		return lex
	}
	at := make(map[string]int, len(terms))
	for i, t := range terms[:min(len(terms), 64)] {
		at[t] = i
	}
	names := map[string][]string{}
	own := make([]uint64, len(lex)) // the query terms naming each candidate's participant
	var named uint64
	others := false
	for j, h := range lex {
		d := docs[h.ID]
		if d == nil {
			continue
		}
		p := participantOf(d, names)
		for _, t := range p {
			if i, ok := at[t]; ok {
				own[j] |= 1 << i
			}
		}
		named |= own[j]
		others = others || len(p) > 0 && own[j] == 0
	}
	if named == 0 || !others {
		return lex
	}
	var held map[string]uint64
	if mention > 0 && holds != nil {
		held = holds()
	}
	out := make([]retrieval.Hit, len(lex))
	for j, h := range lex {
		switch {
		case own[j] != 0:
			h.Score *= 1 + boost
		case held[h.ID]&named != 0:
			h.Score *= 1 + mention
		}
		out[j] = h
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// anyParticipant reports whether a candidate belongs to a participant:
// what preferParticipants needs before it looks further.
func anyParticipant(lex []retrieval.Hit, docs map[string]*index.Doc) bool {
	for _, h := range lex {
		if d := docs[h.ID]; d != nil && (d.Speaker != "" || d.Meta.UserID != "") {
			return true
		}
	}
	return false
}

// recallRE finds the phrases with which a query recalls what the
// assistant said: "you said", "you recommended", "did you mention", "our
// previous conversation", "remind me".
var recallRE = regexp.MustCompile(`(?i)\byou\s+(?:\w+ed|said|told|wrote|gave|made|sent|showed|taught|built|chose|found|put)\b|` +
	`\bdid\s+you\s+\w+|\bour\s+(?:previous|last|earlier|past)\s+(?:conversation|chat|discussion)s?\b|\bremind\s+me\b`)

// recallsAssistant reports whether a query asks what the assistant said
// in an earlier conversation ("remind me of the restaurant you
// recommended"): then the assistant prior (RankingParams.AssistantWeight)
// does not hold.
func recallsAssistant(query string) bool {
	return recallRE.MatchString(query)
}
