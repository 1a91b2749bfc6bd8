package httpapi

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

// The client of the memories door (API.md v1.2): loci.MemoryService and the
// filtered listing, over the wire.

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
	var ev loci.MemoryEvent
	if err := c.do(ctx, http.MethodPatch, memoryPath(id, ""), p, &ev); err != nil {
		return nil, err
	}
	return &ev, nil
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
	if err := c.do(ctx, http.MethodPost, "/v1/memories/batch", b, &res); err != nil {
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
