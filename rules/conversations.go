package rules

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/loci-memory/loci"
)

// Conversations in, memories out. Without a chat model (or with inference
// off) the rule is: each message from the user becomes one memory about
// the user (a fact, its role kept in its data); messages from the
// assistant, the system or a tool become none. With a chat model the
// model reads the messages and proposes memories, each decided against
// the scope's most similar current memories (infer.go). Either way the
// writes go through the memories API's rules (memWrite), in one
// transaction with the audit entry, and with a session named every
// message is appended to that session's conversation in the same
// transaction. With async the work is queued (events.go).

var _ loci.ConversationService = (*Service)(nil)

// conversations is what the service needs to read conversations: the
// chat model (nil: none) and the longest an add waits for it, and the
// queue of adds asked to run in the background.
type conversations struct {
	model   loci.ChatModel
	timeout time.Duration
	queue   *eventQueue
}

// DefaultChatTimeout is the longest an add of messages waits for the chat
// model (its calls together) unless WithChatModel says otherwise.
const DefaultChatTimeout = 30 * time.Second

// WithChatModel sets the chat model that reads conversations added as
// memories, and the longest one add waits for it, its calls together
// (0: DefaultChatTimeout). Without one, the rule without a model applies.
func WithChatModel(m loci.ChatModel, timeout time.Duration) Option {
	return func(s *Service) {
		if timeout <= 0 {
			timeout = DefaultChatTimeout
		}
		s.conv.model, s.conv.timeout = m, timeout
	}
}

// ChatModel returns the service's chat model (nil when none).
func (s *Service) ChatModel() loci.ChatModel { return s.conv.model }

// whyNoMemory says why a message of role is no memory about the user.
func whyNoMemory(role string) string {
	switch role {
	case loci.MessageRoleAssistant:
		return "an assistant message is not a memory about the user"
	case loci.MessageRoleSystem:
		return "a system message is not a memory about the user"
	default:
		return "a tool message is not a memory about the user"
	}
}

// checkMessages checks an add of messages before anything is read or
// written, and returns it with its expiry resolved against now (a time to
// live counts from the request, whenever the work runs).
func (s *Service) checkMessages(in loci.MessagesInput, now time.Time) (loci.MessagesInput, error) {
	if err := in.Validate(); err != nil {
		return in, err
	}
	for _, f := range []struct{ name, v string }{{"user_id", in.UserID}, {"agent_id", in.AgentID}, {"session_id", in.SessionID}} {
		if f.v != "" {
			if err := loci.RequireText(f.name, f.v, loci.MaxAgentIDBytes); err != nil {
				return in, err
			}
		}
	}
	if _, err := loci.NormalizeMetadata(in.Metadata); err != nil {
		return in, err
	}
	at, err := expiryOf(in.ExpiresAt, in.TTLSeconds, now)
	if err != nil {
		return in, err
	}
	in.TTLSeconds, in.ExpiresAt = nil, nil
	if !at.IsZero() {
		in.ExpiresAt = &at
	}
	return in, nil
}

// AddMessages adds a conversation as memories.
func (s *Service) AddMessages(ctx context.Context, in loci.MessagesInput) (_ *loci.MessagesResult, err error) {
	a, err := s.beginKind(ctx, loci.OpMemoryAddMessages, loci.KindFact, loci.Scope{AgentID: in.AgentID, UserID: in.UserID, SessionID: in.SessionID})
	defer a.end(&err)
	if err != nil {
		return nil, err
	}
	if in, err = s.checkMessages(in, s.now()); err != nil {
		return nil, err
	}
	if in.Async {
		return s.enqueueMessages(ctx, a, in)
	}
	return s.addMessages(ctx, a, in, nil)
}

