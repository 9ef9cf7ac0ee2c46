package index

import (
	"slices"
	"strings"
)

// QueryWords are what a search box may offer to complete: every field
// name of the search language followed by its colon, and the whole
// is: and has: terms, sorted. The editor's search completes them as
// they are typed.
func QueryWords() []string {
	words := make([]string, 0, len(queryFields)+len(isValues)+len(hasValues))
	for f := range queryFields {
		words = append(words, f+":")
	}
	for v := range isValues {
		words = append(words, "is:"+v)
	}
	for v := range hasValues {
		words = append(words, "has:"+v)
	}
	slices.Sort(words)
	return words
}

// queryWordList is QueryWords joined by spaces, made once.
var queryWordList = strings.Join(QueryWords(), " ")

// QueryWordList is QueryWords as one space-separated string.
func QueryWordList() string { return queryWordList }
