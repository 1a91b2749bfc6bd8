package httpapi

import (
	_ "embed"
	"net/http"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/apidoc"
)

//go:generate go run ../internal/apidoc/gen -o openapi.json

// openAPIDocument is the OpenAPI 3.1 document of every route, built from
// the route table (OpenAPI), written by `go generate ./httpapi` and served
// at GET /v1/openapi.json.
//
//go:embed openapi.json
var openAPIDocument []byte

// OpenAPIDocument returns the embedded OpenAPI document.
func OpenAPIDocument() []byte { return append([]byte(nil), openAPIDocument...) }

var _ = addRoutes(openAPIRoutes)

// openAPIRoutes serve the document. It never touches the storage.
func openAPIRoutes() []endpoint {
	return []endpoint{
		{pattern: "GET /v1/openapi.json", handler: (*Server).handleOpenAPI,
			op: loci.OpOpenAPI,
			doc: &apidoc.Op{ID: "openapi", Tag: "operations", NoStorage: true,
				OK: apidoc.Okay("The OpenAPI 3.1 document.", apidoc.Obj{"type": "object"})}},
	}
}

func (s *Server) handleOpenAPI(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	w.Write(openAPIDocument)
}
