package httpapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/testdb"
)

// TestTimesOutOfRange: a time a request gives that loci could not store
// and answer (past year 9999 once in UTC: the date 9999-12-31 as an
// expiry is 10000-01-01T00:00Z, an offset moves 9999-12-31T23:59:59 past
// it; before year 1; Go's zero time, which would mean none) is 400 invalid
// and stores nothing, and the reads of the user answer as before.
func TestTimesOutOfRange(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		refused := func(t *testing.T, e *secEnv, method, path, body string) {
			t.Helper()
			status, out, rec := e.call(t, method, path, "", []byte(body))
			if status != http.StatusBadRequest || out["code"] != loci.EINVALID {
				t.Errorf("%s %s %s: %d %s, want 400 invalid", method, path, body, status, strings.TrimSpace(rec.Body.String()))
			}
		}
		for _, tc := range []struct{ name, method, path, body string }{
			{"MemoryExpiryDate", "POST", "/v1/memories", `{"content":"likes tea","user_id":"u1","expires_at":"9999-12-31"}`},
			{"MemoryExpiryOffset", "POST", "/v1/memories", `{"content":"likes tea","user_id":"u1","expires_at":"9999-12-31T23:59:59-01:00"}`},
			{"Mem0Expiry", "POST", "/mem0/v3/memories/add/", `{"messages":[{"role":"user","content":"likes tea"}],"user_id":"u1","expiration_date":"9999-12-31"}`},
			{"FactValidAtLate", "POST", "/v1/facts", `{"user_id":"u1","category":"general_fact","fact":"lives in Paris","valid_at":"9999-12-31T23:59:59-01:00"}`},
			{"FactValidAtEarly", "POST", "/v1/facts", `{"user_id":"u1","category":"general_fact","fact":"lives in Paris","valid_at":"0000-01-01T00:00:00+01:00"}`},
			{"FactValidAtZero", "POST", "/v1/facts", `{"user_id":"u1","category":"general_fact","fact":"lives in Paris","valid_at":"0001-01-01T00:00:00Z"}`},
			{"SessionExpiry", "PUT", "/v1/sessions/s1", `{"user_id":"u1","expires_at":"9999-12-31"}`},
			{"ReferenceDate", "POST", "/v1/search", `{"query":"tea","user_id":"u1","reference_date":"9999-12-31T23:59:59-01:00"}`},
		} {
			t.Run(tc.name, func(t *testing.T) {
				e := newSecEnv(t, open)
				refused(t, e, tc.method, tc.path, tc.body)
				if status, _, rec := e.call(t, "GET", "/v1/export", "", nil); status != 200 || rec.Body.Len() != 0 {
					t.Errorf("a refused request stored something: export %d %q", status, rec.Body.String())
				}
				for _, p := range []string{"/v1/memories?user_id=u1", "/v1/users/u1/context", "/v1/facts?user_id=u1"} {
					if status, out, rec := e.call(t, "GET", p, "", nil); status != 200 || out["success"] != true {
						t.Errorf("then GET %s: %d %q", p, status, rec.Body.String())
					}
				}
			})
		}
		t.Run("OnExisting", func(t *testing.T) {
			e := newSecEnv(t, open)
			_, out, _ := e.call(t, "POST", "/v1/memories", "", []byte(`{"content":"likes tea","user_id":"u1"}`))
			id := out["id"].(string)
			refused(t, e, "PATCH", "/v1/memories/"+id, `{"expires_at":"9999-12-31"}`)
			if status, out, rec := e.call(t, "GET", "/v1/memories/"+id, "", nil); status != 200 || out["expires_at"] != nil {
				t.Errorf("then GET the memory: %d %s", status, rec.Body.String())
			}
			_, out, _ = e.call(t, "POST", "/v1/facts", "", []byte(`{"user_id":"u2","category":"general_fact","fact":"lives in Rome","key":"home","valid_at":"2020-01-01T00:00:00Z"}`))
			fid := out["id"].(string)
			refused(t, e, "POST", "/v1/facts/"+fid+"/invalidate", `{"at":"9999-12-31T23:59:59-01:00"}`)
			refused(t, e, "POST", "/v1/facts/"+fid+"/invalidate", `{"at":"0001-01-01T00:00:00Z"}`)
			if status, out, rec := e.call(t, "GET", "/v1/facts/"+fid, "", nil); status != 200 || out["invalid_at"] != nil {
				t.Errorf("then GET the fact: %d %s, want it unchanged", status, rec.Body.String())
			}
		})
	})
}

// TestWriteJSONEncodesFirst: an answer that does not encode (here a time
// past year 9999, as a stored one would be) is a 500 with the error
// envelope, not the status meant with an empty body.
func TestWriteJSONEncodesFirst(t *testing.T) {
	rec := httptest.NewRecorder()
	writeJSON(rec, http.StatusOK, map[string]any{"at": time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)})
	var out map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &out); rec.Code != http.StatusInternalServerError || err != nil || out["code"] != loci.EINTERNAL {
		t.Errorf("writeJSON of a value that does not encode: %d %q, want 500 with the error envelope", rec.Code, rec.Body.String())
	}
}

// TestPreferenceUseChecksItsBody: a preference's use and confirm take
// {"source"} (API.md) or nothing: a bad source or an unknown field is 400
// and changes nothing; a good one, or none, is applied.
func TestPreferenceUseChecksItsBody(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		e := newSecEnv(t, open)
		e.call(t, "POST", "/v1/users/u1/preferences", "", []byte(`{"type":"color","value":"blue","source":"implicit"}`))
		_, before, _ := e.call(t, "GET", "/v1/users/u1/preferences", "", nil)
		for _, verb := range []string{"use", "confirm"} {
			for _, body := range []string{`{"source":"bogus"}`, `{"zzz_unknown_field":1}`, `[]`} {
				status, out, rec := e.call(t, "POST", "/v1/users/u1/preferences/color/"+verb, "", []byte(body))
				if status != http.StatusBadRequest || out["code"] != loci.EINVALID {
					t.Errorf("%s %s: %d %s, want 400 invalid", verb, body, status, rec.Body.String())
				}
			}
		}
		if _, after, _ := e.call(t, "GET", "/v1/users/u1/preferences", "", nil); fmt.Sprint(after) != fmt.Sprint(before) {
			t.Errorf("refused uses changed the preference: %v, was %v", after, before)
		}
		for _, body := range []string{``, `{}`, `{"source":"explicit"}`} {
			if status, _, rec := e.call(t, "POST", "/v1/users/u1/preferences/color/use", "", []byte(body)); status != http.StatusOK {
				t.Errorf("use %q: %d %s, want 200", body, status, rec.Body.String())
			}
		}
	})
}
