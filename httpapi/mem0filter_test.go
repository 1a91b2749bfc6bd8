package httpapi

import (
	"slices"
	"testing"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/testdb"
)

// TestMem0DoorFilters: mem0's filters as mem0's clients send them, on a
// search and a get all alike: contains on a string (a substring, with
// case), icontains, a metadata field named by its path (metadata.team)
// or by nested objects ({"metadata": {"food": {"kind": …}}}), keys of
// any case, dates, and the filters that always or never hold.
func TestMem0DoorFilters(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		e := newSecEnv(t, open)
		key, _ := e.key(t, loci.RoleEditor, "")
		names := map[string]string{}
		for _, c := range []struct{ name, meta string }{
			{"veg", `{"team": "Data Platform", "topicName": "food", "food": {"kind": "vegetarian"}, "labels": ["Alpha"]}`},
			{"meat", `{"team": "data science", "topicName": "food", "food": {"kind": "meat"}}`},
			{"bare", `null`},
		} {
			st, out := e.mem0Call(t, "POST", "/mem0/v3/memories/add/", key, `{"messages": "dinner note `+c.name+`", "user_id": "alex", "metadata": `+c.meta+`}`)
			if st != 200 {
				t.Fatalf("add %s: %d %v", c.name, st, out)
			}
			names[asList(t, out)[0]["id"].(string)] = c.name
		}
		picked := func(list []map[string]any) []string {
			var out []string
			for _, m := range list {
				out = append(out, names[m["id"].(string)])
			}
			slices.Sort(out)
			return out
		}
		for _, c := range []struct {
			filter string
			want   []string
		}{
			{`{"metadata.team": {"contains": "data"}}`, []string{"meat"}},
			{`{"metadata.team": {"contains": "Data"}}`, []string{"veg"}},
			{`{"metadata.team": {"icontains": "DATA"}}`, []string{"meat", "veg"}},
			{`{"metadata": {"team": {"icontains": "platform"}}}`, []string{"veg"}},
			{`{"metadata": {"topicName": "food"}}`, []string{"meat", "veg"}},
			{`{"metadata": {"food": {"kind": "meat"}}}`, []string{"meat"}},
			{`{"metadata.food.kind": {"in": ["vegetarian", "fish"]}}`, []string{"veg"}},
			{`{"metadata": {"labels": {"icontains": "alpha"}}}`, []string{"veg"}},
			{`{"created_at": {"gte": "2000-01-01"}}`, []string{"bare", "meat", "veg"}},
			{`{"created_at": {"lt": "2000-01-01"}}`, nil},
			{`{"AND": []}`, []string{"bare", "meat", "veg"}},
			{`{"OR": []}`, nil},
			{`{"NOT": {}}`, nil},
			{`{"AND": [{}, {"metadata": {"food": {"kind": "vegetarian"}}}]}`, []string{"veg"}},
		} {
			t.Run(c.filter, func(t *testing.T) {
				filters := `{"AND": [{"user_id": "alex"}, ` + c.filter + `]}`
				st, out := e.mem0Call(t, "POST", "/mem0/v3/memories/search/", key, `{"query": "dinner note", "filters": `+filters+`}`)
				if st != 200 {
					t.Fatalf("search: %d %v", st, out)
				}
				if got := picked(asList(t, asObj(t, out)["results"])); !slices.Equal(got, c.want) {
					t.Errorf("search: %v, want %v", got, c.want)
				}
				st, out = e.mem0Call(t, "POST", "/mem0/v3/memories/", key, `{"filters": `+filters+`}`)
				if st != 200 {
					t.Fatalf("get all: %d %v", st, out)
				}
				if got := picked(asList(t, asObj(t, out)["results"])); !slices.Equal(got, c.want) {
					t.Errorf("get all: %v, want %v", got, c.want)
				}
			})
		}
		for _, bad := range []string{`{"metadata.team": {"icontains": 1}}`, `{"metadata": {"team": {"contains": ["x"]}}}`, `{"metadata.a.b.c.d.e": 1}`,
			`{"created_at": {"gte": "yesterday"}}`} {
			st, out := e.mem0Call(t, "POST", "/mem0/v3/memories/search/", key, `{"query": "dinner", "filters": {"AND": [{"user_id": "alex"}, `+bad+`]}}`)
			if st != 400 {
				t.Errorf("search with %s: %d %v, want 400", bad, st, out)
			}
		}
	})
}
