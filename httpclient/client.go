package httpclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"time"

	"github.com/loci-memory/loci"
)

var (
	_ loci.NoteService   = (*Client)(nil)
	_ loci.SearchService = (*Client)(nil)
)

// Client talks to a running loci server and implements the same service
// interfaces as the local rules.Service, so the CLI can use either.
type Client struct {
	BaseURL string
	Key     string // API key, sent as a bearer token when set
	HTTP    *http.Client
}

// NewClient returns a client for the server at baseURL.
func NewClient(baseURL, key string) *Client {
	return &Client{BaseURL: strings.TrimRight(baseURL, "/"), Key: key, HTTP: &http.Client{Timeout: 30 * time.Second}}
}

// do sends a request and decodes a success body into out; an error body
// becomes the domain error it describes.
func (c *Client) do(ctx context.Context, method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return fmt.Errorf("encode request: %w", err)
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.BaseURL+path, body)
	if err != nil {
		return loci.Errorf(loci.EINVALID, "bad server URL: %v", err)
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.Key != "" {
		req.Header.Set("Authorization", "Bearer "+c.Key)
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("%s %s: %w", method, path, ctx.Err())
		}
		return &UnreachableError{URL: c.BaseURL, Err: err}
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("read response: %w", err)
	}
	if resp.StatusCode >= 400 {
		var e struct {
			Error string `json:"error"`
			Code  string `json:"code"`
		}
		if json.Unmarshal(raw, &e) != nil || e.Error == "" {
			return fmt.Errorf("%s %s: status %d", method, path, resp.StatusCode)
		}
		if e.Code == "" {
			e.Code = loci.CodeOf(resp.StatusCode)
		}
		return &loci.Error{Code: e.Code, Message: e.Error}
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			return fmt.Errorf("decode response: %w", err)
		}
	}
	return nil
}

// UnreachableError is a request that got no answer from the server: it
// is not running, the address is wrong, or the network failed.
type UnreachableError struct {
	URL string // the server's base URL
	Err error  // what the HTTP client reported
}

// Error says which server could not be reached and why, in a few words:
// "cannot reach loci at http://127.0.0.1:8420: connection refused; is
// `loci serve` running?".
func (e *UnreachableError) Error() string {
	return fmt.Sprintf("cannot reach loci at %s: %s; is `loci serve` running?", e.URL, unreachableReason(e.Err))
}

func (e *UnreachableError) Unwrap() error { return e.Err }

// unreachableReason names why a request got no answer.
func unreachableReason(err error) string {
	var dns *net.DNSError
	var ne net.Error
	var ue *url.Error
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET):
		return "connection reset"
	case errors.As(err, &dns):
		return "cannot resolve host " + dns.Name
	case errors.As(err, &ne) && ne.Timeout():
		return "no answer in time"
	case errors.As(err, &ue):
		return ue.Err.Error()
	}
	return err.Error()
}

func notePath(agentID, key string) string {
	p := "/v1/agents/" + url.PathEscape(agentID) + "/notes"
	if key != "" {
		p += "/" + url.PathEscape(key)
	}
	return p
}

// Remember creates or updates a note on the server.
func (c *Client) Remember(ctx context.Context, agentID, key string, value json.RawMessage) (*loci.RememberResult, error) {
	if strings.TrimSpace(agentID) == "" || strings.TrimSpace(key) == "" {
		return nil, loci.Errorf(loci.EINVALID, "agent_id and key must not be empty")
	}
	var res loci.RememberResult
	err := c.do(ctx, http.MethodPut, notePath(agentID, key), rememberRequest{Value: value}, &res)
	return &res, err
}

// Recall returns one note from the server.
func (c *Client) Recall(ctx context.Context, agentID, key string) (*loci.Note, error) {
	if strings.TrimSpace(agentID) == "" || strings.TrimSpace(key) == "" {
		return nil, loci.Errorf(loci.EINVALID, "agent_id and key must not be empty")
	}
	var n loci.Note
	err := c.do(ctx, http.MethodGet, notePath(agentID, key), nil, &n)
	return &n, err
}

// ListNotes returns one page of the agent's notes from the server, and
// how many notes the agent has.
func (c *Client) ListNotes(ctx context.Context, agentID string, limit, offset int) ([]*loci.Note, int, error) {
	if strings.TrimSpace(agentID) == "" {
		return nil, 0, loci.Errorf(loci.EINVALID, "agent_id must not be empty")
	}
	if limit <= 0 {
		limit = loci.DefaultListLimit
	}
	var res struct {
		Count    int          `json:"count"`
		Memories []*loci.Note `json:"memories"`
	}
	path := fmt.Sprintf("%s?limit=%d&offset=%d", notePath(agentID, ""), min(limit, loci.MaxListLimit), max(offset, 0))
	if err := c.do(ctx, http.MethodGet, path, nil, &res); err != nil {
		return nil, 0, err
	}
	return res.Memories, res.Count, nil
}

// RecallAll returns every note of the agent from the server.
func (c *Client) RecallAll(ctx context.Context, agentID string) ([]*loci.Note, error) {
	if strings.TrimSpace(agentID) == "" {
		return nil, loci.Errorf(loci.EINVALID, "agent_id must not be empty")
	}
	// The listing is paged: read pages of loci.MaxListLimit until count is
	// reached.
	notes := []*loci.Note{}
	for {
		var res struct {
			Count    int          `json:"count"`
			Memories []*loci.Note `json:"memories"`
		}
		path := fmt.Sprintf("%s?limit=%d&offset=%d", notePath(agentID, ""), loci.MaxListLimit, len(notes))
		if err := c.do(ctx, http.MethodGet, path, nil, &res); err != nil {
			return nil, err
		}
		notes = append(notes, res.Memories...)
		if len(res.Memories) == 0 || len(notes) >= res.Count {
			return notes, nil
		}
	}
}

// Forget deletes a note on the server.
func (c *Client) Forget(ctx context.Context, agentID, key string) error {
	if strings.TrimSpace(agentID) == "" || strings.TrimSpace(key) == "" {
		return loci.Errorf(loci.EINVALID, "agent_id and key must not be empty")
	}
	return c.do(ctx, http.MethodDelete, notePath(agentID, key), nil, nil)
}

// History returns a note's versions from the server.
func (c *Client) History(ctx context.Context, agentID, key string) ([]loci.NoteVersion, error) {
	if strings.TrimSpace(agentID) == "" || strings.TrimSpace(key) == "" {
		return nil, loci.Errorf(loci.EINVALID, "agent_id and key must not be empty")
	}
	var res struct {
		Versions []loci.NoteVersion `json:"versions"`
	}
	err := c.do(ctx, http.MethodGet, notePath(agentID, key)+"/history", nil, &res)
	return res.Versions, err
}

// Search runs a hybrid search on the server.
func (c *Client) Search(ctx context.Context, q loci.SearchQuery) (*loci.SearchResults, error) {
	var res loci.SearchResults
	if err := c.do(ctx, http.MethodPost, "/v1/search", q, &res); err != nil {
		return nil, err
	}
	return &res, nil
}
