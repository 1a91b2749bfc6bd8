package memory

import (
	"strings"
	"unicode"
)

// tokens splits text into lower-cased words: runs of letters and digits.
// The same function analyzes what is indexed and what is queried.
func tokens(text string) []string {
	return strings.FieldsFunc(strings.ToLower(strings.ToValidUTF8(text, " ")), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsNumber(r)
	})
}

// searchText is the analyzed form of content that the lexical index holds.
func searchText(content string) string {
	return strings.Join(tokens(content), " ")
}
