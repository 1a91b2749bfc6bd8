package httpapi_test

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/httpapi"
	"github.com/loci-memory/loci/rules"
)

// coreStep is one request of a scenario and what it must answer. Path and
// body may name values captured from earlier answers as {{name}}.
type coreStep struct {
	name       string
	method     string
	path       string
	body       string
	wantStatus int
	// want is a JSON object that the answer must contain: every key, with
	// objects compared the same way, arrays element by element (same
	// length), the string "*" for any value and "!absent" for a key that
	// must not be there.
	want string
	// wantText, when set, is the exact text/plain body.
	wantText *string
	// capture names fields of the answer (top-level) to use in later steps.
	capture map[string]string
}

func textBody(s string) *string { return &s }

// newCoreServer returns a server on a fresh store with a fake clock that
// runs a second ahead per step.
func newCoreServer(t *testing.T, store loci.Store) (http.Handler, *loci.FakeClock) {
	t.Helper()
	clock := loci.NewFakeClock(time.Date(2025, 7, 8, 9, 0, 0, 0, time.UTC))
	svc := rules.New(store, rules.WithClock(clock))
	return httpapi.NewServer(svc, slog.New(slog.NewTextHandler(io.Discard, nil))), clock
}

// runCoreSteps runs steps in order against h; each is a subtest, and the
// first failure stops the scenario (later steps depend on earlier ones).
func runCoreSteps(t *testing.T, h http.Handler, clock *loci.FakeClock, steps []coreStep) {
	t.Helper()
	vars := map[string]string{}
	expand := func(s string) string {
		for k, v := range vars {
			s = strings.ReplaceAll(s, "{{"+k+"}}", v)
		}
		return s
	}
	for _, st := range steps {
		ok := t.Run(st.name, func(t *testing.T) {
			var body io.Reader
			if st.body != "" {
				body = strings.NewReader(expand(st.body))
			}
			req := httptest.NewRequest(st.method, expand(st.path), body)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			clock.Add(time.Second)
			if rec.Code != st.wantStatus {
				t.Fatalf("%s %s: status = %d, want %d; body %s", st.method, st.path, rec.Code, st.wantStatus, rec.Body)
			}
			if st.wantText != nil {
				if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
					t.Errorf("content type = %q, want text/plain", ct)
				}
				if got := rec.Body.String(); got != *st.wantText {
					t.Fatalf("body = %q, want %q", got, *st.wantText)
				}
				return
			}
			var got map[string]any
			if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
				t.Fatalf("body is not a JSON object: %v: %s", err, rec.Body)
			}
			wantSuccess := st.wantStatus < 400
			if got["success"] != wantSuccess {
				t.Errorf("success = %v, want %v", got["success"], wantSuccess)
			}
			if !wantSuccess {
				if s, _ := got["error"].(string); s == "" {
					t.Errorf("error message is empty: %s", rec.Body)
				}
			}
			if st.want != "" {
				var want any
				if err := json.Unmarshal([]byte(expand(st.want)), &want); err != nil {
					t.Fatalf("bad want: %v", err)
				}
				if diff := subsetDiff("", want, got); diff != "" {
					t.Fatalf("%s\nbody: %s", diff, rec.Body)
				}
			}
			for name, field := range st.capture {
				v, ok := got[field]
				if !ok {
					t.Fatalf("capture %s: no field %q in %s", name, field, rec.Body)
				}
				vars[name] = fmt.Sprint(v)
			}
		})
		if !ok {
			return
		}
	}
}

// subsetDiff describes where got does not contain want, or returns "".
func subsetDiff(path string, want, got any) string {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return fmt.Sprintf("%s: got %v, want an object", path, got)
		}
		for k, wv := range w {
			gv, present := g[k]
			if wv == "!absent" {
				if present {
					return fmt.Sprintf("%s.%s: got %v, want no such field", path, k, gv)
				}
				continue
			}
			if !present {
				return fmt.Sprintf("%s.%s: missing", path, k)
			}
			if d := subsetDiff(path+"."+k, wv, gv); d != "" {
				return d
			}
		}
		return ""
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return fmt.Sprintf("%s: got %v, want %d elements %v", path, got, len(w), want)
		}
		for i := range w {
			if d := subsetDiff(fmt.Sprintf("%s[%d]", path, i), w[i], g[i]); d != "" {
				return d
			}
		}
		return ""
	case string:
		if w == "*" {
			return ""
		}
	}
	if !reflect.DeepEqual(want, got) {
		return fmt.Sprintf("%s: got %v, want %v", path, got, want)
	}
	return ""
}

func httptestServer(h http.Handler) *httptest.Server { return httptest.NewServer(h) }
