package loci_test

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/loci-memory/loci"
)

// validateCase is one input to a Validate method and the error it must
// give: its code and message, or none.
type validateCase struct {
	name     string
	v        interface{ Validate() error }
	wantCode string // "" for no error
	wantMsg  string
}

func runValidate(t *testing.T, tests []validateCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.v.Validate()
			if tt.wantCode == "" {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				return
			}
			if got := loci.ErrorCode(err); got != tt.wantCode {
				t.Errorf("code = %q (%v), want %q", got, err, tt.wantCode)
			}
			if got := loci.ErrorMessage(err); got != tt.wantMsg {
				t.Errorf("message = %q, want %q", got, tt.wantMsg)
			}
		})
	}
}

var (
	long256 = strings.Repeat("a", 257)
	long100 = strings.Repeat("a", 101)
)

func TestRequireText(t *testing.T) {
	tests := []struct {
		name, v string
		max     int
		want    string // "" for no error
	}{
		{"OK", "a", 1, ""},
		{"OKNoLimit", strings.Repeat("a", 1<<16), 0, ""},
		{"ErrInvalidUTF8", "\xff", 0, "f must be valid UTF-8"},
		{"ErrNUL", "a\x00", 0, "f must not contain NUL bytes"},
		{"ErrEmpty", "", 0, "f must not be empty"},
		{"ErrBlank", " \t", 0, "f must not be empty"},
		{"ErrTooLong", "ab", 1, "f must be at most 1 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := loci.RequireText("f", tt.v, tt.max)
			if got := loci.ErrorMessage(err); (err == nil) != (tt.want == "") || err != nil && got != tt.want {
				t.Errorf("RequireText = %v, want %q", err, tt.want)
			}
			if err != nil && loci.ErrorCode(err) != loci.EINVALID {
				t.Errorf("code = %q, want invalid", loci.ErrorCode(err))
			}
		})
	}
	// CheckText lets empty text pass, and checks the rest alike.
	if err := loci.CheckText("f", "", 1); err != nil {
		t.Errorf("CheckText(empty) = %v", err)
	}
	if err := loci.CheckText("f", "ab", 1); loci.ErrorMessage(err) != "f must be at most 1 bytes" {
		t.Errorf("CheckText(long) = %v", err)
	}
}

func TestSearchQueryValidate(t *testing.T) {
	runValidate(t, []validateCase{
		{"OK", loci.SearchQuery{Query: "x", Limit: loci.MaxSearchLimit, Kinds: []loci.Kind{loci.KindNote}}, "", ""},
		{"ErrEmpty", loci.SearchQuery{Query: "  "}, loci.EINVALID, "query is required"},
		{"ErrTooLarge", loci.SearchQuery{Query: strings.Repeat("x", loci.MaxQueryBytes+1)}, loci.ETOOLARGE, "query must be at most 4096 bytes"},
		{"ErrLimitNegative", loci.SearchQuery{Query: "x", Limit: -1}, loci.EINVALID, "limit must be between 1 and 1000"},
		{"ErrLimitOverMax", loci.SearchQuery{Query: "x", Limit: loci.MaxSearchLimit + 1}, loci.EINVALID, "limit must be between 1 and 1000"},
		{"ErrKind", loci.SearchQuery{Query: "x", Kinds: []loci.Kind{"nope"}}, loci.EINVALID, `unknown kind "nope"`},
	})
}

func TestAgentSearchQueryValidate(t *testing.T) {
	runValidate(t, []validateCase{
		{"OK", loci.AgentSearchQuery{Query: "x", AgentID: "a", UserID: "u"}, "", ""},
		{"OKNoUser", loci.AgentSearchQuery{Query: "x", AgentID: "a"}, "", ""},
		{"ErrEmpty", loci.AgentSearchQuery{AgentID: "a"}, loci.EINVALID, "query is required"},
		{"ErrTooLarge", loci.AgentSearchQuery{Query: strings.Repeat("x", loci.MaxQueryBytes+1), AgentID: "a"}, loci.ETOOLARGE, "query must be at most 4096 bytes"},
		{"ErrLimit", loci.AgentSearchQuery{Query: "x", AgentID: "a", Limit: loci.MaxSearchLimit + 1}, loci.EINVALID, "limit must be between 1 and 1000"},
		{"ErrNoAgent", loci.AgentSearchQuery{Query: "x"}, loci.EINVALID, "agent_id must not be empty"},
		{"ErrAgentTooLong", loci.AgentSearchQuery{Query: "x", AgentID: long256}, loci.EINVALID, "agent_id must be at most 256 bytes"},
		{"ErrUserNUL", loci.AgentSearchQuery{Query: "x", AgentID: "a", UserID: "u\x00"}, loci.EINVALID, "user_id must not contain NUL bytes"},
		{"ErrKind", loci.AgentSearchQuery{Query: "x", AgentID: "a", Kinds: []loci.Kind{"nope"}}, loci.EINVALID, `unknown kind "nope"`},
	})
}

