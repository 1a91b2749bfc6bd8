package httpclient

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/loci-memory/loci"
)

var (
	_ loci.FactService   = (*Client)(nil)
	_ loci.ReviewService = (*Client)(nil)
)

func factPath(id, sub string) string {
	p := "/v1/facts/" + url.PathEscape(id)
	if sub != "" {
		p += "/" + sub
	}
	return p
}

// needID refuses an empty id before it becomes another route's path.
func needID(id string) error {
	if strings.TrimSpace(id) == "" {
		return loci.Errorf(loci.EINVALID, "id must not be empty")
	}
	return nil
}

func timeText(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// StoreFact stores a fact on the server.
func (c *Client) StoreFact(ctx context.Context, in loci.FactInput) (*loci.Fact, error) {
	var f loci.Fact
	err := c.do(ctx, http.MethodPost, "/v1/facts", factRequest{
		UserID: in.UserID, AgentID: in.AgentID, Category: in.Category, Fact: in.Fact, Keywords: in.Keywords,
		Evidence: in.Evidence, Key: in.Key, ValidAt: timeText(in.ValidAt),
	}, &f)
	return &f, err
}

// factQuery renders the query parameters of a fact listing or search.
func factQuery(q loci.FactQuery) url.Values {
	v := url.Values{}
	set := func(name, value string) {
		if value != "" {
			v.Set(name, value)
		}
	}
	set("user_id", q.UserID)
	set("q", q.Query)
	set("keyword", q.Keyword)
	set("category", q.Category)
	set("as_of", timeText(q.AsOf))
	set("status", q.Status)
	if q.IncludeGlobal {
		v.Set("include_global", "true")
	}
	if q.IncludeHistory {
		v.Set("include_history", "true")
	}
	if q.Explain {
		v.Set("explain", "true")
	}
	if q.Limit != 0 {
		v.Set("limit", strconv.Itoa(q.Limit))
	}
	if q.Offset != 0 {
		v.Set("offset", strconv.Itoa(q.Offset))
	}
	return v
}

// SearchFacts searches facts on the server.
func (c *Client) SearchFacts(ctx context.Context, q loci.FactQuery) (*loci.FactResults, error) {
	var res loci.FactResults
	if err := c.do(ctx, http.MethodGet, "/v1/facts/search?"+factQuery(q).Encode(), nil, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// FactsByKeyword lists facts on the server: one page, and the total.
func (c *Client) FactsByKeyword(ctx context.Context, q loci.FactQuery) ([]*loci.Fact, int, error) {
	var res struct {
		Count int          `json:"count"`
		Facts []*loci.Fact `json:"facts"`
	}
	if err := c.do(ctx, http.MethodGet, "/v1/facts?"+factQuery(q).Encode(), nil, &res); err != nil {
		return nil, 0, err
	}
	return res.Facts, res.Count, nil
}

// factCall sends a request about one fact and decodes the fact answered.
func (c *Client) factCall(ctx context.Context, method, id, sub string, in any) (*loci.Fact, error) {
	if err := needID(id); err != nil {
		return nil, err
	}
	var f loci.Fact
	if err := c.do(ctx, method, factPath(id, sub), in, &f); err != nil {
		return nil, err
	}
	return &f, nil
}

// ValidateFact validates a fact on the server.
func (c *Client) ValidateFact(ctx context.Context, id string) (*loci.Fact, error) {
	return c.factCall(ctx, http.MethodPost, id, "validate", nil)
}

// ContradictFact contradicts a fact on the server.
func (c *Client) ContradictFact(ctx context.Context, id string) (*loci.Fact, error) {
	return c.factCall(ctx, http.MethodPost, id, "contradict", nil)
}

// GetFact reads one fact from the server.
func (c *Client) GetFact(ctx context.Context, id string) (*loci.Fact, error) {
	return c.factCall(ctx, http.MethodGet, id, "", nil)
}

// FactHistory reads every version of a fact's key from the server.
func (c *Client) FactHistory(ctx context.Context, id string) ([]*loci.Fact, error) {
	if err := needID(id); err != nil {
		return nil, err
	}
	var res struct {
		Facts []*loci.Fact `json:"facts"`
	}
	if err := c.do(ctx, http.MethodGet, factPath(id, "history"), nil, &res); err != nil {
		return nil, err
	}
	return res.Facts, nil
}

// InvalidateFact marks a fact no longer true on the server.
func (c *Client) InvalidateFact(ctx context.Context, id string, at time.Time) (*loci.Fact, error) {
	return c.factCall(ctx, http.MethodPost, id, "invalidate", invalidateRequest{At: timeText(at)})
}

// ResolveFact settles a fact's dispute on the server.
func (c *Client) ResolveFact(ctx context.Context, id string, keep bool) (*loci.Fact, error) {
	return c.factCall(ctx, http.MethodPost, id, "resolve", resolveRequest{Keep: &keep})
}

// DeleteFact deletes a fact on the server.
func (c *Client) DeleteFact(ctx context.Context, id string) error {
	if err := needID(id); err != nil {
		return err
	}
	return c.do(ctx, http.MethodDelete, factPath(id, ""), nil, nil)
}

// ReviewQueue reads one page of a user's review queue from the server.
func (c *Client) ReviewQueue(ctx context.Context, q loci.ReviewQuery) ([]*loci.ReviewItem, int, error) {
	if strings.TrimSpace(q.UserID) == "" {
		return nil, 0, loci.Errorf(loci.EINVALID, "user_id must not be empty")
	}
	v := url.Values{}
	if q.Limit != 0 {
		v.Set("limit", strconv.Itoa(q.Limit))
	}
	if q.Offset != 0 {
		v.Set("offset", strconv.Itoa(q.Offset))
	}
	var res struct {
		Count int                `json:"count"`
		Items []*loci.ReviewItem `json:"items"`
	}
	if err := c.do(ctx, http.MethodGet, "/v1/users/"+url.PathEscape(q.UserID)+"/review?"+v.Encode(), nil, &res); err != nil {
		return nil, 0, err
	}
	return res.Items, res.Count, nil
}
