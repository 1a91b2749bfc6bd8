package httpapi_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/httpapi"
	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/rules"
)

// bodyProperties returns, for each documented route that takes a JSON
// object body ("POST /v1/memories"), the names of its body's members.
func bodyProperties(t *testing.T) map[string][]string {
	t.Helper()
	raw, err := os.ReadFile("openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	c := schemaChecker{doc: doc}
	out := map[string][]string{}
	for path, item := range doc["paths"].(map[string]any) {
		for method, o := range item.(map[string]any) {
			rb, _ := o.(map[string]any)["requestBody"].(map[string]any)
			content, _ := rb["content"].(map[string]any)
			media, _ := content["application/json"].(map[string]any)
			schema, _ := media["schema"].(map[string]any)
			if schema == nil {
				continue
			}
			var names []string
			var collect func(s map[string]any)
			collect = func(s map[string]any) {
				s, err := c.deref(s)
				if err != nil {
					t.Fatal(err)
				}
				for name := range s["properties"].(map[string]any) {
					names = append(names, name)
				}
				for _, kw := range []string{"allOf", "anyOf", "oneOf"} {
					subs, _ := s[kw].([]any)
					for _, sub := range subs {
						collect(sub.(map[string]any))
					}
				}
			}
			if s, _ := c.deref(schema); s["properties"] == nil && s["allOf"] == nil {
				continue // not an object of named members (JSON-RPC, JSON Lines)
			}
			collect(schema)
			sort.Strings(names)
			out[strings.ToUpper(method)+" "+path] = names
		}
	}
	return out
}

// TestBodyMemberNamesExact: on every route that takes a JSON body, a
// member is its exact name: the same name in another case is an unknown
// field (encoding/json alone would take "CONTENT" as content), answered
// 400 with the names the body takes; and a member given twice is 400
// (encoding/json alone would keep the last).
func TestBodyMemberNamesExact(t *testing.T) {
	h := httpapi.NewServer(rules.New(testdb.OpenSQLite(t)), slog.New(slog.NewTextHandler(io.Discard, nil)))
	wildcard := regexp.MustCompile(`\{[^}]+\}`)
	routes := bodyProperties(t)
	if len(routes) < 20 {
		t.Fatalf("only %d routes with a JSON body documented", len(routes))
	}
	for route, names := range routes {
		method, path, _ := strings.Cut(route, " ")
		url := wildcard.ReplaceAllString(path, "x")
		call := func(t *testing.T, body string) (int, string, string) {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(method, url, strings.NewReader(body)))
			var env struct{ Code, Error string }
			json.Unmarshal(rec.Body.Bytes(), &env)
			return rec.Code, env.Code, env.Error
		}
		for _, name := range names {
			upper := strings.ToUpper(name[:1]) + name[1:]
			t.Run(route+"/"+upper, func(t *testing.T) {
				status, code, msg := call(t, `{"`+upper+`": null}`)
				if status != http.StatusBadRequest || code != "invalid" || !strings.Contains(msg, "unknown field "+upper+";") {
					t.Fatalf("status %d %s %q, want 400 invalid naming the unknown field %s", status, code, msg, upper)
				}
				_, list, _ := strings.Cut(msg, "this body takes ")
				takes := map[string]bool{}
				for _, n := range strings.Split(list, ", ") {
					takes[n] = true
				}
				for _, n := range names {
					if !takes[n] {
						t.Errorf("error %q does not name %s among the fields the body takes", msg, n)
					}
				}
			})
		}
		t.Run(route+"/twice", func(t *testing.T) {
			status, code, msg := call(t, `{"`+names[0]+`": null, "`+names[0]+`": null}`)
			if status != http.StatusBadRequest || code != "invalid" || !strings.Contains(msg, "member "+names[0]+" is given twice") {
				t.Fatalf("status %d %s %q, want 400 invalid naming the member given twice", status, code, msg)
			}
		})
	}
}