func TestBlockSpecValidate(t *testing.T) {
	runValidate(t, []validateCase{
		{"OK", loci.BlockSpec{Label: "persona", Content: "é", Limit: 1}, "", ""},
		{"OKDefaultLimit", loci.BlockSpec{Label: "persona", Content: strings.Repeat("a", loci.DefaultBlockLimit)}, "", ""},
		{"ErrNoLabel", loci.BlockSpec{}, loci.EINVALID, "label must not be empty"},
		{"ErrLabelTooLong", loci.BlockSpec{Label: strings.Repeat("a", loci.MaxBlockLabelBytes+1)}, loci.EINVALID, "label must be at most 128 bytes"},
		{"ErrLabelLines", loci.BlockSpec{Label: "a\nb"}, loci.EINVALID, "label must be one line"},
		{"ErrLimitNegative", loci.BlockSpec{Label: "l", Limit: -1}, loci.EINVALID, "limit must be between 1 and 200000 characters"},
		{"ErrLimitOverMax", loci.BlockSpec{Label: "l", Limit: loci.MaxBlockLimit + 1}, loci.EINVALID, "limit must be between 1 and 200000 characters"},
		{"ErrContentNUL", loci.BlockSpec{Label: "l", Content: "\x00"}, loci.EINVALID, "content must not contain NUL bytes"},
		{"ErrOverLimit", loci.BlockSpec{Label: "l", Content: "abc", Limit: 2}, loci.ETOOLARGE, "content is 3 characters, over the block's limit of 2"},
		{"ErrOverDefault", loci.BlockSpec{Label: "l", Content: strings.Repeat("a", loci.DefaultBlockLimit+1)}, loci.ETOOLARGE, "content is 5001 characters, over the block's limit of 5000"},
	})
}

func TestBlockWriteValidate(t *testing.T) {
	runValidate(t, []validateCase{
		{"OK", loci.BlockWrite{Content: strings.Repeat("a", loci.DefaultBlockLimit+1)}, "", ""},
		{"ErrLimit", loci.BlockWrite{Limit: loci.MaxBlockLimit + 1}, loci.EINVALID, "limit must be between 1 and 200000 characters"},
		{"ErrContentUTF8", loci.BlockWrite{Content: "\xff"}, loci.EINVALID, "content must be valid UTF-8"},
	})
}

func TestAgentCreateValidate(t *testing.T) {
	runValidate(t, []validateCase{
		{"OK", loci.AgentCreate{ID: "a", Name: "A", Blocks: []loci.BlockSpec{{Label: "x"}, {Label: "y"}}}, "", ""},
		{"ErrNoID", loci.AgentCreate{}, loci.EINVALID, "agent_id must not be empty"},
		{"ErrIDTooLong", loci.AgentCreate{ID: long256}, loci.EINVALID, "agent_id must be at most 256 bytes"},
		{"ErrNameTooLong", loci.AgentCreate{ID: "a", Name: strings.Repeat("n", loci.MaxAgentNameBytes+1)}, loci.EINVALID, "name must be at most 256 bytes"},
		{"ErrBlock", loci.AgentCreate{ID: "a", Blocks: []loci.BlockSpec{{Label: ""}}}, loci.EINVALID, "label must not be empty"},
		{"ErrLabelTwice", loci.AgentCreate{ID: "a", Blocks: []loci.BlockSpec{{Label: "x"}, {Label: "x"}}}, loci.EINVALID, `block label "x" is given twice`},
	})
}

