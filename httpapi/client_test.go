package httpapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/httpclient"
	"github.com/loci-memory/loci/internal/testdb"
)

func TestClient(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		ctx := context.Background()
		srv, clock := newServer(t, open)
		c := httpclient.NewClient(srv.URL+"/", "") // a trailing slash is fine

		t.Run("RecallAllEmpty", func(t *testing.T) {
			notes, err := c.RecallAll(ctx, "writer")
			if err != nil || notes == nil || len(notes) != 0 {
				t.Errorf("got %#v, %v; want an empty slice", notes, err)
			}
		})
		t.Run("RememberCreated", func(t *testing.T) {
			res, err := c.Remember(ctx, "writer", "tone", json.RawMessage(`"friendly"`))
			if err != nil {
				t.Fatal(err)
			}
			if res.Action != loci.ActionCreated || res.Key != "tone" || !res.UpdatedAt.Equal(t0) {
				t.Errorf("got %+v, want created tone at %v", res, t0)
			}
		})
		clock.Add(time.Minute)
		t.Run("RememberUpdated", func(t *testing.T) {
			res, err := c.Remember(ctx, "writer", "tone", json.RawMessage(`{"style": "formal"}`))
			if err != nil {
				t.Fatal(err)
			}
			if res.Action != loci.ActionUpdated || !res.UpdatedAt.Equal(t0.Add(time.Minute)) {
				t.Errorf("got %+v, want updated at %v", res, t0.Add(time.Minute))
			}
		})
		t.Run("Recall", func(t *testing.T) {
			n, err := c.Recall(ctx, "writer", "tone")
			if err != nil {
				t.Fatal(err)
			}
			if n.Key != "tone" || string(n.Value) != `{"style":"formal"}` || !n.UpdatedAt.Equal(t0.Add(time.Minute)) {
				t.Errorf("got %+v %s", n, n.Value)
			}
		})
		t.Run("RememberEscapedKey", func(t *testing.T) {
			const key = "team/q1 plan?#%é"
			if _, err := c.Remember(ctx, "agent/one", key, json.RawMessage(`"v"`)); err != nil {
				t.Fatal(err)
			}
			n, err := c.Recall(ctx, "agent/one", key)
			if err != nil || n.Key != key {
				t.Errorf("got %+v, %v; want key %q", n, err, key)
			}
		})
		t.Run("RecallAll", func(t *testing.T) {
			notes, err := c.RecallAll(ctx, "writer")
			if err != nil {
				t.Fatal(err)
			}
			if len(notes) != 1 || notes[0].Key != "tone" {
				t.Errorf("got %v, want [tone]", notes)
			}
		})
		t.Run("History", func(t *testing.T) {
			vs, err := c.History(ctx, "writer", "tone")
			if err != nil {
				t.Fatal(err)
			}
			if len(vs) != 2 || string(vs[0].Value) != `{"style":"formal"}` || string(vs[1].Value) != `"friendly"` ||
				vs[0].Version != 2 || vs[1].Version != 1 || !vs[1].UpdatedAt.Equal(t0) {
				t.Errorf("got %+v, want the formal then the friendly version", vs)
			}
		})
		t.Run("Forget", func(t *testing.T) {
			if err := c.Forget(ctx, "writer", "tone"); err != nil {
				t.Fatal(err)
			}
			if _, err := c.Recall(ctx, "writer", "tone"); loci.ErrorCode(err) != loci.ENOTFOUND {
				t.Errorf("recall after forget: got %v, want not found", err)
			}
		})

		errTests := []struct {
			name     string
			call     func() error
			wantCode string
			wantMsg  string // "" to skip
		}{
			{"ErrRecallMissing", func() error { _, err := c.Recall(ctx, "writer", "missing"); return err }, loci.ENOTFOUND, "Memory not found"},
			{"ErrForgetMissing", func() error { return c.Forget(ctx, "writer", "missing") }, loci.ENOTFOUND, "Memory not found"},
			{"ErrHistoryMissing", func() error { _, err := c.History(ctx, "writer", "missing"); return err }, loci.ENOTFOUND, "Memory not found"},
			{"ErrEmptyValue", func() error { _, err := c.Remember(ctx, "writer", "k", json.RawMessage(`""`)); return err }, loci.EINVALID, "value must not be empty"},
			{"ErrMissingValue", func() error { _, err := c.Remember(ctx, "writer", "k", nil); return err }, loci.EINVALID, "value is required"},
			{"ErrValueTooLarge", func() error {
				v, _ := json.Marshal(strings.Repeat("v", loci.MaxNoteValueBytes+1))
				_, err := c.Remember(ctx, "writer", "k", v)
				return err
			}, loci.ETOOLARGE, ""},
			{"ErrKeyTooLong", func() error {
				_, err := c.Remember(ctx, "writer", strings.Repeat("k", loci.MaxNoteKeyBytes+1), json.RawMessage(`"v"`))
				return err
			}, loci.EINVALID, "key must be at most 256 bytes"},
			{"ErrEmptyKey", func() error { _, err := c.Remember(ctx, "writer", "", json.RawMessage(`"v"`)); return err }, loci.EINVALID, ""},
			{"ErrWhitespaceKeyRecall", func() error { _, err := c.Recall(ctx, "writer", " "); return err }, loci.EINVALID, ""},
			{"ErrEmptyAgentRecallAll", func() error { _, err := c.RecallAll(ctx, ""); return err }, loci.EINVALID, ""},
			{"ErrEmptyAgentForget", func() error { return c.Forget(ctx, "", "k") }, loci.EINVALID, ""},
			{"ErrEmptyAgentHistory", func() error { _, err := c.History(ctx, "", "k"); return err }, loci.EINVALID, ""},
		}
		for _, tt := range errTests {
			t.Run(tt.name, func(t *testing.T) {
				err := tt.call()
				if got := loci.ErrorCode(err); got != tt.wantCode {
					t.Fatalf("code: got %q (%v), want %q", got, err, tt.wantCode)
				}
				if tt.wantMsg != "" && loci.ErrorMessage(err) != tt.wantMsg {
					t.Errorf("message: got %q, want %q", loci.ErrorMessage(err), tt.wantMsg)
				}
			})
		}
	})
}

