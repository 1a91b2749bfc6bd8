package httpclient

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/loci-memory/loci"
)

// The client of the memories API (docs/api.md, "The memories API over every
// kind"): loci.MemoryService and the filtered listing, over the wire.

var _ loci.MemoryService = (*Client)(nil)

func memoryPath(id, sub string) string {
	p := "/v1/memories/" + url.PathEscape(id)
	if sub != "" {
		p += "/" + sub
	}
	return p
}

// AddMemory adds a memory on the server (POST /v1/memories).
func (c *Client) AddMemory(ctx context.Context, in loci.MemoryInput) (*loci.MemoryEvent, error) {
	var ev loci.MemoryEvent
	if err := c.do(ctx, http.MethodPost, "/v1/memories", in, &ev); err != nil {
		return nil, err
	}
	return &ev, nil
}

// GetMemory returns one memory of any kind from the server.
func (c *Client) GetMemory(ctx context.Context, id string) (*loci.UserMemory, error) {
	if err := needID(id); err != nil {
		return nil, err
	}
	var m loci.UserMemory
	if err := c.do(ctx, http.MethodGet, memoryPath(id, ""), nil, &m); err != nil {
		return nil, err
	}
	return &m, nil
}

// UpdateMemory changes a memory on the server (PATCH /v1/memories/{id}).
func (c *Client) UpdateMemory(ctx context.Context, id string, p loci.MemoryPatch) (*loci.MemoryEvent, error) {
	if err := needID(id); err != nil {
		return nil, err
	}
	if p.NoExpiry && p.ExpiresAt != nil {
		return nil, errNoExpiryAndTime()
	}
	var ev loci.MemoryEvent
	if err := c.do(ctx, http.MethodPatch, memoryPath(id, ""), patchWire(p, nil), &ev); err != nil {
		return nil, err
	}
	return &ev, nil
}

// errNoExpiryAndTime refuses a patch that both removes and sets the time
// to live, as the service does.
func errNoExpiryAndTime() error {
	return loci.Errorf(loci.EINVALID, "expires_at null removes the time to live: set it or ttl_seconds, not both")
}

// patchWire is a patch as the server reads it, with its id when one is
// given (a batch's update): NoExpiry is expires_at null.
func patchWire(p loci.MemoryPatch, id *string) any {
	if !p.NoExpiry {
		if id != nil {
			return loci.MemoryUpdate{ID: *id, MemoryPatch: p}
		}
		return p
	}
	fields := map[string]any{"expires_at": nil}
	if p.Content != nil {
		fields["content"] = p.Content
	}
	if p.Tags != nil {
		fields["tags"] = p.Tags
	}
	if p.TTLSeconds != nil {
		fields["ttl_seconds"] = p.TTLSeconds
	}
	if p.Metadata != nil {
		fields["metadata"] = p.Metadata
	}
	if id != nil {
		fields["id"] = *id
	}
	return fields
}

// DeleteMemory deletes a memory of any kind on the server.
func (c *Client) DeleteMemory(ctx context.Context, id string) error {
	if err := needID(id); err != nil {
		return err
	}
	return c.do(ctx, http.MethodDelete, memoryPath(id, ""), nil, nil)
}

// MemoryHistory returns every value a memory has had, newest first.
func (c *Client) MemoryHistory(ctx context.Context, id string) ([]loci.MemoryVersion, error) {
	if err := needID(id); err != nil {
		return nil, err
	}
	var res struct {
		Versions []loci.MemoryVersion `json:"versions"`
	}
	if err := c.do(ctx, http.MethodGet, memoryPath(id, "history"), nil, &res); err != nil {
		return nil, err
	}
	return res.Versions, nil
}

// BatchMemories applies a batch on the server, in one transaction.
func (c *Client) BatchMemories(ctx context.Context, b loci.MemoryBatch) ([]loci.MemoryEvent, error) {
	var res struct {
		Results []loci.MemoryEvent `json:"results"`
	}
	body := struct {
		Add    []loci.MemoryInput `json:"add,omitempty"`
		Update []any              `json:"update,omitempty"`
		Delete []string           `json:"delete,omitempty"`
	}{Add: b.Add, Delete: b.Delete}
	for i, u := range b.Update {
		if u.NoExpiry && u.ExpiresAt != nil {
			return nil, loci.Errorf(loci.EINVALID, "update[%d]: %s", i, loci.ErrorMessage(errNoExpiryAndTime()))
		}
		body.Update = append(body.Update, patchWire(u.MemoryPatch, &u.ID))
	}
	if err := c.do(ctx, http.MethodPost, "/v1/memories/batch", body, &res); err != nil {
		return nil, err
	}
	return res.Results, nil
}

// ListMemories returns the memories q selects from the server, newest
// first, and how many match (GET /v1/memories).
func (c *Client) ListMemories(ctx context.Context, q loci.MemoryQuery) ([]*loci.UserMemory, int, error) {
	v := url.Values{}
	for name, val := range map[string]string{"agent_id": q.AgentID, "user_id": q.UserID, "session_id": q.SessionID, "task_id": q.TaskID} {
		if val != "" {
			v.Set(name, val)
		}
	}
	if len(q.Kinds) > 0 {
		kinds := make([]string, len(q.Kinds))
		for i, k := range q.Kinds {
			kinds[i] = string(k)
		}
		v.Set("kind", strings.Join(kinds, ","))
	}
	if !q.Before.IsZero() {
		v.Set("before", q.Before.UTC().Format(time.RFC3339Nano))
	}
	if !q.After.IsZero() {
		v.Set("after", q.After.UTC().Format(time.RFC3339Nano))
	}
	if q.Filters != nil {
		b, err := json.Marshal(q.Filters)
		if err != nil {
			return nil, 0, fmt.Errorf("encode filters: %w", err)
		}
		v.Set("filters", string(b))
	}
	if q.Limit > 0 {
		v.Set("limit", strconv.Itoa(q.Limit))
	}
	if q.Offset > 0 {
		v.Set("offset", strconv.Itoa(q.Offset))
	}
	path := "/v1/memories"
	if len(v) > 0 {
		path += "?" + v.Encode()
	}
	var res struct {
		Count    int                `json:"count"`
		Memories []*loci.UserMemory `json:"memories"`
	}
	if err := c.do(ctx, http.MethodGet, path, nil, &res); err != nil {
		return nil, 0, err
	}
	return res.Memories, res.Count, nil
}
