package mcpserver_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/mcpserver"
)

func TestObservePreference(t *testing.T) {
	eachService(t, func(t *testing.T, svc loci.Service) {
		ctx := context.Background()
		cs := MustConnect(t, svc, mcpserver.Identity{AgentID: "orc", UserID: "u"})
		t.Run("OKExplicit", func(t *testing.T) {
			r := MustCall(t, cs, "observe_preference", map[string]any{"type": "default_vertical", "value": "Retail", "source": "explicit", "context": "user said so"})
			wantOK(t, r)
			for k, want := range map[string]any{
				"action": "created", "type": "default_vertical", "value": "Retail", "source": "explicit", "confidence": float64(100),
				"tier": "high", "is_persistent": true, "observation_count": float64(1), "learned_from": "explicit statement", "context": "user said so",
			} {
				if r.out[k] != want {
					t.Errorf("%s = %v, want %v", k, r.out[k], want)
				}
			}
		})
		t.Run("OKImplicitRepeats", func(t *testing.T) {
			channels := []any{"Paid Search", "CTV"}
			for i, want := range []struct {
				action     string
				confidence float64
				tier       string
			}{{"created", 40, "low"}, {"updated", 55, "medium"}, {"updated", 70, "medium"}, {"updated", 85, "high"}, {"updated", 85, "high"}} {
				r := MustCall(t, cs, "observe_preference", map[string]any{"type": "channel_preference", "value": channels, "source": "implicit"})
				wantOK(t, r)
				if r.out["action"] != want.action || r.out["confidence"] != want.confidence || r.out["tier"] != want.tier {
					t.Errorf("observation %d: got %s, want %s, confidence %v, tier %s", i+1, r.text, want.action, want.confidence, want.tier)
				}
			}
			prefs, err := svc.ListPreferences(ctx, "u", "")
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range prefs {
				if p.Type == "channel_preference" && string(p.Value) != `["Paid Search","CTV"]` {
					t.Errorf("stored value = %s", p.Value)
				}
			}
		})
		t.Run("OKDecision", func(t *testing.T) {
			r := MustCall(t, cs, "observe_preference", map[string]any{"type": "budget", "value": 500000, "source": "decision", "session_id": "s1"})
			wantOK(t, r)
			if r.out["session_id"] != "s1" || r.out["is_persistent"] != false || r.out["value"] != float64(500000) {
				t.Errorf("got %s, want a session decision", r.text)
			}
		})
		for _, tc := range []struct {
			name string
			args map[string]any
			msg  string
		}{
			{"ErrEmptyType", map[string]any{"type": "", "value": "x", "source": "explicit"}, "type must not be empty"},
			{"ErrNullValue", map[string]any{"type": "t", "value": nil, "source": "explicit"}, "value is required"},
			{"ErrDecisionWithoutSession", map[string]any{"type": "t", "value": 1, "source": "decision"}, "a decision needs its session_id"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				wantError(t, MustCall(t, cs, "observe_preference", tc.args), loci.EINVALID, tc.msg)
			})
		}
		t.Run("ErrBadSource", func(t *testing.T) {
			wantSchemaError(t, MustCall(t, cs, "observe_preference", map[string]any{"type": "t", "value": 1, "source": "rumour"}), "source")
		})
		t.Run("ErrMissingValue", func(t *testing.T) {
			wantSchemaError(t, MustCall(t, cs, "observe_preference", map[string]any{"type": "t", "source": "explicit"}), "value")
		})
		t.Run("ErrUserArgument", func(t *testing.T) {
			wantSchemaError(t, MustCall(t, cs, "observe_preference", map[string]any{"type": "t", "value": 1, "source": "explicit", "user_id": "other"}), "user_id")
		})
		t.Run("ErrNoUser", func(t *testing.T) {
			noUser := MustConnect(t, svc, mcpserver.Identity{AgentID: "orc"})
			wantUnlisted(t, noUser, "observe_preference", map[string]any{"type": "t", "value": 1, "source": "explicit"})
		})
		if prefs, _ := svc.ListPreferences(ctx, "u", ""); len(prefs) != 3 {
			t.Errorf("u has %d preferences, want 3 (refused calls store nothing)", len(prefs))
		}
	})
}

