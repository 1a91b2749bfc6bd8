package httpapi

import (
	"testing"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/testdb"
)

// TestPreferenceObserveRolesAndValue: an empty or whitespace-only value is
// 400 and stores nothing; a creator key may observe a preference again
// with the same value (+15 per repeat, as the OpenAPI gives it the creator
// role) and record a use, but another value or an explicit statement of
// an implicit preference needs editor (403, nothing changed).
func TestPreferenceObserveRolesAndValue(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		e := newSecEnv(t, open)
		creator, _ := e.key(t, loci.RoleCreator, "")
		editor, _ := e.key(t, loci.RoleEditor, "")
		const path = "/v1/users/u/preferences"
		tests := []struct {
			name, method, path, key, body string
			want                          int
			confidence                    float64
		}{
			{"ErrEmptyValue", "POST", path, creator, `{"type":"kpi","value":"","source":"implicit"}`, 400, 0},
			{"ErrWhitespaceValue", "POST", path, creator, `{"type":"kpi","value":"  \t ","source":"explicit"}`, 400, 0},
			{"NothingStored", "GET", path, creator, "", 200, 0},
			{"Observe", "POST", path, creator, `{"type":"kpi","value":"ROAS","source":"implicit"}`, 201, 40},
			{"Repeat", "POST", path, creator, `{"type":"kpi","value":"ROAS","source":"implicit"}`, 200, 55},
			{"Use", "POST", path + "/kpi/use", creator, "", 200, 55}, // +5 up to its peak
			{"RepeatAgain", "POST", path, creator, `{"type":"kpi","value":"ROAS","source":"implicit","context":"chosen again"}`, 200, 70},
			{"ErrOtherValue", "POST", path, creator, `{"type":"kpi","value":"CPA","source":"implicit"}`, 403, 0},
			{"ErrExplicit", "POST", path, creator, `{"type":"kpi","value":"ROAS","source":"explicit"}`, 403, 0},
			{"ErrEmptyOverKnown", "POST", path, editor, `{"type":"kpi","value":" ","source":"implicit"}`, 400, 0},
			{"Unchanged", "GET", path, creator, "", 200, 70},
			{"EditorOtherValue", "POST", path, editor, `{"type":"kpi","value":"CPA","source":"implicit"}`, 200, 40},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				var body []byte
				if tt.body != "" {
					body = []byte(tt.body)
				}
				status, out, rec := e.call(t, tt.method, tt.path, tt.key, body)
				if status != tt.want {
					t.Fatalf("status %d (%s), want %d", status, rec.Body, tt.want)
				}
				switch {
				case tt.method == "GET":
					prefs, _ := out["preferences"].([]any)
					if tt.confidence == 0 && len(prefs) != 0 {
						t.Errorf("preferences: %s, want none", rec.Body)
					} else if tt.confidence != 0 && (len(prefs) != 1 || prefs[0].(map[string]any)["confidence"] != tt.confidence ||
						prefs[0].(map[string]any)["value"] != "ROAS") {
						t.Errorf("preferences: %s, want ROAS at %v", rec.Body, tt.confidence)
					}
				case status < 300 && out["confidence"] != tt.confidence:
					t.Errorf("confidence %v, want %v (%s)", out["confidence"], tt.confidence, rec.Body)
				}
			})
		}
	})
}
