package httpapi

import (
	"fmt"
	"net/http"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/apidoc"
)

var _ = addRoutes(searchRoutes)

// searchRoutes is hybrid search across kinds; a bound key names its agent.
func searchRoutes() []endpoint {
	return []endpoint{
		{pattern: "POST /v1/search", handler: (*Server).handleSearch,
			op: loci.OpSearch,
			doc: &apidoc.Op{ID: "search", Tag: "search",
				Desc: "Ranks the records in scope by BM25 and vector similarity fused (reciprocal rank fusion), then by recency and the kind's confidence; " +
					"`retrieval` says whether it ranked by words only (`lexical`: no embedding model) or by meaning and by words (`hybrid`). " +
					"A result's `score` is its relevance, 0-1, not its position: `threshold` drops those below it. " +
					"A query with no word left to search (\"what do you know about me?\") in a user's or an agent's scope answers the scope's " +
					"memories, most important first, each with `match` `scope`. " +
					"Conversation messages gain from the messages next to them (most, the answer after a matching question) and from their " +
					"conversation's best matches; dates a query names (\"on 1 February, 2023\", \"in May\", \"last week\") lift the records " +
					"written then (relative ones from `reference_date`). Every scope field that is set narrows the search to records with exactly that value; `kinds` and `tags` narrow it further; " +
					"filters apply before ranking. A query is text, never query syntax. A record is found lexically as soon as it is written, " +
					"and by vector once its embedding is made (`pending_embeddings`).",
				Body: apidoc.Closed([]string{"query"}, apidoc.Obj{
					"query":      apidoc.Str(fmt.Sprintf("The query text; at most %d bytes.", loci.MaxQueryBytes)),
					"agent_id":   apidoc.Str("Only this agent's records."),
					"user_id":    apidoc.Str("Only this user's records."),
					"session_id": apidoc.Str("Only this session's records."),
					"kinds":      apidoc.Array(apidoc.Ref("Kind"), "Only these kinds."),
					"tags":       apidoc.StrList("Only records carrying every one of these tags."),
					"limit":      apidoc.WithDesc(apidoc.Obj{"type": "integer", "minimum": 0, "maximum": loci.MaxSearchLimit, "default": loci.DefaultSearchLimit}, "The most results; 0 means the default."),
					"explain":    apidoc.Boolean("Explain each result's score."),
					"filters":    apidoc.WithDesc(apidoc.Ref("MemoryFilter"), "Only records the filter selects, applied before ranking."),
					"threshold": apidoc.WithDesc(apidoc.Obj{"type": "number", "minimum": 0, "maximum": 1, "default": 0},
						"Only results whose score (their relevance, 0-1) is at least this; the best `limit` of those are answered."),
					"reference_date": apidoc.WithDesc(apidoc.Obj{"type": "string"}, "The moment the question is asked, RFC 3339 or a date "+
						"(its midnight UTC): relative times in the query (\"10 days ago\", \"last weekend\", \"a couple of months back\") are read "+
						"from it, and recency is measured from it. Default now."),
				}),
				OK: apidoc.Ranked(apidoc.Ref("SearchResult"))}},
	}
}

// handleSearch is hybrid search across kinds: POST /v1/search with a
// loci.SearchQuery body; answers results, count, pending_embeddings and
// retrieval.
func (s *Server) handleSearch(w http.ResponseWriter, r *http.Request) {
	var req loci.SearchQuery
	if err := decode(r, &req); err != nil {
		s.Error(w, r, err)
		return
	}
	res, err := s.SearchService.Search(r.Context(), req)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	okObject(w, http.StatusOK, res, nil)
}
