package rules

import "github.com/loci-memory/loci/analysis"

// tokens analyzes query text into the distinct terms the lexical index is
// searched with (analysis.QueryTerms): the same analysis as searchText.
func tokens(text string) []string {
	return analysis.QueryTerms(text)
}

// contentTerms analyzes text into its index terms, as searchText does, without
// the query limits of tokens.
func contentTerms(text string) []string {
	return analysis.Terms(text)
}

// searchText is the analyzed form of content that the lexical index holds.
func searchText(content string) string {
	return analysis.SearchText(content)
}
