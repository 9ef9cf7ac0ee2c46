package web

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"
	"github.com/tolk-project/tolk/edge"
	"github.com/tolk-project/tolk/index"
)

// Zen mode (issue 30, item 6; reference workspace §9.3): many strings
// of a search, each with its own editor, for fast review. Each row is a
// form posting to the editor's save (saveUnit), so a row's save is the
// editor's, with its permission checks and its version guard; there is
// no second save path to diverge (the reference's zen mode lost edits
// through one, §9.4). The script (keys.js) saves a row with Ctrl+Enter
// and moves to the next row, marks rows changed and not yet saved in
// words, and asks before leaving a page with such rows. Without the
// script a row's save comes back to the zen page it was made on, at the
// saved row (the form's "zen" field; saveUnit). The list keeps the
// one-string editor's sort_by: rows, pages, filters and saves follow it.

// zenRows is how many strings the zen view lists at once.
const zenRows = 25

type zenView struct {
	Query, Sort, Base, SaveURL, EditorURL string
	Filters                               []webLink
	First, Total                          int
	ListPrev, ListNext                    string
	CanEdit, CanReview                    bool
	SourceLang, SourceDir                 string
	Lang, Dir                             string
	Rows                                  []zenRow
}

type zenRow struct {
	ID                 int64
	Position           int
	Key, State         string
	Version            string
	EditURL            string
	Source             [][]textPart
	Forms              []editorForm
	Fuzzy, Approved    bool
	ReadOnly, Editable bool
}

// zenURL is the zen view of an editor address (…/translate/P/C/L/).
func zenURL(editor string) string {
	return strings.Replace(editor, "/translate/", "/zen/", 1)
}

// zenPage serves /zen/:project/:component/:language/?q=&offset=.
func (s *Server) zenPage(c *gin.Context) {
	t, err := s.edge.FindTranslation(c)
	if err != nil {
		s.failPage(c, err)
		return
	}
	first := 1
	if o := c.Query("offset"); o != "" {
		if first, err = strconv.Atoi(o); err != nil || first < 1 {
			s.failPage(c, index.Errorf(index.ErrInvalid, "offset: want a place in the list from 1, not %q.", o))
			return
		}
	}
	ctx, q, who := c.Request.Context(), c.Query("q"), edge.Principal(c)
	list := listQuery{q: q, sort: c.Query("sort_by")}
	sorts, err := index.ParseUnitSort(list.sort)
	if err != nil {
		s.failPage(c, err)
		return
	}
	u, p, comp, l := s.edge.PageURLs(c), t.Component.Project.Slug, t.Component.FullSlug(), t.LanguageCode
	page := s.newPage(c, "Zen: "+t.Component.Name+" — "+t.Language.Name)
	page.Crumbs = append(s.translationCrumbs(c, u, &t), webLink{Name: t.Language.Name, URL: u.TranslationWeb(p, comp, l)})
	editor := u.Translate(p, comp, l)
	z := &zenView{Query: q, Sort: list.sort, Base: zenURL(editor), SaveURL: editor + "save/", EditorURL: editorURL(editor, list, "", ""),
		CanEdit: who.CanTranslation(index.PermUnitEdit, &t) && !t.Component.Locked &&
			index.CheckDirectSave(who, &t) == nil,
		CanReview: index.ReviewDenied(who, &t) == "", Lang: t.Language.Code, Dir: dirOf(&t.Language),
		SourceLang: t.Component.SourceLanguage, SourceDir: "ltr"}
	src, err := s.edge.SourceLanguage(c, t.Component.SourceLanguage)
	if err != nil {
		s.failPage(c, err)
		return
	}
	z.SourceDir = dirOf(&src)
	for _, f := range editorFilters {
		z.Filters = append(z.Filters, webLink{Name: f.name, URL: editorURL(z.Base, listQuery{f.q, list.sort}, "", ""), Current: f.q == q})
	}
	// The list is read a page of zenRows at a time: an offset inside a
	// page starts at that page's first string.
	z.First = (first-1)/zenRows*zenRows + 1
	first = z.First
	units, total, err := s.store.FindUnits(ctx, index.UnitFilter{TranslationID: t.ID, Query: q, Sort: sorts,
		Page: index.Page{Number: (first-1)/zenRows + 1, Size: zenRows}})
	if err != nil {
		s.failPage(c, err)
		return
	}
	z.Total = total
	for i := range units {
		x := &units[i]
		row := zenRow{ID: x.ID, Position: first + i, Key: x.Context, State: stateName(x.State, t.ReviewEnabled()),
			Version: unitVersion(x), EditURL: editorURL(editor, list, "offset", strconv.Itoa(first+i)),
			Forms: editorForms(x, &t), Fuzzy: x.State.Fuzzy(), Approved: x.State == index.StateApproved,
			ReadOnly: index.UnitReadOnly(x, &t)}
		for _, f := range x.Source {
			row.Source = append(row.Source, sourceParts(f))
		}
		row.Editable = z.CanEdit && !row.ReadOnly && index.CheckUnitEdit(who, x, &t) == nil
		z.Rows = append(z.Rows, row)
	}
	if first > 1 {
		z.ListPrev = editorURL(z.Base, list, "offset", strconv.Itoa(max(1, first-zenRows)))
	}
	if first+zenRows <= total {
		z.ListNext = editorURL(z.Base, list, "offset", strconv.Itoa(first+zenRows))
	}
	if z.CanEdit {
		page.CSRF = s.edge.CSRFToken(c)
	}
	page.Zen = z
	s.writePage(c, http.StatusOK, page)
}

// editorForms are a unit's target forms as the editor and the zen view
// show them: as many as the translation's plural has (index.PluralCount),
// labelled when there is more than one.
func editorForms(x *index.Unit, t *index.Translation) []editorForm {
	n := index.PluralCount(x, t)
	out := make([]editorForm, 0, n)
	labels := pluralLabels(&t.Language, n) // web_workspace.go
	for i := 0; i < n; i++ {
		f := editorForm{}
		if i < len(x.Target) {
			f.Text = x.Target[i]
		}
		if n > 1 {
			f.Label = labels[i]
		}
		out = append(out, f)
	}
	return out
}

// zenAfterSave is where a zen row's save without the script goes: back
// to the zen page holding the row's place (its offset), on the row.
func zenAfterSave(editor string, req saveRequest) string {
	first := (max(req.Offset, 1)-1)/zenRows*zenRows + 1
	return editorURL(zenURL(editor), listQuery{req.Query, req.Sort}, "offset", strconv.Itoa(first)) +
		"#zen-" + strconv.FormatInt(req.ID, 10)
}
