package web

import (
	"context"
	"net/url"
	"strconv"

	"github.com/gin-gonic/gin"

	"github.com/tolk-project/tolk/index"
)

// The editor's list order: sort_by, as the API's unit lists take it
// (index.ParseUnitSort), chosen in the search form's menu and kept by
// every link and form of the editor. The default is the list's own
// order, by id, where next and previous are the next and previous
// matching id (a string translated out of "Untranslated" still leads on);
// sorted, they are places in the list (offset=), and a save says its
// place so that the next string is the one after it even when the saved
// string left the list.

// listQuery is what selects and orders the editor's list: the search and
// sort_by as the request gave them.
type listQuery struct {
	q, sort string
}

// values are the query's parameters.
func (l listQuery) values() url.Values {
	v := url.Values{}
	if l.q != "" {
		v.Set("q", l.q)
	}
	if l.sort != "" {
		v.Set("sort_by", l.sort)
	}
	return v
}

// sortOption is one entry of the editor's sort menu.
type sortOption struct {
	Value, Name string
	Current     bool
}

// editorSorts are the menu's orders, as the reference's editor names
// them (weblate-workspace.md §8): each key of index.UnitSortKeys but
// component (one component's list), ascending and descending.
var editorSorts = []struct{ key, name string }{
	{"position", "Position"}, {"priority", "Priority"}, {"labels", "Labels"}, {"source", "Source"},
	{"target", "Target"}, {"timestamp", "Age of string"}, {"last_updated", "Last updated"},
	{"num_words", "Number of words"}, {"num_comments", "Number of comments"},
	{"num_failing_checks", "Number of failing checks"}, {"context", "Key"}, {"location", "String location"},
}

// sortOptions is the menu with current selected.
func sortOptions(current string) []sortOption {
	out := []sortOption{{Value: "", Name: "Default order", Current: current == ""}}
	for _, s := range editorSorts {
		out = append(out, sortOption{Value: s.key, Name: s.name, Current: current == s.key},
			sortOption{Value: "-" + s.key, Name: s.name + " (descending)", Current: current == "-"+s.key})
	}
	return out
}

// sortedPosition finds the place of unit id in the translation's list
// sorted by sorts (from 1), reading the list a page at a time: a sorted
// list has no id order to count by. ok is false when the unit is not in
// the list.
func (s *Server) sortedPosition(ctx context.Context, t *index.Translation, l listQuery, sorts []index.UnitSort, id int64) (int, bool, error) {
	const size = 500
	for page := 1; ; page++ {
		units, total, err := s.store.FindUnits(ctx, index.UnitFilter{TranslationID: t.ID, Query: l.q, Sort: sorts,
			Page: index.Page{Number: page, Size: size}})
		if err != nil {
			return 0, false, err
		}
		for i := range units {
			if units[i].ID == id {
				return (page-1)*size + i + 1, true, nil
			}
		}
		if len(units) == 0 || page*size >= total {
			return 0, false, nil
		}
	}
}

// nextAfterSave is where the editor goes after saving req: the next
// matching id in the list's own order; in a sorted list the place after
// the saved string's, or its own place when the save took it out of
// the list (a translated string leaving "Untranslated").
func (s *Server) nextAfterSave(ctx context.Context, base string, t *index.Translation, req saveRequest) (string, error) {
	l := listQuery{req.Query, req.Sort}
	id := strconv.FormatInt(req.ID, 10)
	if req.Sort == "" {
		return editorURL(base, l, "after", id), nil
	}
	if _, err := index.ParseUnitSort(req.Sort); err != nil {
		return "", err
	}
	_, n, err := s.store.FindUnits(ctx, index.UnitFilter{TranslationID: t.ID, Query: withID(req.Query, "="+id),
		Page: index.Page{Number: 1, Size: 0}})
	if err != nil {
		return "", err
	}
	next := max(req.Offset, 1)
	if n > 0 {
		next++
	}
	return editorURL(base, l, "offset", strconv.Itoa(next)), nil
}

// formList is the list a workspace form was posted from: its hidden q
// and sort_by, for the way back.
func formList(c *gin.Context) listQuery {
	return listQuery{q: c.PostForm("q"), sort: c.PostForm("sort_by")}
}