func TestMessageValidate(t *testing.T) {
	runValidate(t, []validateCase{
		{"OK", loci.Message{Role: "user", Content: "hi"}, "", ""},
		{"ErrNoRole", loci.Message{Content: "hi"}, loci.EINVALID, "role must not be empty"},
		{"ErrRoleTooLong", loci.Message{Role: strings.Repeat("r", loci.MaxMessageRoleBytes+1), Content: "hi"}, loci.EINVALID, "role must be at most 64 bytes"},
		{"ErrNoContent", loci.Message{Role: "user"}, loci.EINVALID, "content must not be empty"},
		{"ErrTooLarge", loci.Message{Role: "user", Content: strings.Repeat("a", loci.MaxMessageBytes+1)}, loci.ETOOLARGE, "a message must be at most 65536 bytes"},
	})
}

func TestSessionPutValidate(t *testing.T) {
	runValidate(t, []validateCase{
		{"OK", loci.SessionPut{UserID: "u", Summary: "s", Confidence: 100, Messages: []loci.Message{{Role: "user", Content: "hi"}}}, "", ""},
		{"ErrNoUser", loci.SessionPut{}, loci.EINVALID, "user_id must not be empty"},
		{"ErrSummaryNUL", loci.SessionPut{UserID: "u", Summary: "\x00"}, loci.EINVALID, "summary must not contain NUL bytes"},
		{"ErrSummaryTooLarge", loci.SessionPut{UserID: "u", Summary: strings.Repeat("a", loci.MaxSessionSummary+1)}, loci.ETOOLARGE, "summary must be at most 65536 bytes"},
		{"ErrConfidence", loci.SessionPut{UserID: "u", Confidence: 101}, loci.EINVALID, "confidence must be between 0 and 100"},
		{"ErrConfidenceNaN", loci.SessionPut{UserID: "u", Confidence: math.NaN()}, loci.EINVALID, "confidence must be between 0 and 100"},
		{"ErrMessage", loci.SessionPut{UserID: "u", Messages: []loci.Message{{Role: "user"}}}, loci.EINVALID, "content must not be empty"},
	})
}

func TestEpisodeInputValidate(t *testing.T) {
	ok := func(f func(*loci.EpisodeInput)) loci.EpisodeInput {
		in := loci.EpisodeInput{UserID: "u", AgentID: "a", ActionType: "t", ActionDescription: "d", Outcome: loci.OutcomeSuccess}
		f(&in)
		return in
	}
	runValidate(t, []validateCase{
		{"OK", ok(func(in *loci.EpisodeInput) {
			in.ConfidenceScore, in.Context = loci.Ptr(1.0), json.RawMessage(`{"a":1}`)
		}), "", ""},
		{"OKNullContext", ok(func(in *loci.EpisodeInput) { in.Context = json.RawMessage(" null ") }), "", ""},
		{"ErrNoUser", ok(func(in *loci.EpisodeInput) { in.UserID = "" }), loci.EINVALID, "user_id must not be empty"},
		{"ErrAgentTooLong", ok(func(in *loci.EpisodeInput) { in.AgentID = long256 }), loci.EINVALID, "agent_id must be at most 256 bytes"},
		{"ErrActionTypeTooLong", ok(func(in *loci.EpisodeInput) { in.ActionType = long256 }), loci.EINVALID, "action_type must be at most 256 bytes"},
		{"ErrNoDescription", ok(func(in *loci.EpisodeInput) { in.ActionDescription = " " }), loci.EINVALID, "action_description must not be empty"},
		{"ErrOutcome", ok(func(in *loci.EpisodeInput) { in.Outcome = "meh" }), loci.EINVALID, "outcome must be one of success, partial, failure"},
		{"ErrConfidence", ok(func(in *loci.EpisodeInput) { in.ConfidenceScore = loci.Ptr(1.5) }), loci.EINVALID, "confidence_score must be between 0 and 1"},
		{"ErrContextNotObject", ok(func(in *loci.EpisodeInput) { in.Context = json.RawMessage(`[1]`) }), loci.EINVALID, "context must be a JSON object"},
		{"ErrDetailsMalformed", ok(func(in *loci.EpisodeInput) { in.OutcomeDetails = json.RawMessage(`{"a":`) }), loci.EINVALID, "outcome_details must be a JSON object"},
	})
}