// TestMemoryMemberCase: the case of a member name never chooses where a
// memory goes (USER_ID beside user_id stored it under bob), on the
// memories API, its batch and the mem0 API; nothing is stored.
func TestMemoryMemberCase(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		srv, _ := newServer(t, open)
		for _, tc := range []struct{ name, method, path, body, want string }{
			{"UpperDuplicate", "POST", "/v1/memories", `{"content": "x", "user_id": "alice", "USER_ID": "bob"}`,
				"unknown field USER_ID; this body takes content, user_id, agent_id"},
			{"Capitalised", "POST", "/v1/memories", `{"Content": "x", "user_id": "alice"}`, "unknown field Content;"},
			{"Twice", "POST", "/v1/memories", `{"content": "x", "user_id": "alice", "user_id": "bob"}`, "member user_id is given twice"},
			{"TwiceEscaped", "POST", "/v1/memories", `{"content": "x", "user_id": "alice", "user\u005fid": "bob"}`, "member user_id is given twice"},
			{"BatchUpper", "POST", "/v1/memories/batch", `{"add": [{"content": "x", "user_id": "alice", "User_Id": "bob"}]}`,
				"add[0]: unknown field User_Id; this entry takes content, user_id"},
			{"BatchOuterUpper", "POST", "/v1/memories/batch", `{"ADD": [{"content": "x", "user_id": "bob"}]}`,
				"unknown field ADD; this body takes add, update, delete"},
			{"BatchTwice", "POST", "/v1/memories/batch", `{"add": [{"content": "x", "user_id": "alice", "user_id": "bob"}]}`,
				"add[0]: member user_id is given twice"},
			{"MessagesUpper", "POST", "/v1/memories", `{"messages": [{"role": "user", "content": "a"}, {"ROLE": "user", "content": "x"}], "user_id": "bob"}`,
				"messages[1]: unknown field ROLE; this entry takes role, content, name"},
			{"MessagesTwice", "POST", "/v1/memories", `{"messages": [{"role": "user", "content": "x", "content": "y"}], "user_id": "bob"}`,
				"messages[0]: member content is given twice"},
			{"Mem0Upper", "POST", "/mem0/v3/memories/add/", `{"messages": "x", "user_id": "alice", "USER_ID": "bob"}`, "unknown field USER_ID;"},
			{"Mem0MessageUpper", "POST", "/mem0/v3/memories/add/", `{"messages": [{"ROLE": "user", "content": "x"}], "user_id": "bob"}`,
				"messages[0]: unknown field ROLE; this entry takes role, content, name"},
			{"Mem0SearchUpper", "POST", "/mem0/v3/memories/search/", `{"Query": "x", "filters": {"user_id": "alice"}}`, "unknown field Query;"},
			{"Mem0ListUpper", "POST", "/mem0/v3/memories/", `{"Filters": {"user_id": "alice"}}`, "unknown field Filters;"},
			{"Mem0UpdateUpper", "PUT", "/mem0/v1/memories/x/", `{"Text": "x"}`, "unknown field Text;"},
			{"Mem0BatchUpper", "PUT", "/mem0/v1/batch/", `{"Memories": []}`, "unknown field Memories;"},
			{"Mem0BatchDeleteUpper", "DELETE", "/mem0/v1/batch/", `{"memories": [{"MEMORY_ID": "x"}]}`, "memories[0]: unknown field MEMORY_ID;"},
			{"Mem0Twice", "POST", "/mem0/v3/memories/add/", `{"messages": "x", "user_id": "alice", "user_id": "bob"}`, "member user_id is given twice"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				status, body := do(t, srv, tc.method, tc.path, tc.body)
				var env struct{ Code, Error string }
				json.Unmarshal(body, &env)
				if status != http.StatusBadRequest || env.Code != "invalid" || !strings.Contains(env.Error, tc.want) {
					t.Fatalf("status %d %s, want 400 invalid with %q", status, body, tc.want)
				}
			})
		}
		for _, user := range []string{"alice", "bob"} {
			if _, body := do(t, srv, "GET", "/v1/memories?user_id="+user, ""); !strings.Contains(string(body), `"count":0`) {
				t.Errorf("%s has memories after refused writes: %s", user, body)
			}
		}
	})
}

