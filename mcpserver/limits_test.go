package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/mcpserver"
	"github.com/loci-memory/loci/rules"
)

// TestToolLimits: the limits the tools tell a model are the root's
// constants (struct tags cannot name them), and a limit parameter's "1 to
// N" is its schema's maximum.
func TestToolLimits(t *testing.T) {
	cs := MustConnect(t, rules.New(testdb.OpenSQLite(t)), mcpserver.Identity{AgentID: "a", UserID: "u"})
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	type prop struct {
		Description string   `json:"description"`
		MaxLength   *int     `json:"maxLength"`
		Maximum     *float64 `json:"maximum"`
	}
	descs := map[string]string{}          // tool, or tool.property → description
	props := map[string]map[string]prop{} // tool → its input properties
	for _, tool := range res.Tools {
		descs[tool.Name] = tool.Description
		b, err := json.Marshal(tool.InputSchema)
		if err != nil {
			t.Fatal(err)
		}
		var s struct {
			Properties map[string]prop `json:"properties"`
		}
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatal(err)
		}
		props[tool.Name] = s.Properties
		for name, p := range s.Properties {
			descs[tool.Name+"."+name] = p.Description
		}
	}
	kib := func(n int) string { return fmt.Sprintf("%d KiB", n>>10) }
	for _, tt := range []struct{ at, want string }{
		{"search_memory.query", fmt.Sprintf("at most %d bytes", loci.MaxQueryBytes)},
		{"set_working.task_id", fmt.Sprintf("at most %d bytes", loci.MaxTaskIDBytes)},
		{"set_working.key", fmt.Sprintf("at most %d bytes", loci.MaxWorkingKeyBytes)},
		{"set_working", fmt.Sprintf("(%d bytes of JSON", loci.MaxWorkingTaskBytes)},
		{"record_episode", fmt.Sprintf("kept %d days, at most %d per user and agent", int(loci.DefaultEpisodeTTL.Hours()/24), loci.DefaultEpisodeCap)},
		{"store_memory.content", "at most " + kib(loci.MaxPassageBytes)},
		{"store_memory.tags", fmt.Sprintf("at most %d, each at most %d bytes", loci.MaxPassageTags, loci.MaxTagBytes)},
		{"store_memory", "content over " + kib(loci.MaxPassageBytes)},
	} {
		if d, ok := descs[tt.at]; !ok {
			t.Errorf("%s: no such tool or property", tt.at)
		} else if !strings.Contains(d, tt.want) {
			t.Errorf("%s: description %q does not say %q", tt.at, d, tt.want)
		}
	}
	if p := props["search_memory"]["query"]; p.MaxLength == nil || *p.MaxLength != loci.MaxQueryBytes {
		t.Errorf("search_memory.query maxLength = %v, want %d", p.MaxLength, loci.MaxQueryBytes)
	}
	for _, tool := range []string{"search_memory", "find_similar_episodes", "search_facts", "list_review"} {
		p := props[tool]["limit"]
		if p.Maximum == nil {
			t.Errorf("%s.limit has no maximum", tool)
		} else if want := fmt.Sprintf("1 to %d", int(*p.Maximum)); !strings.Contains(p.Description, want) {
			t.Errorf("%s.limit: description %q does not say %q", tool, p.Description, want)
		}
	}
}
