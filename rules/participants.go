package rules

import (
	"encoding/json"
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
// them all says nothing). What a candidate's session adds to its score
// (parts: retrieval.Converse's) is not multiplied: it says how well the
// conversation matches, not who said what. Best first, ties on id.
func preferParticipants(terms []string, lex []retrieval.Hit, parts map[string]retrieval.Parts, docs map[string]*index.Doc, holds func() map[string]uint64, boost, mention float64) []retrieval.Hit {
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
		session := parts[h.ID].Session
		switch {
		case own[j] != 0:
			h.Score = (h.Score-session)*(1+boost) + session
		case held[h.ID]&named != 0:
			h.Score = (h.Score-session)*(1+mention) + session
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

// recallsAssistant reports whether a query asks what the assistant said
// in an earlier conversation: then the assistant prior
// (RankingParams.AssistantWeight) does not hold. Such a query names the
// assistant, or says "you" and a past verb ("you said", "the trail you
// recommended"), "did you …", "our previous conversation" (or last,
// earlier, past; chat, discussion) or "remind me".
func recallsAssistant(query string) bool {
	var prev2, prev string
	for w := range lowerWords(query) {
		switch {
		case prev == "you" && (pastVerbs[w] || len(w) > 4 && strings.HasSuffix(w, "ed")),
			prev2 == "did" && prev == "you",
			prev == "remind" && w == "me",
			w == loci.MessageRoleAssistant,
			prev2 == "our" && earlier[prev] && chatWords[strings.TrimSuffix(w, "s")]:
			return true
		}
		prev2, prev = prev, w
	}
	return false
}

var (
	pastVerbs = map[string]bool{"said": true, "told": true, "wrote": true, "gave": true, "made": true, "sent": true, "showed": true, "taught": true, "built": true, "chose": true, "found": true, "put": true}
	earlier   = map[string]bool{"previous": true, "last": true, "earlier": true, "past": true}
	chatWords = map[string]bool{"conversation": true, "chat": true, "discussion": true}
)

// lowerWords yields the words of s (runs of ASCII letters), lower-cased.
func lowerWords(s string) func(yield func(string) bool) {
	return func(yield func(string) bool) {
		var buf [32]byte
		for i := 0; i < len(s); {
			if !isLetter(s[i]) {
				i++
				continue
			}
			j := i
			for j < len(s) && isLetter(s[j]) {
				j++
			}
			w := buf[:0]
			if j-i <= len(buf) {
				for k := i; k < j; k++ {
					w = append(w, s[k]|0x20)
				}
			}
			if !yield(string(w)) {
				return
			}
			i = j
		}
	}
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