// TestBatchErrorsNameTheOperation: an error inside a batch names the
// operation (add[2], update[0], delete[1]) and, for an unknown field, the
// fields that operation takes, not the outer body's; nothing is applied.
func TestBatchErrorsNameTheOperation(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		srv, _ := newServer(t, open)
		status, body := do(t, srv, "POST", "/v1/memories", `{"content": "kept", "user_id": "u"}`)
		if status != http.StatusCreated {
			t.Fatalf("add: %d %s", status, body)
		}
		var added struct{ ID string }
		json.Unmarshal(body, &added)
		ok := `{"content": "a", "user_id": "u"}`
		for _, tc := range []struct{ name, body, want string }{
			{"AddUnknownField", `{"add": [` + ok + `, ` + ok + `, {"content": "c", "user_id": "u", "colour": "red"}]}`,
				"add[2]: unknown field colour; this entry takes content, user_id, agent_id, session_id, kind, key, category, tags, metadata, expires_at, ttl_seconds"},
			{"AddContentNumber", `{"add": [` + ok + `, {"content": 5, "user_id": "u"}]}`, `add[1]: field "content" must be a string`},
			{"AddTagsNotStrings", `{"add": [{"content": "c", "user_id": "u", "tags": ["x", 1]}]}`, `add[0].tags[1] must be a string`},
			{"AddTTLFraction", `{"add": [{"content": "c", "user_id": "u", "ttl_seconds": 1.5}]}`, `add[0]: field "ttl_seconds" must be an integer`},
			{"AddNotObject", `{"add": [` + ok + `, "c"]}`, "add[1] must be an object"},
			{"DeleteNumber", `{"delete": ["z", 7]}`, "delete[1] must be a string"},
			{"UpdateUnknownField", `{"update": [{"id": "` + added.ID + `", "text": "t"}]}`,
				"update[0]: unknown field text; this entry takes id, content, metadata, tags, expires_at, ttl_seconds"},
			{"UpdateContentNumber", `{"update": [{"id": "` + added.ID + `", "content": "t"}, {"id": "` + added.ID + `", "content": 5}]}`,
				`update[1]: field "content" must be a string`},
			{"UpdateIDNumber", `{"update": [{"id": 5, "content": "t"}]}`, `update[0]: field "id" must be a string`},
			{"AddArrayNotArray", `{"add": {"content": "c"}}`, `field "add" must be an array`},
		} {
			t.Run(tc.name, func(t *testing.T) {
				status, body := do(t, srv, "POST", "/v1/memories/batch", tc.body)
				var env struct{ Code, Error string }
				json.Unmarshal(body, &env)
				if status != http.StatusBadRequest || env.Code != "invalid" || !strings.Contains(env.Error, tc.want) {
					t.Fatalf("status %d %s, want 400 invalid with %q", status, body, tc.want)
				}
				if strings.Contains(env.Error, "takes add, update, delete") {
					t.Errorf("error %q lists the outer body's fields", env.Error)
				}
			})
		}
		status, body = do(t, srv, "GET", "/v1/memories?user_id=u", "")
		var list struct{ Count int }
		json.Unmarshal(body, &list)
		if status != http.StatusOK || list.Count != 1 {
			t.Errorf("after refused batches: %d %s, want the one memory added before", status, body)
		}
		// The mem0 API's batch names its entries the same way.
		status, body = do(t, srv, "PUT", "/mem0/v1/batch/", `{"memories": [{"memory_id": "`+added.ID+`", "text": "t"}, {"memory_id": "`+added.ID+`", "TEXT": "t"}]}`)
		if want := "memories[1]: unknown field TEXT; this entry takes memory_id, text, metadata"; status != http.StatusBadRequest || !strings.Contains(string(body), want) {
			t.Errorf("mem0 batch: %d %s, want 400 with %q", status, body, want)
		}
	})
}

// TestLoneSurrogateRefused: a \u escape of half a surrogate pair is no
// character (a decoder stores U+FFFD in its place): 400 like invalid
// UTF-8, nothing stored; a whole pair is the character it encodes.
func TestLoneSurrogateRefused(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		srv, _ := newServer(t, open)
		for _, content := range []string{`a\ud800b`, `\udc00`, `\ud800\u0041`, `\uD83D`, `x\ud800`, `\ude00\ud83d`, `\ud800\ud800`} {
			t.Run(content, func(t *testing.T) {
				for _, call := range []struct{ method, path, body string }{
					{"POST", "/v1/memories", `{"content": "` + content + `", "user_id": "u"}`},
					{"POST", "/v1/memories", `{"content": "c", "user_id": "u", "tags": ["` + content + `"]}`},
					{"POST", "/v1/memories", `{"content": "c", "user_id": "u", "metadata": {"k` + content + `": "v"}}`},
					{"PUT", "/v1/agents/a/notes/k", `{"value": {"text": "` + content + `"}}`},
					{"POST", "/mem0/v3/memories/add/", `{"messages": "` + content + `", "user_id": "u"}`},
				} {
					status, body := do(t, srv, call.method, call.path, call.body)
					var env struct{ Code, Error string }
					json.Unmarshal(body, &env)
					if status != http.StatusBadRequest || env.Code != "invalid" || !strings.Contains(env.Error, "valid UTF-8") {
						t.Errorf("%s %s %s: %d %s, want 400 invalid UTF-8", call.method, call.path, call.body, status, body)
					}
				}
			})
		}
		if _, body := do(t, srv, "GET", "/v1/memories?user_id=u", ""); !strings.Contains(string(body), `"count":0`) {
			t.Errorf("refused writes stored something: %s", body)
		}
		status, body := do(t, srv, "POST", "/v1/memories", `{"content": "smile \ud83d\ude00", "user_id": "u"}`)
		var added struct{ ID string }
		json.Unmarshal(body, &added)
		if status != http.StatusCreated {
			t.Fatalf("a surrogate pair: %d %s, want 201", status, body)
		}
		_, body = do(t, srv, "GET", "/v1/memories/"+added.ID, "")
		var got struct{ Content string }
		json.Unmarshal(body, &got)
		if got.Content != "smile 😀" {
			t.Errorf("content %q, want %q", got.Content, "smile 😀")
		}
	})
}
