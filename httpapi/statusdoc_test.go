package httpapi

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"
)

// TestMain runs the package's tests and then checks that every status a
// route answered in them (scenario tables, the role matrix, the error
// cases) is documented for its operation in the OpenAPI document: a
// handler that can answer a status the document does not declare fails
// the package, whichever test made it answer.
func TestMain(m *testing.M) {
	seen := &answered{statuses: map[string]map[int]string{}}
	hook := seen.add
	answerHook.Store(&hook)
	code := m.Run()
	answerHook.Store(nil)
	if f := flag.Lookup("test.fuzz"); code == 0 && (f == nil || f.Value.String() == "") {
		if problems := seen.undocumented(openAPIDocument); len(problems) > 0 {
			fmt.Fprintln(os.Stderr, "FAIL: statuses answered in tests but not documented in the OpenAPI document (the route table, then go generate ./httpapi):")
			for _, p := range problems {
				fmt.Fprintln(os.Stderr, "  "+p)
			}
			code = 1
		}
	}
	os.Exit(code)
}

// answered collects the statuses each route answered.
type answered struct {
	mu       sync.Mutex
	statuses map[string]map[int]string // "METHOD /path" → status → the route's pattern
}

func (a *answered) add(rt Route, status int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	key := rt.String()
	if a.statuses[key] == nil {
		a.statuses[key] = map[int]string{}
	}
	a.statuses[key][status] = rt.Pattern
}

// undocumented lists the route and status pairs that doc does not declare.
// Routes the document leaves out on purpose (the inspector's page and
// assets, the empty-key variants of the note routes) are not checked.
func (a *answered) undocumented(doc []byte) []string {
	var d struct {
		Paths map[string]map[string]struct {
			Responses map[string]any `json:"responses"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(doc, &d); err != nil {
		return []string{"the document does not parse: " + err.Error()}
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []string
	for key, statuses := range a.statuses {
		method, path, _ := strings.Cut(key, " ")
		if path == "/{$}" || strings.HasPrefix(path, "/ui/") || strings.HasSuffix(path, "/{$}") {
			continue
		}
		op, ok := d.Paths[strings.ReplaceAll(path, "...}", "}")][strings.ToLower(method)]
		if !ok {
			out = append(out, key+": not documented at all")
			continue
		}
		for status := range statuses {
			if _, ok := op.Responses[fmt.Sprint(status)]; !ok {
				out = append(out, fmt.Sprintf("%s: %d", key, status))
			}
		}
	}
	sort.Strings(out)
	return out
}

// TestUndocumentedStatus shows the check above catches a status the
// document does not declare.
func TestUndocumentedStatus(t *testing.T) {
	a := &answered{statuses: map[string]map[int]string{}}
	a.add(Route{Method: "GET", Pattern: "/healthz"}, 200)
	a.add(Route{Method: "GET", Pattern: "/healthz"}, 409)
	a.add(Route{Method: "GET", Pattern: "/ui/{asset}"}, 418)
	got := a.undocumented(openAPIDocument)
	if len(got) != 1 || got[0] != "GET /healthz: 409" {
		t.Errorf("got %q, want [GET /healthz: 409]", got)
	}
}