// TestClientTransport checks how the client reads answers that do not come
// from a loci server, and what it sends.
func TestClientTransport(t *testing.T) {
	ctx := context.Background()
	t.Run("APIKey", func(t *testing.T) {
		var got string
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			got = r.Header.Get("Authorization")
			w.Write([]byte(`{"success": true, "count": 0, "memories": []}`))
		}))
		defer srv.Close()
		if _, err := httpclient.NewClient(srv.URL, "secret").RecallAll(ctx, "a"); err != nil {
			t.Fatal(err)
		}
		if got != "Bearer secret" {
			t.Errorf("Authorization: got %q, want %q", got, "Bearer secret")
		}
		if _, err := httpclient.NewClient(srv.URL, "").RecallAll(ctx, "a"); err != nil {
			t.Fatal(err)
		}
		if got != "" {
			t.Errorf("Authorization without a key: got %q, want none", got)
		}
	})
	tests := []struct {
		name     string
		status   int
		body     string
		wantCode string
		wantMsg  string
	}{
		{"ErrorWithoutCode", 404, `{"success": false, "error": "gone"}`, loci.ENOTFOUND, "gone"},
		{"ErrorWithCode", 409, `{"success": false, "error": "stale", "code": "conflict"}`, loci.ECONFLICT, "stale"},
		{"ErrNotJSON", 502, `<html>bad gateway</html>`, loci.EINTERNAL, "internal error"},
		{"ErrBadSuccessBody", 200, `not json`, loci.EINTERNAL, "internal error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(tt.status)
				w.Write([]byte(tt.body))
			}))
			defer srv.Close()
			_, err := httpclient.NewClient(srv.URL, "").Recall(ctx, "a", "k")
			if loci.ErrorCode(err) != tt.wantCode || loci.ErrorMessage(err) != tt.wantMsg {
				t.Errorf("got code %q message %q (%v), want %q %q", loci.ErrorCode(err), loci.ErrorMessage(err), err, tt.wantCode, tt.wantMsg)
			}
		})
	}
	t.Run("ErrServerDown", func(t *testing.T) {
		srv := httptest.NewServer(http.NotFoundHandler())
		url := srv.URL
		srv.Close()
		_, err := httpclient.NewClient(url, "").Recall(ctx, "a", "k")
		if err == nil || loci.ErrorCode(err) != loci.EINTERNAL {
			t.Errorf("got %v, want an internal (transport) error", err)
		}
	})
}