func TestFactInputValidate(t *testing.T) {
	ok := func(f func(*loci.FactInput)) loci.FactInput {
		in := loci.FactInput{Category: loci.CategoryGeneralFact, Fact: "f"}
		f(&in)
		return in
	}
	many := make([]string, loci.MaxFactKeywords+1)
	for i := range many {
		many[i] = strconv.Itoa(i)
	}
	runValidate(t, []validateCase{
		{"OK", ok(func(in *loci.FactInput) {
			in.UserID, in.AgentID, in.Key, in.Evidence = "u", "a", "home_city", json.RawMessage(`{}`)
		}), "", ""},
		{"OKRepeatedKeywords", ok(func(in *loci.FactInput) {
			in.Keywords = append(strings.Split(strings.Repeat("k,", loci.MaxFactKeywords+5), ","), " ")
		}), "", ""},
		{"ErrCategory", ok(func(in *loci.FactInput) { in.Category = "" }), loci.EINVALID, "category must be a name of a-z, 0-9 and _ starting with a letter, at most 64 bytes (for example " + strings.Join(loci.FactCategories, ", ") + ")"},
		{"OpenCategory", ok(func(in *loci.FactInput) { in.Category = "food_2" }), "", ""},
		{"ErrCategoryUpper", ok(func(in *loci.FactInput) { in.Category = "Food" }), loci.EINVALID, "category must be a name of a-z, 0-9 and _ starting with a letter, at most 64 bytes (for example " + strings.Join(loci.FactCategories, ", ") + ")"},
		{"ErrNoFact", ok(func(in *loci.FactInput) { in.Fact = "" }), loci.EINVALID, "fact must not be empty"},
		{"ErrUserTooLong", ok(func(in *loci.FactInput) { in.UserID = long256 }), loci.EINVALID, "user_id must be at most 256 bytes"},
		{"ErrAgentNUL", ok(func(in *loci.FactInput) { in.AgentID = "\x00" }), loci.EINVALID, "agent_id must not contain NUL bytes"},
		{"ErrKeyTooLong", ok(func(in *loci.FactInput) { in.Key = strings.Repeat("k", loci.MaxFactKeyBytes+1) }), loci.EINVALID, "key must be at most 200 bytes"},
		{"ErrKeywordTooLong", ok(func(in *loci.FactInput) { in.Keywords = []string{long100} }), loci.EINVALID, "keyword must be at most 100 bytes"},
		{"ErrTooManyKeywords", ok(func(in *loci.FactInput) { in.Keywords = many[:loci.MaxFactKeywords+1] }), loci.EINVALID, "a fact has at most 100 keywords"},
		{"ErrEvidence", ok(func(in *loci.FactInput) { in.Evidence = json.RawMessage(`"x"`) }), loci.EINVALID, "evidence must be a JSON object"},
	})
}

func TestPreferenceInputValidate(t *testing.T) {
	ok := func(f func(*loci.PreferenceInput)) loci.PreferenceInput {
		in := loci.PreferenceInput{UserID: "u", Type: "t", Value: json.RawMessage(`"v"`), Source: loci.SourceExplicit}
		f(&in)
		return in
	}
	runValidate(t, []validateCase{
		{"OK", ok(func(in *loci.PreferenceInput) { in.Context = "c" }), "", ""},
		{"OKDecision", ok(func(in *loci.PreferenceInput) { in.Source, in.SessionID = loci.SourceDecision, "s" }), "", ""},
		{"ErrNoUser", ok(func(in *loci.PreferenceInput) { in.UserID = "" }), loci.EINVALID, "user_id must not be empty"},
		{"ErrTypeTooLong", ok(func(in *loci.PreferenceInput) { in.Type = long100 }), loci.EINVALID, "type must be at most 100 bytes"},
		{"ErrSource", ok(func(in *loci.PreferenceInput) { in.Source = "guess" }), loci.EINVALID, "source must be explicit, implicit or decision"},
		{"ErrNoValue", ok(func(in *loci.PreferenceInput) { in.Value = json.RawMessage("null") }), loci.EINVALID, "value is required"},
		{"ErrValueMalformed", ok(func(in *loci.PreferenceInput) { in.Value = json.RawMessage("{") }), loci.EINVALID, "value must be valid JSON"},
		{"ErrValueEmpty", ok(func(in *loci.PreferenceInput) { in.Value = json.RawMessage(`""`) }), loci.EINVALID, "value must not be empty"},
		{"ErrValueWhitespace", ok(func(in *loci.PreferenceInput) { in.Value = json.RawMessage(` " \t\n " `) }), loci.EINVALID, "value must not be empty"},
		{"OKValueList", ok(func(in *loci.PreferenceInput) { in.Value = json.RawMessage(`["Paid Search", "CTV"]`) }), "", ""},
		{"OKValueNumber", ok(func(in *loci.PreferenceInput) { in.Value = json.RawMessage(`500000`) }), "", ""},
		{"ErrContextTooLong", ok(func(in *loci.PreferenceInput) {
			in.Context = strings.Repeat("c", loci.MaxPreferenceContextBytes+1)
		}), loci.EINVALID, "context must be at most 4096 bytes"},
		{"ErrDecisionNoSession", ok(func(in *loci.PreferenceInput) { in.Source = loci.SourceDecision }), loci.EINVALID, "a decision needs its session_id"},
	})
}

