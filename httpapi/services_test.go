package httpapi_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/httpapi"
	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/internal/wire"
	"github.com/loci-memory/loci/rules"
)

// maxServiceMethods bounds each interface a route group depends on
// (narrow interfaces: docs/architecture.md, "Direction of dependencies").
const maxServiceMethods = 10

// TestServerServicesAreSmall: every service field of the server is an
// interface of at most maxServiceMethods methods.
func TestServerServicesAreSmall(t *testing.T) {
	st := reflect.TypeFor[httpapi.Server]()
	n := 0
	for i := 0; i < st.NumField(); i++ {
		f := st.Field(i)
		if !f.IsExported() || f.Type.Kind() != reflect.Interface {
			continue
		}
		n++
		if m := f.Type.NumMethod(); m > maxServiceMethods {
			t.Errorf("Server.%s (%s) has %d methods, more than %d", f.Name, f.Type, m, maxServiceMethods)
		}
	}
	if n == 0 {
		t.Fatal("the server has no service fields")
	}
}

// TestNoteRoutesNeedOnlyNotes: a server given only the services a route
// group and the guard use (notes, keys) serves the notes routes; the
// group reaches no other service.
func TestNoteRoutesNeedOnlyNotes(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		svc := rules.New(open(t))
		s := httpapi.NewServer(nil, slog.New(slog.NewTextHandler(io.Discard, nil)), httpapi.WithAudit(false))
		s.NoteService, s.KeyService = svc, svc
		srv := httptest.NewServer(s)
		t.Cleanup(srv.Close)

		req, _ := http.NewRequest(http.MethodPut, srv.URL+"/v1/agents/a1/notes/k", strings.NewReader(`{"value":"v"}`))
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusCreated {
			t.Fatalf("PUT note: status %d, want 201", resp.StatusCode)
		}
		resp, err = http.Get(srv.URL + "/v1/agents/a1/notes/k")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var body struct{ Value string }
		if err := json.NewDecoder(resp.Body).Decode(&body); err != nil || resp.StatusCode != 200 || body.Value != "v" {
			t.Fatalf("GET note: status %d, value %q, err %v; want 200 and v", resp.StatusCode, body.Value, err)
		}
		n, err := svc.Recall(t.Context(), "a1", "k")
		if err != nil || string(n.Value) != `"v"` {
			t.Fatalf("stored note = %+v, %v", n, err)
		}
	})
}

// TestNewServerSetsEveryService: NewServer wires every service field from
// the one service it is given, so that a new kind's field needs no line
// of wiring.
func TestNewServerSetsEveryService(t *testing.T) {
	s := httpapi.NewServer(rules.New(testdb.OpenSQLite(t)), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if unset := wire.Unset(s); len(unset) > 0 {
		t.Errorf("Server fields not set: %v", unset)
	}
}
