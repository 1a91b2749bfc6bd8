package httpapi

import (
	_ "embed"
	"net/http"
)

//go:generate go run ../internal/apidoc/gen -o openapi.json

// openAPIDocument is the OpenAPI 3.1 document of every route, written by
// internal/apidoc (`go generate ./httpapi`) and served at
// GET /v1/openapi.json.
//
//go:embed openapi.json
var openAPIDocument []byte

// OpenAPIDocument returns the embedded OpenAPI document.
func OpenAPIDocument() []byte { return append([]byte(nil), openAPIDocument...) }

func (s *Server) openAPIRoutes() {
	s.handle("GET /v1/openapi.json", s.handleOpenAPI)
}

func (s *Server) handleOpenAPI(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	w.Write(openAPIDocument)
}