func TestWorkingInputValidate(t *testing.T) {
	ok := func(f func(*loci.WorkingInput)) loci.WorkingInput {
		in := loci.WorkingInput{TaskID: "t", AgentID: "a", Key: "k", Value: json.RawMessage(`1`)}
		f(&in)
		return in
	}
	runValidate(t, []validateCase{
		{"OK", ok(func(in *loci.WorkingInput) { in.UserID = "u" }), "", ""},
		{"ErrTaskTooLong", ok(func(in *loci.WorkingInput) { in.TaskID = long100 }), loci.EINVALID, "task_id must be at most 100 bytes"},
		{"ErrNoAgent", ok(func(in *loci.WorkingInput) { in.AgentID = "" }), loci.EINVALID, "agent_id must not be empty"},
		{"ErrUserUTF8", ok(func(in *loci.WorkingInput) { in.UserID = "\xff" }), loci.EINVALID, "user_id must be valid UTF-8"},
		{"ErrKeyTooLong", ok(func(in *loci.WorkingInput) { in.Key = long100 }), loci.EINVALID, "key must be at most 100 bytes"},
		{"ErrNoValue", ok(func(in *loci.WorkingInput) { in.Value = nil }), loci.EINVALID, "value is required"},
		{"ErrValueMalformed", ok(func(in *loci.WorkingInput) { in.Value = json.RawMessage("[1,") }), loci.EINVALID, "value must be valid JSON"},
	})
}

func TestStatsQueryValidate(t *testing.T) {
	runValidate(t, []validateCase{
		{"OK", loci.StatsQuery{AgentID: "a", UserID: "u", Top: loci.MaxStatsTop, Days: loci.MaxStatsDays}, "", ""},
		{"OKZero", loci.StatsQuery{}, "", ""},
		{"ErrTop", loci.StatsQuery{Top: loci.MaxStatsTop + 1}, loci.EINVALID, "top must be between 1 and 100"},
		{"ErrDays", loci.StatsQuery{Days: -1}, loci.EINVALID, "days must be between 1 and 366"},
		{"ErrAgentTooLong", loci.StatsQuery{AgentID: strings.Repeat("a", loci.MaxOverviewScopeBytes+1)}, loci.EINVALID, "agent_id must be at most 1024 bytes"},
		{"ErrUserNUL", loci.StatsQuery{UserID: "\x00"}, loci.EINVALID, "user_id must not contain NUL bytes"},
	})
}

func TestKeySpecValidate(t *testing.T) {
	runValidate(t, []validateCase{
		{"OK", loci.KeySpec{Role: loci.RoleAdmin, AgentID: "a", Name: "n"}, "", ""},
		{"ErrRole", loci.KeySpec{Role: "root"}, loci.EINVALID, `role must be one of viewer, creator, editor, admin, not "root"`},
		{"ErrAgentBlank", loci.KeySpec{Role: loci.RoleViewer, AgentID: " "}, loci.EINVALID, "agent_id must not be empty"},
		{"ErrNameTooLong", loci.KeySpec{Role: loci.RoleViewer, Name: strings.Repeat("n", loci.MaxKeyNameBytes+1)}, loci.EINVALID, "name must be at most 256 bytes"},
	})
}
