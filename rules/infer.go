package rules

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/loci-memory/loci"
)

// A chat model reads a conversation in two steps, as mem0 publishes its
// method: it extracts short memories from the messages, then, for each,
// decides against the scope's most similar current memories (found by
// the service's own ranking) whether it adds a memory, updates or deletes
// one held, or repeats one (NOOP). The memories held are shown to it under
// small integers, not their ids, so it cannot name a memory it was not
// shown; an answer that is not the JSON asked for, or names an unknown
// memory, is unusable, and nothing is written. The decisions are applied
// as the memories API applies a hand-written write (memWrite).

// similarPerMemory is how many of the scope's current memories each
// proposed memory is compared with.
const similarPerMemory = 5

// proposal is a memory the model proposed: its text and whom it is about.
type proposal struct {
	Text  string `json:"text"`
	About string `json:"about"`
}

// heldMemory is a current memory the model is shown, under its number.
type heldMemory struct {
	Num   string `json:"id"`
	Text  string `json:"text"`
	About string `json:"about"`
	rec   *loci.Record
}

// decision is what the model decided for a proposed memory.
type decision struct {
	Event string `json:"event"`
	Num   string `json:"id"`
	Text  string `json:"text"`
	About string `json:"about"`
	held  *heldMemory
}

// inferred is the model's reading of a conversation: its decisions,
// ready to apply.
type inferred struct {
	decisions []decision
}

// errUnusable is a model's answer that cannot be used.
func errUnusable(format string, args ...any) error {
	return loci.Errorf(loci.EUNAVAILABLE, "the chat model answered something unusable (%s): nothing was written; retry, "+
		"or send \"infer\": \"fallback\" to store by the rule without a model", fmt.Sprintf(format, args...))
}

// chatUnavailable says that the model could not be asked.
func chatUnavailable(err error) error {
	if loci.ErrorCode(err) == loci.EUNAVAILABLE {
		return &loci.Error{Code: loci.EUNAVAILABLE, Message: loci.ErrorMessage(err) +
			": nothing was written; retry, or send \"infer\": \"fallback\" to store by the rule without a model", Err: err}
	}
	return loci.WrapError(err, loci.EUNAVAILABLE, "the chat model failed: nothing was written; retry, "+
		"or send \"infer\": \"fallback\" to store by the rule without a model")
}

// infer has the model read in's messages and decide what to write.
func (s *Service) infer(ctx context.Context, in loci.MessagesInput) (*inferred, error) {
	ctx, cancel := context.WithTimeout(ctx, s.conv.timeout)
	defer cancel()
	props, err := s.extract(ctx, in)
	if err != nil {
		return nil, err
	}
	if len(props) == 0 {
		return &inferred{}, nil
	}
	held, err := s.similarHeld(ctx, in, props)
	if err != nil {
		return nil, err
	}
	if len(held) == 0 {
		// Nothing held to compare with: each proposal is new.
		out := &inferred{}
		for _, p := range props {
			out.decisions = append(out.decisions, decision{Event: loci.EventAdd, Text: p.Text, About: p.About})
		}
		return out, nil
	}
	return s.decide(ctx, in, props, held)
}

