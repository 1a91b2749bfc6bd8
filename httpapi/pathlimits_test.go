package httpapi_test

import (
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/testdb"
)

// TestPathValueLimitsAsDocumented: every path parameter of every operation
// in the served OpenAPI document is refused (400, naming the parameter and
// its limit) one byte past its documented maxLength, and not refused for
// its length at maxLength: the document states what the server does (an
// agent_id is at most 256 bytes, not 1,024).
func TestPathValueLimitsAsDocumented(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		srv, _ := newServer(t, open)
		status, body := do(t, srv, "GET", "/v1/openapi.json", "")
		if status != 200 {
			t.Fatalf("openapi.json: %d", status)
		}
		var doc struct {
			Paths map[string]map[string]struct {
				Parameters []struct {
					Name, In string
					Schema   struct {
						MaxLength int `json:"maxLength"`
					}
				}
			}
		}
		if err := json.Unmarshal(body, &doc); err != nil {
			t.Fatal(err)
		}
		wildcard := regexp.MustCompile(`\{[a-z_]+\}`)
		checked := map[string]int{}
		for path, ops := range doc.Paths {
			for method, op := range ops {
				for _, p := range op.Parameters {
					if p.In != "path" {
						continue
					}
					if p.Schema.MaxLength == 0 {
						t.Errorf("%s %s: %s has no maxLength", method, path, p.Name)
						continue
					}
					if p.Name == "agent_id" && p.Schema.MaxLength != loci.MaxAgentIDBytes {
						t.Errorf("%s %s: agent_id maxLength %d, want %d", method, path, p.Schema.MaxLength, loci.MaxAgentIDBytes)
					}
					checked[p.Name] = p.Schema.MaxLength
					url := func(n int) string {
						return wildcard.ReplaceAllStringFunc(path, func(w string) string {
							if w == "{"+p.Name+"}" {
								return url.PathEscape(strings.Repeat("a", n))
							}
							return "x"
						})
					}
					reqBody := ""
					if m := strings.ToUpper(method); m == "POST" || m == "PUT" || m == "PATCH" {
						reqBody = "{}"
					}
					tooLong := fmt.Sprintf("%s must be at most %d bytes", p.Name, p.Schema.MaxLength)
					status, got := do(t, srv, strings.ToUpper(method), url(p.Schema.MaxLength+1), reqBody)
					if status != 400 || !strings.Contains(string(got), tooLong) {
						t.Errorf("%s %s with %s of %d bytes: %d %s, want 400 %q", method, path, p.Name, p.Schema.MaxLength+1, status, got, tooLong)
					}
					if status, got := do(t, srv, strings.ToUpper(method), url(p.Schema.MaxLength), reqBody); strings.Contains(string(got), p.Name+" must be at most") {
						t.Errorf("%s %s with %s of %d bytes (its maxLength): %d %s, refused for its length", method, path, p.Name, p.Schema.MaxLength, status, got)
					}
				}
			}
		}
		if checked["agent_id"] == 0 || len(checked) < 5 {
			t.Errorf("checked %v: the document's path parameters were not found", checked)
		}
	})
}
