package analysis_test

import (
	"slices"
	"testing"

	"github.com/loci-memory/loci/analysis"
)

func TestWords(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string
	}{
		{"Plain", "Hello, World!", []string{"hello", "world"}},
		{"Unicode", "Grüße aus Köln — Ελλάδα 東京", []string{"grüße", "aus", "köln", "ελλάδα", "東京"}},
		{"Digits", "route 66 in 2023", []string{"route", "66", "in", "2023"}},
		{"Apostrophe", "Caroline's dog", []string{"caroline", "s", "dog"}},
		{"Syntax", `"a" AND (b OR c*) NEAR(d e) -f ^g`, []string{"a", "and", "b", "or", "c", "near", "d", "e", "f", "g"}},
		{"InvalidUTF8", "ab\xffcd\x00ef", []string{"ab", "cd", "ef"}},
		{"Emoji", "I ❤️ pizza 🍕!", []string{"i", "pizza"}},
		{"Empty", "  \t\n ", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := analysis.Words(tt.in); !slices.Equal(got, tt.want) {
				t.Errorf("Words(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestTerms(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string
	}{
		{"Stems", "The runners were running quickly", []string{"runner", "run", "quick"}},
		{"StopWordsDropped", "what did she say about it", []string{"say"}},
		{"Plurals", "cats and dogs", []string{"cat", "dog"}},
		{"Contractions", "I'm sure they'll come", []string{"sure", "come"}},
		{"NonASCIIUnstemmed", "cafés running", []string{"cafés", "run"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := analysis.Terms(tt.in); !slices.Equal(got, tt.want) {
				t.Errorf("Terms(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestQueryTerms(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string
	}{
		{"Distinct", "run running runs", []string{"run"}},
		{"OnlyStopWords", "who are you", []string{"who", "are", "you"}},
		{"Empty", "*** ( ) \"", []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := analysis.QueryTerms(tt.in); !slices.Equal(got, tt.want) {
				t.Errorf("QueryTerms(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
	t.Run("Capped", func(t *testing.T) {
		q := ""
		for i := range 200 {
			q += " w" + string(rune('a'+i%26)) + string(rune('a'+i/26))
		}
		if got := len(analysis.QueryTerms(q)); got != analysis.MaxQueryTerms {
			t.Errorf("len = %d, want %d", got, analysis.MaxQueryTerms)
		}
	})
}

func TestSearchText(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"Stemmed", "Melanie: I painted a sunrise", "melani paint sunris"},
		{"StopWordsOnly", "Who are you?", "who are you"},
		{"LongWordCut", "x" + string(make([]byte, 0)) + "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "xaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := analysis.SearchText(tt.in); got != tt.want {
				t.Errorf("SearchText(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}
