package httpapi

import (
	"context"
	"net/http"

	"github.com/loci-memory/loci"
)

var _ loci.SearchService = (*Client)(nil)

func (s *Server) searchRoutes() {
	s.handle("POST /v1/search", s.handleSearch)
}

// handleSearch is hybrid search across kinds: POST /v1/search with a
// loci.SearchQuery body; answers results, count and pending_embeddings.
func (s *Server) handleSearch(w http.ResponseWriter, r *http.Request) {
	var req loci.SearchQuery
	if err := decode(w, r, &req); err != nil {
		s.Error(w, r, err)
		return
	}
	res, err := s.svc.Search(r.Context(), req)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	ok(w, http.StatusOK, map[string]any{
		"count":              len(res.Results),
		"results":            res.Results,
		"pending_embeddings": res.PendingEmbeddings,
	})
}

// Search runs a hybrid search on the server.
func (c *Client) Search(ctx context.Context, q loci.SearchQuery) (*loci.SearchResults, error) {
	var res loci.SearchResults
	if err := c.do(ctx, http.MethodPost, "/v1/search", q, &res); err != nil {
		return nil, err
	}
	return &res, nil
}
