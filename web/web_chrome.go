package web

import (
	"net/url"

	"github.com/tolk-project/tolk/edge"
	"github.com/tolk-project/tolk/index"
)

// The page chrome's ways into the editor (issue 30, item 7): a person
// arriving at a translation, component or project page sees a
// "Translate" button, not only statistics and a list of filters.

// todoQuery is what a "Translate" button opens: the strings not yet
// done (the reference's "Unfinished strings", state:<translated), or
// every string when none is left, so the button never leads to an
// empty editor.
const todoQuery = "state:<translated"

// translateURL is the editor of t at its strings left to do.
func translateURL(u edge.URLs, t *index.Translation) string {
	edit := u.Translate(t.Component.Project.Slug, t.Component.FullSlug(), t.LanguageCode)
	if t.Stats.Total > 0 && t.Stats.Translated >= t.Stats.Total {
		return edit
	}
	return edit + "?q=" + url.QueryEscape(todoQuery)
}
