package analysis_test

import (
	"slices"
	"testing"

	"github.com/kljensen/snowball/english"
	"github.com/loci-memory/loci/analysis"
)

// TestFold: British spellings fold to American ones, and words that only
// look like them are left alone.
func TestFold(t *testing.T) {
	tests := []struct{ in, want string }{
		{"favourite", "favorite"}, {"favourites", "favorites"}, {"colour", "color"}, {"colourful", "colorful"},
		{"neighbourhood", "neighborhood"}, {"behaviour", "behavior"}, {"honoured", "honored"},
		{"organise", "organize"}, {"organised", "organized"}, {"organisation", "organization"}, {"realising", "realizing"},
		{"apologise", "apologize"}, {"travelled", "traveled"}, {"travelling", "traveling"}, {"traveller", "traveler"},
		{"cancelled", "canceled"}, {"centre", "center"}, {"centres", "centers"}, {"theatre", "theater"},
		{"catalogue", "catalog"}, {"dialogues", "dialogs"}, {"defence", "defense"}, {"grey", "gray"},
		{"jewellery", "jewelry"}, {"practise", "practice"}, {"mum", "mom"}, {"analyse", "analyze"},
		// Look-alikes stay as they are.
		{"hour", "hour"}, {"four", "four"}, {"your", "your"}, {"tour", "tour"}, {"journey", "journey"},
		{"promise", "promise"}, {"exercise", "exercise"}, {"surprise", "surprise"}, {"advertise", "advertise"},
		{"rise", "rise"}, {"wise", "wise"}, {"analyses", "analyses"}, {"cancellation", "cancellation"},
		{"filled", "filled"}, {"called", "called"}, {"acre", "acre"}, {"are", "are"}, {"favorite", "favorite"},
		{"o", "o"}, {"", ""}, {"köln", "köln"},
	}
	for _, tt := range tests {
		if got := analysis.Fold(tt.in); got != tt.want {
			t.Errorf("Fold(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestSpellingsMatch: a British and an American spelling analyse to the
// same terms, in what is indexed and in what is queried.
func TestSpellingsMatch(t *testing.T) {
	pairs := [][2]string{
		{"My favourite colour is grey", "my favorite color is gray"},
		{"We travelled to the theatre centre", "we traveled to the theater center"},
		{"She organised the catalogues", "she organized the catalogs"},
		{"I realised the neighbours apologised", "I realized the neighbors apologized"},
	}
	for _, p := range pairs {
		if a, b := analysis.Terms(p[0]), analysis.Terms(p[1]); !slices.Equal(a, b) {
			t.Errorf("Terms(%q) = %q, Terms(%q) = %q: want them equal", p[0], a, p[1], b)
		}
		if a, b := analysis.QueryTerms(p[0]), analysis.QueryTerms(p[1]); !slices.Equal(a, b) {
			t.Errorf("QueryTerms(%q) = %q, QueryTerms(%q) = %q: want them equal", p[0], a, p[1], b)
		}
		if a, b := analysis.SearchText(p[0]), analysis.SearchText(p[1]); a != b {
			t.Errorf("SearchText(%q) = %q, SearchText(%q) = %q: want them equal", p[0], a, p[1], b)
		}
	}
}

// TestFoldStem: text analysed before spellings were folded (the British
// word's own stem) maps to the term the analyzer makes now, and a term of
// today's analysis maps to itself.
func TestFoldStem(t *testing.T) {
	for _, w := range []string{"favourite", "favourites", "colour", "colourful", "organisation", "organised",
		"travelled", "traveller", "centre", "catalogue", "defence", "jewellery", "neighbourhood", "realise"} {
		old := english.Stem(w, false) // what SearchText wrote before
		if got, want := analysis.FoldStem(old), analysis.Stem(w); got != want {
			t.Errorf("FoldStem(%q) (the old stem of %q) = %q, want %q", old, w, got, want)
		}
	}
	// A word that stems as a British word did is folded alike in stored
	// text (by FoldStem) and in what is analysed now (by Stem).
	for _, w := range []string{"emphasis", "capital", "skill"} {
		if got, want := analysis.FoldStem(english.Stem(w, false)), analysis.Stem(w); got != want {
			t.Errorf("FoldStem(the old stem of %q) = %q, Stem(%q) = %q: want them equal", w, got, w, want)
		}
	}
	for _, w := range []string{"favorite", "color", "organization", "travel", "center", "hour", "run", "organ", "gray", "emphasis", "calibrate"} {
		st := analysis.Stem(w)
		if got := analysis.FoldStem(st); got != st {
			t.Errorf("FoldStem(%q) = %q, want it unchanged (the stem of %q now)", st, got, w)
		}
	}
}

// TestQuestionWords: the words that frame a question are left out of a
// query, unless nothing else is left; what is indexed keeps them.
func TestQuestionWords(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"How many children does Melanie have?", []string{"children", "melani"}},
		{"What would Caroline likely pursue?", []string{"carolin", "like", "pursu"}},
		{"What things could she describe?", []string{"thing", "could", "describ"}}, // nothing else: kept
		{"would", []string{"would"}},
		{"How would you describe the view?", []string{"view"}},
	}
	for _, tt := range tests {
		if got := analysis.QueryTerms(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("QueryTerms(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if got := analysis.Terms("Many things would change"); !slices.Equal(got, []string{"mani", "thing", "would", "chang"}) {
		t.Errorf("Terms keeps question words: got %q", got)
	}
}
