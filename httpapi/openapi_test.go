package httpapi_test

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/loci-memory/loci/httpapi"
	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/rules"
)

func openAPIDoc(t *testing.T) map[string]any {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(httpapi.OpenAPIDocument(), &doc); err != nil {
		t.Fatalf("openapi.json does not parse: %v", err)
	}
	return doc
}

func TestOpenAPIDocument(t *testing.T) {
	doc := openAPIDoc(t)
	t.Run("Version", func(t *testing.T) {
		if v, _ := doc["openapi"].(string); !strings.HasPrefix(v, "3.1.") {
			t.Errorf("openapi = %q, want 3.1.x", v)
		}
		if d, _ := doc["jsonSchemaDialect"].(string); d != "https://json-schema.org/draft/2020-12/schema" {
			t.Errorf("jsonSchemaDialect = %q", d)
		}
	})
	t.Run("UpToDate", func(t *testing.T) {
		want, err := httpapi.OpenAPI()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(httpapi.OpenAPIDocument(), want) {
			t.Errorf("httpapi/openapi.json is stale: run `go generate ./httpapi`")
		}
	})
	t.Run("RefsResolve", func(t *testing.T) {
		found := map[string]string{}
		refs(doc, "#", found)
		if len(found) == 0 {
			t.Fatal("no $ref in the document")
		}
		c := schemaChecker{doc: doc}
		for at, ref := range found {
			if _, err := c.resolve(ref); err != nil {
				t.Errorf("%s: %v", at, err)
			}
		}
	})
	t.Run("Operations", func(t *testing.T) {
		ids := map[string]string{}
		declared := map[string]bool{}
		for _, tag := range doc["tags"].([]any) {
			declared[tag.(map[string]any)["name"].(string)] = true
		}
		for path, item := range doc["paths"].(map[string]any) {
			for method, o := range item.(map[string]any) {
				op := o.(map[string]any)
				where := strings.ToUpper(method) + " " + path
				id, _ := op["operationId"].(string)
				if id == "" {
					t.Errorf("%s: no operationId", where)
				} else if prev, dup := ids[id]; dup {
					t.Errorf("%s: operationId %q also names %s", where, id, prev)
				}
				ids[id] = where
				for _, tag := range op["tags"].([]any) {
					if !declared[tag.(string)] {
						t.Errorf("%s: tag %q is not declared", where, tag)
					}
				}
				has2xx := false
				for status := range op["responses"].(map[string]any) {
					has2xx = has2xx || strings.HasPrefix(status, "2")
				}
				if !has2xx {
					t.Errorf("%s: no success response", where)
				}
				pol, ok := httpapi.PolicyOf(where)
				if !ok {
					t.Errorf("%s: not in the route table", where)
				}
				_, public := op["security"]
				if public != (pol.Role == "") {
					t.Errorf("%s: security override = %v, want it exactly for public routes (role %q)", where, public, pol.Role)
				}
				if role := string(pol.Role); op["x-loci-role"] != role && !(role == "" && op["x-loci-role"] == "public") {
					t.Errorf("%s: x-loci-role = %v, the route table says %q", where, op["x-loci-role"], role)
				}
				if op["x-loci-agent-binding"] != pol.Agent.String() {
					t.Errorf("%s: x-loci-agent-binding = %v, the route table says %s", where, op["x-loci-agent-binding"], pol.Agent)
				}
			}
		}
	})
}

func TestOpenAPIServed(t *testing.T) {
	// Public: served without a key even when authentication is required.
	h := httpapi.NewServer(rules.New(testdb.OpenSQLite(t)), slog.New(slog.NewTextHandler(io.Discard, nil)), httpapi.WithAuth(true))
	for _, tc := range []struct {
		name       string
		method     string
		wantStatus int
	}{
		{"OK", "GET", http.StatusOK},
		{"ErrMethod", "POST", http.StatusMethodNotAllowed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(tc.method, "/v1/openapi.json", nil))
			if rec.Code != tc.wantStatus {
				t.Fatalf("status = %d, want %d", rec.Code, tc.wantStatus)
			}
			if tc.wantStatus != http.StatusOK {
				return
			}
			if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
				t.Errorf("content type = %q, want application/json", ct)
			}
			if !bytes.Equal(rec.Body.Bytes(), httpapi.OpenAPIDocument()) {
				t.Errorf("body is not the embedded document")
			}
		})
	}
}

// TestSchemaChecker shows the checker used below catches what it should.
func TestSchemaChecker(t *testing.T) {
	doc := mustJSON([]byte(`{"components": {"schemas": {
		"Success": {"type": "object", "required": ["success"], "properties": {"success": {"const": true}}},
		"Note": {"type": "object", "required": ["key", "n"], "properties": {
			"key": {"type": "string"}, "n": {"type": "integer"}, "tags": {"type": ["array", "null"], "items": {"type": "string"}},
			"kind": {"enum": ["a", "b"]}}},
		"Answer": {"allOf": [{"$ref": "#/components/schemas/Success"}, {"$ref": "#/components/schemas/Note"}]}}}}`))
	schema := map[string]any{"$ref": "#/components/schemas/Answer"}
	for _, tc := range []struct {
		name, body string
		want       string // a substring of the problems; "" for none
	}{
		{"OK", `{"success": true, "key": "k", "n": 1, "tags": null, "kind": "a"}`, ""},
		{"ErrMissingRequired", `{"success": true, "key": "k"}`, `required property "n"`},
		{"ErrType", `{"success": true, "key": 1, "n": 1}`, "$.key: number is not of type [string]"},
		{"ErrInteger", `{"success": true, "key": "k", "n": 1.5}`, "$.n: number is not of type [integer]"},
		{"ErrItems", `{"success": true, "key": "k", "n": 1, "tags": [1]}`, "$.tags[0]"},
		{"ErrConst", `{"success": false, "key": "k", "n": 1}`, "want const true"},
		{"ErrEnum", `{"success": true, "key": "k", "n": 1, "kind": "c"}`, "not in enum"},
		{"ErrUndocumented", `{"success": true, "key": "k", "n": 1, "extra": 2}`, `undocumented properties [extra]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			probs := schemaChecker{doc: doc, strict: true}.check(schema, mustJSON([]byte(tc.body)), "$")
			got := strings.Join(probs, "; ")
			if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
				t.Errorf("problems = %q, want %q", got, tc.want)
			}
		})
	}
	t.Run("ErrRef", func(t *testing.T) {
		if _, err := (schemaChecker{doc: doc}).resolve("#/components/schemas/Nope"); err == nil {
			t.Error("resolve of a missing schema succeeded")
		}
	})
}