func TestGetUserContext(t *testing.T) {
	eachService(t, func(t *testing.T, svc loci.Service) {
		ctx := context.Background()
		cs := MustConnect(t, svc, mcpserver.Identity{AgentID: "orc", UserID: "u"})
		t.Run("OKNewUser", func(t *testing.T) {
			r := MustCall(t, cs, "get_user_context", nil)
			wantOK(t, r)
			if r.out["user_id"] != "u" || r.out["created"] != true {
				t.Errorf("got %s, want user u created", r.text)
			}
			if d, ok := r.out["defaults"].(map[string]any); !ok || len(d) != 0 {
				t.Errorf("defaults = %v, want {}", r.out["defaults"])
			}
			if p, ok := r.out["preferences"].([]any); !ok || len(p) != 0 {
				t.Errorf("preferences = %v, want []", r.out["preferences"])
			}
			if s, ok := r.out["sessions"].([]any); !ok || len(s) != 0 {
				t.Errorf("sessions = %v, want []", r.out["sessions"])
			}
		})
		MustCall(t, cs, "observe_preference", map[string]any{"type": "default_vertical", "value": "Retail", "source": "explicit"})
		MustCall(t, cs, "observe_preference", map[string]any{"type": "kpis", "value": []any{"CTR"}, "source": "implicit"})
		MustCall(t, cs, "observe_preference", map[string]any{"type": "budget", "value": 500000, "source": "decision", "session_id": "s1"})
		if _, _, err := svc.PutSession(ctx, "s1", loci.SessionPut{UserID: "u", Summary: "Q2 retail plan", Context: json.RawMessage(`{"vertical":"Retail"}`), IsPersistent: true, Confidence: 90}); err != nil {
			t.Fatal(err)
		}
		t.Run("OK", func(t *testing.T) {
			r := MustCall(t, cs, "get_user_context", map[string]any{})
			wantOK(t, r)
			if r.out["created"] != false {
				t.Errorf("created = %v, want false", r.out["created"])
			}
			prefs, _ := r.out["preferences"].([]any)
			if len(prefs) != 2 {
				t.Fatalf("preferences = %v, want the two user-level ones (not the session decision)", prefs)
			}
			first, second := prefs[0].(map[string]any), prefs[1].(map[string]any)
			if first["type"] != "default_vertical" || first["tier"] != "high" || second["type"] != "kpis" || second["tier"] != "low" {
				t.Errorf("preferences = %v, want default_vertical (high) then kpis (low)", prefs)
			}
			sessions, _ := r.out["sessions"].([]any)
			if len(sessions) != 1 {
				t.Fatalf("sessions = %v, want s1", sessions)
			}
			s := sessions[0].(map[string]any)
			if c, _ := s["context"].(map[string]any); s["session_id"] != "s1" || s["summary"] != "Q2 retail plan" || c["vertical"] != "Retail" {
				t.Errorf("session = %v", s)
			}
		})
		t.Run("ErrArgument", func(t *testing.T) {
			wantSchemaError(t, MustCall(t, cs, "get_user_context", map[string]any{"user_id": "other"}), "user_id")
		})
		t.Run("ErrNoUser", func(t *testing.T) {
			noUser := MustConnect(t, svc, mcpserver.Identity{AgentID: "orc"})
			wantUnlisted(t, noUser, "get_user_context", nil)
		})
	})
}

// TestPreferenceIsolation: a connection bound to user V cannot see or
// change user U's preferences.
func TestPreferenceIsolation(t *testing.T) {
	eachService(t, func(t *testing.T, svc loci.Service) {
		ctx := context.Background()
		u := MustConnect(t, svc, mcpserver.Identity{AgentID: "orc", UserID: "U"})
		v := MustConnect(t, svc, mcpserver.Identity{AgentID: "orc", UserID: "V"})
		wantOK(t, MustCall(t, u, "observe_preference", map[string]any{"type": "default_vertical", "value": "Retail", "source": "explicit"}))
		r := MustCall(t, v, "get_user_context", nil)
		if prefs, _ := r.out["preferences"].([]any); len(prefs) != 0 || r.out["user_id"] != "V" {
			t.Errorf("V's context = %s, want V with no preferences", r.text)
		}
		if r := MustCall(t, v, "observe_preference", map[string]any{"type": "default_vertical", "value": "Auto", "source": "explicit"}); r.out["action"] != "created" {
			t.Errorf("V's observation: %s, want V's own preference created", r.text)
		}
		prefs, err := svc.ListPreferences(ctx, "U", "")
		if err != nil || len(prefs) != 1 || string(prefs[0].Value) != `"Retail"` {
			t.Errorf("U's preferences = %v, %v; want Retail untouched", prefs, err)
		}
	})
}