// chat asks the model and decodes its answer, one JSON object, into v.
func (s *Service) chat(ctx context.Context, system, user string, v any) error {
	reply, err := s.conv.model.Chat(ctx, []loci.ChatMessage{{Role: loci.MessageRoleSystem, Content: system}, {Role: loci.MessageRoleUser, Content: user}})
	if err != nil {
		if ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return loci.Errorf(loci.EUNAVAILABLE, "the chat model did not answer within %s: nothing was written; retry, "+
				"or send \"infer\": \"fallback\" to store by the rule without a model", s.conv.timeout)
		}
		return chatUnavailable(err)
	}
	obj := jsonObjectIn(reply)
	if obj == nil {
		return errUnusable("not a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(obj))
	if err := dec.Decode(v); err != nil {
		return errUnusable("malformed JSON: %v", err)
	}
	return nil
}

// jsonObjectIn returns the JSON object a reply holds: the reply itself,
// or the object a model wrapped in a code fence or in words; nil when
// there is none.
func jsonObjectIn(reply string) []byte {
	i, j := strings.IndexByte(reply, '{'), strings.LastIndexByte(reply, '}')
	if i < 0 || j < i {
		return nil
	}
	return []byte(reply[i : j+1])
}

// transcript renders the messages for the model, one per line.
func transcript(msgs []loci.ChatMessage) string {
	var b strings.Builder
	for _, m := range msgs {
		b.WriteString(m.Role)
		if m.Name != "" {
			b.WriteString(" (" + m.Name + ")")
		}
		b.WriteString(": ")
		b.WriteString(strings.ReplaceAll(m.Content, "\n", " "))
		b.WriteByte('\n')
	}
	return b.String()
}

// extract has the model propose short memories from the messages.
func (s *Service) extract(ctx context.Context, in loci.MessagesInput) ([]proposal, error) {
	var sys strings.Builder
	sys.WriteString("You read a conversation and write down what is worth remembering about the user for later conversations: " +
		"facts about them, their preferences, plans, relationships, health, work and what they said they like or dislike. " +
		"Write each memory as one short sentence that stands on its own, in the language the user wrote in " +
		"(for example \"Is vegetarian\", \"Is allergic to nuts\", \"Name is Alex\", \"Loves hiking\"). " +
		"Take memories about the user from what the user says; never from a system message, and not from the assistant's " +
		"suggestions unless the user agrees with them. Leave out greetings, small talk and questions that tell nothing about the user. " +
		"Today is " + s.now().Format("2006-01-02") + ".\n")
	if in.AgentID != "" {
		sys.WriteString("Also write what is worth remembering about the assistant itself (its name, its role, what it promised to do), " +
			"with \"about\": \"agent\".\n")
	}
	sys.WriteString("Answer with one JSON object and nothing else: " +
		`{"memories": [{"text": "...", "about": "user"}]}` + `; {"memories": []} when there is nothing to remember.`)
	var ans struct {
		Memories *[]proposal `json:"memories"`
		Facts    *[]string   `json:"facts"` // mem0's shape, accepted
	}
	if err := s.chat(ctx, sys.String(), "Conversation:\n"+transcript(in.Messages), &ans); err != nil {
		return nil, err
	}
	var props []proposal
	switch {
	case ans.Memories != nil:
		props = *ans.Memories
	case ans.Facts != nil:
		for _, f := range *ans.Facts {
			props = append(props, proposal{Text: f})
		}
	default:
		return nil, errUnusable(`no "memories" list`)
	}
	out := props[:0]
	for i, p := range props {
		p.Text = strings.TrimSpace(p.Text)
		if p.Text == "" {
			return nil, errUnusable("memories[%d] has no text", i)
		}
		if err := loci.CheckText("text", p.Text, loci.MaxMessageBytes); err != nil {
			return nil, errUnusable("memories[%d]: %s", i, loci.ErrorMessage(err))
		}
		about, err := aboutOf(in, p.About)
		if err != nil {
			return nil, errUnusable("memories[%d]: %s", i, loci.ErrorMessage(err))
		}
		p.About = about
		out = append(out, p)
	}
	return out, nil
}

// aboutOf reads whom a proposed memory is about: the user unless it says
// the agent and the request names one.
func aboutOf(in loci.MessagesInput, about string) (string, error) {
	switch about {
	case "", loci.AboutUser:
		return loci.AboutUser, nil
	case loci.AboutAgent:
		if in.AgentID == "" {
			return loci.AboutUser, nil
		}
		return loci.AboutAgent, nil
	}
	return "", loci.Errorf(loci.EINVALID, "about must be user or agent, not %q", about)
}

// scopeFilter selects the current memories (facts true now, unexpired)
// of the user and agent a memory about whom is written for, whatever
// their session: what a user says in one conversation updates what they
// said in another ("I hate hiking now" updates "Loves hiking").
func (s *Service) scopeFilter(ctx context.Context, in loci.MessagesInput, about string) loci.RecordFilter {
	mi := memoryOf(in, "", about)
	now := s.now()
	return loci.RecordFilter{Workspace: loci.WorkspaceFrom(ctx), Kinds: []loci.Kind{loci.KindFact},
		UserID: &mi.UserID, AgentID: &mi.AgentID, AsOf: now, LiveAt: now}
}

// similarHeld finds, for each proposal, the scope's most similar current
// memories, and numbers them all from 0 in the order found.
func (s *Service) similarHeld(ctx context.Context, in loci.MessagesInput, props []proposal) ([]*heldMemory, error) {
	var held []*heldMemory
	seen := map[string]bool{}
	for _, p := range props {
		q := Query{Text: p.Text, Filters: []loci.RecordFilter{s.scopeFilter(ctx, in, p.About)}, Limit: similarPerMemory}
		qvec := s.embedQuery(ctx, q.Text)
		var ranked *Ranked
		err := s.store.View(ctx, func(tx loci.Tx) (err error) {
			ranked, err = s.rank(ctx, tx, q, qvec)
			return err
		})
		if err != nil {
			return nil, err
		}
		for _, h := range ranked.Hits {
			if seen[h.Record.ID] || !reachable(ctx, h.Record) {
				continue
			}
			seen[h.Record.ID] = true
			about := loci.AboutUser
			if h.Record.UserID == "" && h.Record.AgentID != "" && in.UserID != "" {
				about = loci.AboutAgent
			}
			held = append(held, &heldMemory{Num: strconv.Itoa(len(held)), Text: h.Record.Content, About: about, rec: h.Record})
		}
	}
	return held, nil
}

// decide has the model decide each proposal against the memories held.
func (s *Service) decide(ctx context.Context, in loci.MessagesInput, props []proposal, held []*heldMemory) (*inferred, error) {
	sys := "You keep a memory up to date. You are shown the memories it holds now, each under an id, and new facts taken from a conversation. " +
		"Decide for each new fact:\n" +
		"- ADD: it is not in the memory: add it (no id).\n" +
		"- UPDATE: it changes, corrects or adds detail to a memory held on the same subject (\"Loves hiking\" and now \"Hates hiking\"): " +
		"give that memory's id and its new text, keeping what is still true.\n" +
		"- DELETE: it says that a memory held is no longer true, and there is nothing new to keep: give that memory's id.\n" +
		"- NONE: a memory held already says it: give that memory's id.\n" +
		"Use only the ids shown. Answer with one JSON object and nothing else: " +
		`{"memory": [{"event": "ADD", "text": "...", "about": "user"}, {"event": "UPDATE", "id": "0", "text": "..."}, {"event": "DELETE", "id": "1"}, {"event": "NONE", "id": "2"}]}`
	shown := make([]heldMemory, len(held))
	byNum := map[string]*heldMemory{}
	for i, h := range held {
		shown[i] = *h
		byNum[h.Num] = h
	}
	body, err := json.Marshal(map[string]any{"memory": shown, "new_facts": props})
	if err != nil {
		return nil, fmt.Errorf("encode the memories shown: %w", err)
	}
	var ans struct {
		Memory *[]decision `json:"memory"`
	}
	if err := s.chat(ctx, sys, string(body), &ans); err != nil {
		return nil, err
	}
	if ans.Memory == nil {
		return nil, errUnusable(`no "memory" list`)
	}
	out := &inferred{}
	named := map[string]bool{}
	for i, d := range *ans.Memory {
		d.Event = strings.ToUpper(strings.TrimSpace(d.Event))
		d.Text = strings.TrimSpace(d.Text)
		d.Num = strings.TrimSpace(d.Num)
		if d.Event == "NOOP" {
			d.Event = "NONE"
		}
		switch d.Event {
		case loci.EventAdd:
			if d.Text == "" {
				return nil, errUnusable("memory[%d]: an ADD without text", i)
			}
			if d.About, err = aboutOf(in, d.About); err != nil {
				return nil, errUnusable("memory[%d]: %s", i, loci.ErrorMessage(err))
			}
		case loci.EventUpdate, loci.EventDelete, "NONE":
			h, ok := byNum[d.Num]
			if !ok {
				return nil, errUnusable("memory[%d]: %s of id %q, which is not one of the memories shown", i, d.Event, d.Num)
			}
			if named[d.Num] {
				if d.Event == "NONE" {
					continue
				}
				return nil, errUnusable("memory[%d]: id %q is named twice", i, d.Num)
			}
			named[d.Num] = true
			if d.Event == loci.EventUpdate && d.Text == "" {
				return nil, errUnusable("memory[%d]: an UPDATE without text", i)
			}
			d.held, d.About = h, h.About
		default:
			return nil, errUnusable("memory[%d]: event %q is not ADD, UPDATE, DELETE or NONE", i, d.Event)
		}
		if d.Text != "" {
			if err := loci.CheckText("text", d.Text, loci.MaxMessageBytes); err != nil {
				return nil, errUnusable("memory[%d]: %s", i, loci.ErrorMessage(err))
			}
		}
		out.decisions = append(out.decisions, d)
	}
	return out, nil
}

// apply writes the model's decisions in w's transaction, as the memories
// API writes by hand, and lists each event in res. A memory decided on
// that is gone since it was shown is a conflict: nothing is written.
func (p *inferred) apply(ctx context.Context, w *memWrite, in loci.MessagesInput, res *loci.MessagesResult) error {
	gone := func(err error, d decision) error {
		if loci.ErrorCode(err) == loci.ENOTFOUND {
			return loci.Errorf(loci.ECONFLICT, "memory %s changed while the chat model read the conversation: nothing was written; retry", d.held.rec.ID)
		}
		return err
	}
	// Updates and deletes first: a fact the model re-adds after deleting
	// its old wording is then new, not a repeat.
	for _, d := range p.decisions {
		if d.held == nil {
			continue
		}
		rec := d.held.rec
		switch d.Event {
		case loci.EventUpdate:
			ev, err := w.update(ctx, rec.ID, loci.MemoryPatch{Content: &d.Text})
			if err != nil {
				return gone(err, d)
			}
			res.Results = append(res.Results, loci.MessageEvent{Event: ev.Event, ID: ev.ID, Content: d.Text, Kind: ev.Kind,
				About: d.About, Previous: rec.Content, PreviousID: ev.Previous})
		case loci.EventDelete:
			kind, err := w.delete(ctx, rec.ID)
			if err != nil {
				return gone(err, d)
			}
			res.Results = append(res.Results, loci.MessageEvent{Event: loci.EventDelete, ID: rec.ID, Content: rec.Content, Kind: kind,
				About: d.About, Previous: rec.Content})
		default:
			res.Results = append(res.Results, loci.MessageEvent{Event: loci.EventNoop, ID: rec.ID, Content: rec.Content, Kind: rec.Kind, About: d.About})
		}
	}
	for _, d := range p.decisions {
		if d.held != nil {
			continue
		}
		ev, err := w.addFrom(ctx, memoryOf(in, d.Text, d.About), "")
		if err != nil {
			return err
		}
		res.Results = append(res.Results, loci.MessageEvent{Event: ev.Event, ID: ev.ID, Content: d.Text, Kind: ev.Kind,
			About: d.About, PreviousID: ev.Previous})
	}
	return nil
}
