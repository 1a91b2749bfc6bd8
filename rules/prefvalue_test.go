package rules_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/testdb"
)

// TestPreferenceEmptyValue: a preference whose value is an empty or
// whitespace-only string is refused (invalid) and nothing is stored, new
// or over a known preference.
func TestPreferenceEmptyValue(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		e := lcOpen(t, open)
		for _, v := range []string{`""`, `"   "`, `"\t\n"`} {
			_, _, err := e.svc.ObservePreference(e.ctx, loci.PreferenceInput{UserID: "u", Type: "tone", Value: json.RawMessage(v), Source: loci.SourceExplicit})
			if loci.ErrorCode(err) != loci.EINVALID {
				t.Errorf("value %s: %v, want invalid", v, err)
			}
		}
		if n := e.lcCount(t, loci.RecordFilter{Kinds: []loci.Kind{loci.KindPreference}}); n != 0 {
			t.Fatalf("preferences stored: %d, want none", n)
		}
		if _, _, err := e.svc.ObservePreference(e.ctx, loci.PreferenceInput{UserID: "u", Type: "tone", Value: json.RawMessage(`"formal"`), Source: loci.SourceExplicit}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := e.svc.ObservePreference(e.ctx, loci.PreferenceInput{UserID: "u", Type: "tone", Value: json.RawMessage(`" "`), Source: loci.SourceExplicit}); loci.ErrorCode(err) != loci.EINVALID {
			t.Errorf("an empty value over a known preference: %v, want invalid", err)
		}
		prefs, err := e.svc.ListPreferences(e.ctx, "u", "")
		if err != nil {
			t.Fatal(err)
		}
		if len(prefs) != 1 || string(prefs[0].Value) != `"formal"` {
			t.Errorf("preferences: %+v, want tone formal, unchanged", prefs)
		}
	})
}

// TestPreferenceCreatorObservesAgain: a creator may observe a known
// preference again with the same value, as it may record a use: an
// implicit preference rises +15 per repeat to 85. Changing what is known
// needs editor: another value, an explicit statement of an implicit
// preference (it becomes persistent at 100, as confirm makes it), or a
// preference flagged for removal; a refusal changes nothing.
func TestPreferenceCreatorObservesAgain(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		e := lcOpen(t, open)
		creator := loci.WithPrincipal(e.ctx, &loci.Principal{KeyID: "c", Role: loci.RoleCreator})
		editor := loci.WithPrincipal(e.ctx, &loci.Principal{KeyID: "e", Role: loci.RoleEditor})
		observe := func(ctx context.Context, typ, value, source string) (*loci.Preference, error) {
			p, _, err := e.svc.ObservePreference(ctx, loci.PreferenceInput{UserID: "u", Type: typ, Value: json.RawMessage(value), Source: source})
			return p, err
		}
		for i, want := range []int{40, 55, 70, 85, 85} {
			p, err := observe(creator, "kpi", `"ROAS"`, loci.SourceImplicit)
			if err != nil {
				t.Fatalf("creator's observation %d: %v", i+1, err)
			}
			if p.Confidence != want || p.ObservationCount != i+1 {
				t.Errorf("after observation %d: confidence %d, count %d; want %d, %d", i+1, p.Confidence, p.ObservationCount, want, i+1)
			}
		}
		if _, err := e.svc.UsePreference(creator, "u", "kpi", ""); err != nil {
			t.Errorf("creator's use: %v", err)
		}
		for _, tc := range []struct{ name, value, source string }{
			{"OtherValue", `"CPA"`, loci.SourceImplicit},
			{"ExplicitOverImplicit", `"ROAS"`, loci.SourceExplicit},
		} {
			if _, err := observe(creator, "kpi", tc.value, tc.source); loci.ErrorCode(err) != loci.EFORBIDDEN {
				t.Errorf("%s by a creator: %v, want forbidden", tc.name, err)
			}
		}
		prefs, err := e.svc.ListPreferences(e.ctx, "u", "")
		if err != nil || len(prefs) != 1 || string(prefs[0].Value) != `"ROAS"` || prefs[0].Source != loci.SourceImplicit || prefs[0].ObservationCount != 5 {
			t.Fatalf("after refused observations: %+v (%v), want ROAS, implicit, 5 observations", prefs, err)
		}
		// An explicit preference restated explicitly: a creator's too.
		if _, err := observe(editor, "tone", `"formal"`, loci.SourceExplicit); err != nil {
			t.Fatal(err)
		}
		if p, err := observe(creator, "tone", `"formal"`, loci.SourceExplicit); err != nil || p.Confidence != 100 {
			t.Errorf("creator restates an explicit preference: %+v (%v), want confidence 100", p, err)
		}
		// A preference flagged for removal waits for a person.
		if _, err := e.svc.ContradictPreference(editor, "u", "tone", "", loci.SourceExplicit); err != nil {
			t.Fatal(err)
		}
		if _, err := observe(creator, "tone", `"formal"`, loci.SourceExplicit); loci.ErrorCode(err) != loci.EFORBIDDEN {
			t.Errorf("creator observes a flagged preference: %v, want forbidden", err)
		}
		if p, err := observe(editor, "kpi", `"CPA"`, loci.SourceImplicit); err != nil || p.Confidence != 40 {
			t.Errorf("editor observes another value: %+v (%v), want it at 40", p, err)
		}
	})
}