// addMessages runs an add of messages checked by checkMessages: the model
// reads them first, outside any transaction, when one is configured and
// the request does not turn it off; then the writes and the session's
// messages commit with the audit entry, and with done (a queued event's
// completion) when it is set.
func (s *Service) addMessages(ctx context.Context, a *audited, in loci.MessagesInput, done func(tx loci.Tx, res *loci.MessagesResult) error) (*loci.MessagesResult, error) {
	if in.SessionID != "" && in.UserID == "" {
		// Messages to a user's session are that user's, for the model
		// and the writes alike.
		err := s.store.View(ctx, func(tx loci.Tx) (err error) {
			in.UserID, err = s.sessionUser(ctx, tx, in)
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	var plan *inferred
	inference := &loci.Inference{Mode: loci.InferredByRule}
	if s.conv.model != nil && in.Infer != loci.InferOff {
		var err error
		plan, err = s.infer(ctx, in)
		switch {
		case err == nil:
			inference = &loci.Inference{Mode: loci.InferredByModel, Model: s.conv.model.Model()}
		case in.Infer == loci.InferFallback && loci.ErrorCode(err) == loci.EUNAVAILABLE:
			s.logger.Warn("chat model failed: storing by the rule without a model", "err", err)
			inference = &loci.Inference{Mode: loci.InferredByFallback, Model: s.conv.model.Model(), Reason: loci.ErrorMessage(err)}
		default:
			return nil, err
		}
	}
	var res *loci.MessagesResult
	err := a.update(func(tx loci.Tx) error {
		res = &loci.MessagesResult{Results: []loci.MessageEvent{}, Skipped: []loci.SkippedMessage{}, Inference: inference}
		w := &memWrite{s: s, tx: tx, a: a, ws: loci.WorkspaceFrom(ctx), now: s.now()}
		var err error
		if plan != nil {
			err = plan.apply(ctx, w, in, res)
		} else {
			err = w.addByRule(ctx, in, res)
		}
		if err != nil {
			return err
		}
		if in.SessionID != "" {
			if res.Session, err = s.appendConversation(ctx, w, in); err != nil {
				return err
			}
		}
		if done != nil {
			return done(tx, res)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if res.Created() {
		a.created()
	}
	s.kickEmbedding()
	return res, nil
}

// addByRule applies the rule without a model: each user message becomes
// one memory about the user, the others none.
func (w *memWrite) addByRule(ctx context.Context, in loci.MessagesInput, res *loci.MessagesResult) error {
	for i, m := range in.Messages {
		if m.Role != loci.MessageRoleUser {
			res.Skipped = append(res.Skipped, loci.SkippedMessage{Index: i, Role: m.Role, Reason: whyNoMemory(m.Role)})
			continue
		}
		ev, err := w.addFrom(ctx, memoryOf(in, m.Content, loci.AboutUser), m.Role)
		if err != nil {
			return opError("messages", i, err)
		}
		res.Results = append(res.Results, loci.MessageEvent{Event: ev.Event, ID: ev.ID, Content: m.Content, Kind: ev.Kind,
			Index: loci.Ptr(i), Role: m.Role, PreviousID: ev.Previous})
	}
	return nil
}

// memoryOf is the memory of an add of messages that says content about
// whom (loci.AboutUser: the request's scope; loci.AboutAgent: its agent
// and session, no user).
func memoryOf(in loci.MessagesInput, content, about string) loci.MemoryInput {
	mi := loci.MemoryInput{Content: content, UserID: in.UserID, AgentID: in.AgentID, SessionID: in.SessionID,
		Metadata: in.Metadata, ExpiresAt: in.ExpiresAt}
	if about == loci.AboutAgent {
		mi.UserID = ""
	}
	return mi
}

// addFrom adds one memory as the memories API's add does, noting the
// role of the message it came from ("" for a model's) in its record.
func (w *memWrite) addFrom(ctx context.Context, in loci.MemoryInput, role string) (*loci.MemoryEvent, error) {
	mi, err := w.s.checkInput(in, w.now)
	if err != nil {
		return nil, err
	}
	mi.role = role
	kw, _ := writesOf(mi.Kind)
	// What the add touches is in its scope (a batch's adds may be of
	// several users).
	w.a.touchIn(loci.Scope{AgentID: in.AgentID, UserID: in.UserID, SessionID: in.SessionID})
	ev, err := kw.add(ctx, w, mi)
	if err != nil {
		return nil, err
	}
	w.a.touch(ev.ID)
	return ev, nil
}

// appendConversation appends every message of in to its session, starting
// the session (for in's user) when it does not exist. EINVALID for a new
// session without a user; ECONFLICT for another user's session.
func (s *Service) appendConversation(ctx context.Context, w *memWrite, in loci.MessagesInput) (*loci.SessionAppend, error) {
	id := in.SessionID
	if err := checkSessionID(id); err != nil {
		return nil, err
	}
	if err := w.tx.Lock(ctx, lockName(w.ws, "session", id)); err != nil {
		return nil, err
	}
	rec, err := s.findSession(ctx, w.tx, id)
	created := false
	switch {
	case loci.ErrorCode(err) == loci.ENOTFOUND:
		if in.UserID == "" {
			return nil, loci.Errorf(loci.EINVALID, "session %s does not exist: name user_id to start it", id)
		}
		data, err := json.Marshal(sessionData{Context: json.RawMessage("{}")})
		if err != nil {
			return nil, fmt.Errorf("encode session: %w", err)
		}
		rec = &loci.Record{
			ID: newID(), Workspace: w.ws, Kind: loci.KindSession,
			Scope: loci.Scope{UserID: in.UserID, SessionID: id}, Key: id, Category: sessionCategory,
			SearchText: searchText(""), Data: data, CreatedAt: w.now, UpdatedAt: w.now, Version: 1,
		}
		if err := w.tx.InsertRecord(ctx, rec); err != nil {
			return nil, err
		}
		created = true
	case err != nil:
		return nil, err
	case in.UserID != "" && rec.UserID != in.UserID:
		return nil, loci.Errorf(loci.ECONFLICT, "session %s belongs to another user", id)
	}
	w.a.touch(rec.ID)
	var d sessionData
	if err := json.Unmarshal(rec.Data, &d); err != nil {
		return nil, fmt.Errorf("decode session %s: %w", id, err)
	}
	for _, m := range in.Messages {
		i := d.nextIndex()
		mid, err := s.insertMessage(ctx, w.tx, rec, i, loci.Message{Role: m.Role, Content: m.Content}, w.now)
		if err != nil {
			return nil, err
		}
		w.a.touch(mid)
		d.MessageCount++
		if d.NextIndex > 0 {
			d.NextIndex = i + 1
		}
	}
	next := *rec
	if next.Data, err = json.Marshal(d); err != nil {
		return nil, fmt.Errorf("encode session: %w", err)
	}
	next.UpdatedAt, next.Version = w.now, rec.Version+1
	if err := w.tx.UpdateRecord(ctx, &next, rec.Version); err != nil {
		return nil, err
	}
	return &loci.SessionAppend{SessionID: id, Appended: len(in.Messages), MessageCount: d.MessageCount, Created: created}, nil
}
