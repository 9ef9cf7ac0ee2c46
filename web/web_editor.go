package web

import (
	"context"
	"encoding/json"
	"errors"
	"hash/fnv"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"
	"github.com/tolk-project/tolk/checks"
	"github.com/tolk-project/tolk/edge"
	"github.com/tolk-project/tolk/index"
)

// The editor, /translate/:project/:component/:language/: one string of
// a filtered list (the API's q search) with the list around it. Which
// string is shown comes from the query: checksum= (a unit's web_url),
// offset= (its place in the list, from 1), after= or before= (the next
// or previous match after a unit id, so that a list that shrinks as
// strings are translated still moves on). Saves go to .../save/ through
// the API's unit write (index.CheckUnitPatch in UpdateUnit's
// transaction), refused when the unit changed since it was loaded.

// editorRows is how many strings the editor's list shows per page.
const editorRows = 20

// editorView is the editor part of a page.
type editorView struct {
	Query            string
	Sort             string // sort_by (web_editor_sort.go)
	SortOptions      []sortOption
	Filters          []webLink
	Position, Total  int
	Prev, Next, Base string
	ListPrev         string
	ListNext         string
	Rows             []editorRow
	Unit             *editorUnit
	SaveURL          string
	CommentURL       string
	SuggestURL       string
	CanEdit          bool
	CanComment       bool
	Scopes           []scopeOption
	CanSuggest       bool // suggestions on, and who may add them
	AnonymousSuggest bool // CanSuggest for an anonymous visitor (web_workspace.go)
	Voting           bool // the component counts votes on suggestions
	CanReview        bool
	// Denied is why the signed-in user may not edit the string shown
	// when they may edit others (an approved string is the reviewers').
	Denied     string
	Locked     bool // the component takes no edits now
	SourceLang string
	SourceDir  string
	Lang, Dir  string
	Translated string // the translation's translated percentage
	Conflict   *editorConflict
	// Machinery are the project's machine translation services, one box
	// each that the script fills from /js/translate/ (web_machinery.go);
	// none without machinery.view.
	Machinery []machineryBox
}

type editorRow struct {
	Position                 int
	URL, Key, Source, Target string
	State                    string
	Current                  bool
}

// editorUnit is the string being edited.
type editorUnit struct {
	ID           int64
	Key          string
	Source       [][]textPart // per plural form
	Forms        []editorForm
	State        string
	Fuzzy        bool
	Approved     bool
	ReadOnly     bool
	Explanation  string
	Note         string
	Location     string
	Version      string
	Placeholders []string
	Missing      []string
	Glossary     []glossaryTerm
	Changes      []changeRow
	Suggestions  []suggestionRow
	APIURL       string
	Labels       []index.Label // its source string's
	Comments     []commentRow
	workspaceUnit
}

type editorForm struct{ Label, Text string }

type glossaryTerm struct{ Term, Translation string }

// changeRow is one change of a string's history. A long target is
// shortened (edge.ShortText) and Full links to the change's whole text.
type changeRow struct {
	When, Who, Action, Target, Full string
	historyRow
}

// editorConflict is a refused save: what is stored now and what the
// translator sent.
type editorConflict struct {
	Theirs, Yours []string
	TheirsState   string
}

// placeholderRE finds the placeholders translators must keep: {name},
// {{count}}, printf's %s, %d, %1$s and the like.
var placeholderRE = regexp.MustCompile(`\{\{[^{}]*\}\}|\{[A-Za-z0-9_.$-]+\}|%(?:\d+\$)?[-+ #0]*\d*(?:\.\d+)?[sdifuxXcoeEgG@]`)

// missingPlaceholders returns the placeholders of the source that a
// non-empty target lacks.
func missingPlaceholders(source, target []string) (all, missing []string) {
	for _, f := range source {
		for _, p := range placeholderRE.FindAllString(f, -1) {
			if !slices.Contains(all, p) {
				all = append(all, p)
			}
		}
	}
	if index.IsBlank(target) {
		return all, nil
	}
	joined := strings.Join(target, "\x00")
	for _, p := range all {
		if !strings.Contains(joined, p) {
			missing = append(missing, p)
		}
	}
	return all, missing
}

// unitVersion identifies what a unit holds, so a save can tell whether
// it changed since the editor loaded it.
func unitVersion(u *index.Unit) string {
	h := fnv.New64a()
	h.Write([]byte(index.JoinPlural(u.Target)))
	h.Write([]byte{0, byte(u.State)})
	return strconv.FormatUint(h.Sum64(), 16)
}

// editorFilters are the state filters the editor offers. Untranslated
// is state:empty, the strings the translation page counts as such: the
// reference's is:untranslated takes those needing editing too.
var editorFilters = []struct{ name, q string }{
	{"All", ""}, {"Untranslated", "state:empty"}, {"Needs editing", "is:fuzzy"},
	{"Translated", "is:translated"}, {"Approved", "is:approved"}, {"Failing checks", "has:check"},
}

// withID adds an id condition to a search.
func withID(q, cond string) string {
	if strings.TrimSpace(q) == "" {
		return "id:" + cond
	}
	// In parentheses: q may hold OR, which binds looser than the AND.
	return "(" + q + ") id:" + cond
}

// editorURL is the editor's address with the list's search and order
// and one more parameter.
func editorURL(base string, l listQuery, key, value string) string {
	v := l.values()
	if key != "" {
		v.Set(key, value)
	}
	if len(v) == 0 {
		return base
	}
	return base + "?" + v.Encode()
}

// findEditorUnit resolves which unit the editor's query names; ok is
// false when no string matches. A sorted list (sorts) goes by places:
// pos is the unit's, 0 when it is not in the list or the list is not
// sorted (editorList counts it then).
func (s *Server) findEditorUnit(c *gin.Context, t *index.Translation, l listQuery, sorts []index.UnitSort) (u index.Unit, pos int, ok bool, err error) {
	if sorts != nil {
		return s.findSortedUnit(c, t, l, sorts)
	}
	u, ok, err = s.findListUnit(c, t, l.q)
	return u, 0, ok, err
}

// findSortedUnit is findEditorUnit in a sorted list: checksum=, after=
// and before= name units, whose place is looked up; offset= is one.
func (s *Server) findSortedUnit(c *gin.Context, t *index.Translation, l listQuery, sorts []index.UnitSort) (u index.Unit, pos int, ok bool, err error) {
	ctx := c.Request.Context()
	pos = 1
	if c.Query("checksum") != "" {
		if u, ok, err = s.findListUnit(c, t, l.q); !ok || err != nil {
			return u, 0, ok, err
		}
		pos, found, err := s.sortedPosition(ctx, t, l, sorts, u.ID)
		if !found {
			pos = 0
		}
		return u, pos, true, err
	}
	for _, step := range []struct {
		name string
		by   int
	}{{"after", 1}, {"before", -1}} {
		if c.Query(step.name) == "" {
			continue
		}
		id, err := strconv.ParseInt(c.Query(step.name), 10, 64)
		if err != nil {
			return u, 0, false, index.ErrNotFound
		}
		at, found, err := s.sortedPosition(ctx, t, l, sorts, id)
		if err != nil {
			return u, 0, false, err
		}
		if found {
			pos = max(at+step.by, 1)
		}
	}
	if c.Query("offset") != "" {
		if pos, err = strconv.Atoi(c.Query("offset")); err != nil || pos < 1 {
			return u, 0, false, index.ErrNotFound
		}
	}
	units, _, err := s.store.FindUnits(ctx, index.UnitFilter{TranslationID: t.ID, Query: l.q, Sort: sorts,
		Page: index.Page{Number: pos, Size: 1}})
	if err != nil || len(units) == 0 {
		return u, 0, false, err
	}
	return units[0], pos, true, nil
}

// findListUnit is findEditorUnit in the list's own (id) order.
func (s *Server) findListUnit(c *gin.Context, t *index.Translation, q string) (u index.Unit, ok bool, err error) {
	ctx := c.Request.Context()
	f := index.UnitFilter{TranslationID: t.ID, Query: q, Page: index.Page{Number: 1, Size: 1}}
	switch {
	case c.Query("checksum") != "":
		v, err := strconv.ParseUint(c.Query("checksum"), 16, 64)
		if err != nil {
			return u, false, index.ErrNotFound
		}
		// The checksum is the unsigned form of id_hash (appendChecksum).
		id, err := s.store.FindUnitIDByHash(ctx, t.ID, int64(v-1<<63))
		if err != nil {
			return u, false, err
		}
		u, err = s.store.FindUnitByID(ctx, id)
		return u, err == nil, err
	case c.Query("after") != "":
		id, err := strconv.ParseInt(c.Query("after"), 10, 64)
		if err != nil {
			return u, false, index.ErrNotFound
		}
		f.Query = withID(q, ">"+strconv.FormatInt(id, 10))
	case c.Query("before") != "":
		id, err := strconv.ParseInt(c.Query("before"), 10, 64)
		if err != nil {
			return u, false, index.ErrNotFound
		}
		f.Query = withID(q, "<"+strconv.FormatInt(id, 10))
		_, n, err := s.store.FindUnits(ctx, f)
		if err != nil || n == 0 {
			return u, false, err
		}
		f.Page.Number = n
	case c.Query("offset") != "":
		n, err := strconv.Atoi(c.Query("offset"))
		if err != nil || n < 1 {
			return u, false, index.ErrNotFound
		}
		f.Page.Number = n
	}
	units, _, err := s.store.FindUnits(ctx, f)
	if err != nil || len(units) == 0 {
		return u, false, err
	}
	return units[0], true, nil
}

// translatePage serves the editor.
func (s *Server) translatePage(c *gin.Context) {
	t, err := s.edge.FindTranslation(c)
	if err != nil {
		s.failPage(c, err)
		return
	}
	page, err := s.editorPage(c, &t, listQuery{q: c.Query("q"), sort: c.Query("sort_by")}, nil)
	if err != nil {
		s.failPage(c, err)
		return
	}
	s.writeEditor(c, http.StatusOK, page)
}

// writeEditor answers with the whole page, or with its main part only
// when the editor's script asks (X-Tolk-Partial), to swap it in place.
func (s *Server) writeEditor(c *gin.Context, status int, page webPage) {
	if c.GetHeader("X-Tolk-Partial") != "" {
		s.render(c, status, "main", page)
		return
	}
	s.writePage(c, status, page)
}

// editorPage builds the editor for the unit the query names, with the
// conflict of a refused save when there is one.
func (s *Server) editorPage(c *gin.Context, t *index.Translation, list listQuery, conflict *editorConflict) (webPage, error) {
	ctx, q := c.Request.Context(), list.q
	sorts, err := index.ParseUnitSort(list.sort)
	if err != nil {
		return webPage{}, err
	}
	u, p, comp, l := s.edge.PageURLs(c), t.Component.Project.Slug, t.Component.FullSlug(), t.LanguageCode
	page := s.newPage(c, "Translate "+t.Component.Name+" — "+t.Language.Name)
	page.Crumbs = append(s.translationCrumbs(c, u, t), webLink{Name: t.Language.Name, URL: u.TranslationWeb(p, comp, l)})
	page.APIURL = u.Translation(p, comp, l, "units")
	who := edge.Principal(c)
	base := u.Translate(p, comp, l)
	ed := &editorView{Query: q, Sort: list.sort, SortOptions: sortOptions(list.sort), Base: base, SaveURL: base + "save/", CommentURL: base + "comment/",
		SuggestURL: base + "suggestions/", Conflict: conflict,
		CanEdit:    who.CanTranslation(index.PermUnitEdit, t) && !t.Component.Locked,
		CanComment: who.CanTranslation(index.PermCommentAdd, t), Scopes: commentScopes(t),
		Locked:    t.Component.Locked,
		CanReview: index.ReviewDenied(who, t) == "",
		Lang:      t.Language.Code, Dir: dirOf(&t.Language), SourceLang: t.Component.SourceLanguage, SourceDir: "ltr",
		Translated: percentText(t.Stats.Translated, t.Stats.Total)}
	src, err := s.edge.SourceLanguage(c, t.Component.SourceLanguage)
	if err != nil {
		return page, err
	}
	ed.SourceDir = dirOf(&src)
	for _, f := range editorFilters {
		ed.Filters = append(ed.Filters, webLink{Name: f.name, URL: editorURL(base, listQuery{f.q, list.sort}, "", ""), Current: f.q == q})
	}
	// Suggesting needs the permission and suggestions on; read-only
	// strings are settled per unit below. With voting and auto-accept
	// on, a direct save needs unit.override: the editor then offers only
	// Suggest, as the reference's does.
	ed.Voting = t.Component.SuggestionVoting
	// Anonymous visitors may suggest where the API lets them (a public
	// project, the anonymous rate limit configured).
	ed.CanSuggest = index.SuggestionAddDenied(who, t, s.anonSuggestions != nil) == ""
	ed.AnonymousSuggest = who.Anonymous() && ed.CanSuggest
	if ed.CanEdit && index.CheckDirectSave(who, t) != nil {
		ed.CanEdit = false
	}
	page.Editor = ed
	// Signed in, one may act on suggestions (delete one's own) even
	// without the right to edit or comment.
	if !who.Anonymous() || ed.CanEdit || ed.CanComment || ed.CanSuggest {
		page.CSRF = s.edge.CSRFToken(c)
	}
	unit, pos, ok, err := s.findEditorUnit(c, t, list, sorts)
	if err != nil {
		return page, err
	}
	var current *index.Unit
	if ok {
		current = &unit
	}
	if err := s.editorList(ctx, ed, t, current, sorts, pos); err != nil || current == nil {
		return page, err
	}
	ed.Unit, err = s.editorUnit(ctx, u, t, current)
	if ed.Unit != nil && ed.Unit.ReadOnly {
		ed.CanEdit, ed.CanSuggest = false, false
	}
	if err == nil && ed.Unit != nil {
		ed.Unit.Suggestions, err = s.editorSuggestionRows(ctx, who, t, current)
	}
	// The save asks index.CheckUnitPatch, which asks the same.
	if ed.Unit != nil && ed.CanEdit {
		if err := index.CheckUnitEdit(who, current, t); err != nil {
			ed.CanEdit, ed.Denied = false, index.ErrorMessage(err)
		}
	}
	if err == nil && ed.Unit != nil {
		err = s.workspace(ctx, u, who, ed, t, current)
	}
	if err == nil && ed.Unit != nil && !ed.Unit.ReadOnly {
		var settings index.MachinerySettings
		ed.Machinery, settings, err = s.machineryBoxes(c, u, t, current.ID)
		if err == nil {
			err = s.fillMemoryBox(c, ed, t, current, settings)
		}
		if len(ed.Machinery) > 0 {
			page.CSRF = s.edge.CSRFToken(c)
		}
	}
	return page, err
}

// editorList fills the editor's list: the page of matches holding the
// current unit (nil: none matches), its place among them and the links
// to the strings before and after it. A sorted list (sorts) comes with
// the unit's place, pos (0: the unit is not in it).
func (s *Server) editorList(ctx context.Context, ed *editorView, t *index.Translation, current *index.Unit,
	sorts []index.UnitSort, pos int) error {
	base, q := ed.Base, ed.Query
	l := listQuery{q, ed.Sort}
	inList := pos > 0
	pos = max(pos, 1)
	// The place of the unit: the matches up to its id.
	if current != nil && sorts == nil {
		_, n, err := s.store.FindUnits(ctx, index.UnitFilter{TranslationID: t.ID,
			Query: withID(q, "<="+strconv.FormatInt(current.ID, 10)), Page: index.Page{Number: 1, Size: 1}})
		if err != nil {
			return err
		}
		pos = max(n, 1)
	}
	rows, total, err := s.store.FindUnits(ctx, index.UnitFilter{TranslationID: t.ID, Query: q, Sort: sorts,
		Page: index.Page{Number: (pos-1)/editorRows + 1, Size: editorRows}})
	if err != nil {
		return err
	}
	ed.Position, ed.Total = pos, total
	first := ((pos-1)/editorRows)*editorRows + 1
	for i, r := range rows {
		ed.Rows = append(ed.Rows, editorRow{Position: first + i, URL: editorURL(base, l, "offset", strconv.Itoa(first+i)),
			Key: r.Context, Source: firstForm(r.Source), Target: firstForm(r.Target), State: stateName(r.State, t.ReviewEnabled()),
			Current: current != nil && r.ID == current.ID})
	}
	if first > 1 {
		ed.ListPrev = editorURL(base, l, "offset", strconv.Itoa(first-editorRows))
	}
	if first+editorRows <= total {
		ed.ListNext = editorURL(base, l, "offset", strconv.Itoa(first+editorRows))
	}
	if current == nil {
		return nil
	}
	if sorts != nil {
		// Places: a sorted list has no id order to step along.
		switch {
		case !inList && total > 0:
			ed.Next = editorURL(base, l, "offset", "1")
		case inList && pos > 1:
			ed.Prev = editorURL(base, l, "offset", strconv.Itoa(pos-1))
		}
		if inList && pos < total {
			ed.Next = editorURL(base, l, "offset", strconv.Itoa(pos+1))
		}
		return nil
	}
	id := strconv.FormatInt(current.ID, 10)
	if pos > 1 {
		ed.Prev = editorURL(base, l, "before", id)
	}
	if pos < total {
		ed.Next = editorURL(base, l, "after", id)
	}
	return nil
}

func dirOf(l *index.Language) string {
	if l.Direction == "rtl" {
		return "rtl"
	}
	return "ltr"
}

func firstForm(forms []string) string {
	if len(forms) == 0 {
		return ""
	}
	return forms[0]
}

// editorUnit lays out one unit for editing, with the glossary terms its
// source holds and its recent changes.
func (s *Server) editorUnit(ctx context.Context, u edge.URLs, t *index.Translation, x *index.Unit) (*editorUnit, error) {
	// Every needs-editing state ticks the box (11 after a source change
	// too), so a save that leaves it ticked keeps the string for review.
	out := &editorUnit{ID: x.ID, Key: x.Context, State: stateName(x.State, t.ReviewEnabled()), Fuzzy: x.State.Fuzzy(),
		Approved: x.State == index.StateApproved, ReadOnly: index.UnitReadOnly(x, t),
		Explanation: x.Explanation, Note: x.Note, Location: x.Location, Version: unitVersion(x),
		APIURL: u.Abs("/api/units/"+strconv.FormatInt(x.ID, 10)+"/", ""), Labels: x.Labels}
	for _, f := range x.Source {
		out.Source = append(out.Source, sourceParts(f))
	}
	out.Forms = editorForms(x, t) // web_zen.go
	out.Placeholders, out.Missing = missingPlaceholders(x.Source, x.Target)
	var err error
	if out.Glossary, err = s.glossaryTerms(ctx, t, x.Source); err != nil {
		return nil, err
	}
	if out.Comments, err = s.editorComments(ctx, x); err != nil {
		return nil, err
	}
	changes, err := s.newestChanges(ctx, x.ID)
	if err != nil {
		return nil, err
	}
	for i := len(changes) - 1; i >= 0; i-- {
		ch := changes[i]
		who := ch.AuthorName
		if who == "" {
			who = ch.UserName
		}
		row := changeRow{When: timestamp(ch.Timestamp), Who: who, Action: ch.Action.Name(),
			historyRow: historyOf(&ch, x.Target)}
		target, cut := edge.ShortText(ch.Target)
		row.Target = strings.ReplaceAll(target, index.PluralSeparator, " | ")
		if cut {
			row.Full = u.Change(ch.ID)
		}
		out.Changes = append(out.Changes, row)
	}
	return out, nil
}

// recentUnitChanges is how many of a string's changes the editor shows.
const recentUnitChanges = 5

// newestChanges returns a unit's last recentUnitChanges changes, oldest
// first. Change lists run oldest first, so they are the last page at
// that size, and the page before when the last is short.
func (s *Server) newestChanges(ctx context.Context, unitID int64) ([]index.Change, error) {
	f := index.ChangeFilter{UnitID: unitID, Page: index.Page{Number: 1, Size: recentUnitChanges}}
	changes, total, err := s.store.FindChanges(ctx, f)
	if err != nil || total <= recentUnitChanges {
		return changes, err
	}
	f.Page.Number = pageCount(total, recentUnitChanges)
	if changes, _, err = s.store.FindChanges(ctx, f); err != nil || len(changes) == recentUnitChanges {
		return changes, err
	}
	f.Page.Number--
	before, _, err := s.store.FindChanges(ctx, f)
	if err != nil {
		return nil, err
	}
	all := slices.Concat(before, changes) // both are shared with the index's page cache
	return all[len(all)-recentUnitChanges:], nil
}

// maxGlossaryTerms bounds the terms read from each glossary.
const maxGlossaryTerms = 2000

// glossaryTerms returns the terms of the project's glossaries, in t's
// language, that occur in the source (matchGlossary).
func (s *Server) glossaryTerms(ctx context.Context, t *index.Translation, source []string) ([]glossaryTerm, error) {
	comps, err := s.store.FindComponents(ctx, t.Component.ProjectID)
	if err != nil {
		return nil, err
	}
	var out []glossaryTerm
	for _, comp := range comps {
		if !comp.IsGlossary {
			continue
		}
		gt, err := s.store.FindTranslation(ctx, t.Component.Project.Slug, comp.Slug, t.LanguageCode)
		if errors.Is(err, index.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		terms, _, err := s.store.FindUnits(ctx, index.UnitFilter{TranslationID: gt.ID,
			Page: index.Page{Number: 1, Size: maxGlossaryTerms}})
		if err != nil {
			return nil, err
		}
		out = append(out, matchGlossary(source, t.Component.SourceLanguage, terms)...)
	}
	return out, nil
}

// matchGlossary returns the glossary units among terms whose source
// occurs in source, matched as check_glossary matches them
// (checks.GlossaryMatches: ignoring case, as words only in a source
// language written with spaces, a word being letters, digits and "_"),
// so that the editor shows the terms the check judges.
func matchGlossary(source []string, sourceLanguage string, terms []index.Unit) []glossaryTerm {
	candidates := make([]checks.Term, 0, len(terms))
	for _, g := range terms {
		if term := firstForm(g.Source); term != "" {
			candidates = append(candidates, checks.Term{Source: term, Target: strings.Join(g.Target, " | ")})
		}
	}
	var out []glossaryTerm
	for _, m := range checks.GlossaryMatches(source, sourceLanguage, candidates) {
		out = append(out, glossaryTerm{Term: m.Source, Translation: m.Target})
	}
	return out
}

// saveRequest is a save of the editor: JSON from its script, or a form
// without JavaScript.
type saveRequest struct {
	ID       int64    `json:"id"`
	Target   []string `json:"target"`
	Fuzzy    bool     `json:"fuzzy"`
	Approved bool     `json:"approved"`
	Version  string   `json:"version"`
	Query    string   `json:"q"`
	// Sort is the list's sort_by and Offset the saved string's place
	// in it: a sorted list moves on by places (web_editor_sort.go).
	Sort   string `json:"sort_by"`
	Offset int    `json:"offset"`
	CSRF   string `json:"csrf_token"`
	// Zen says the save came from a zen row's form: without the script
	// it goes back to the zen page (zenAfterSave), not to the editor.
	Zen bool `json:"zen"`
}

func readSave(c *gin.Context) (saveRequest, bool, error) {
	var r saveRequest
	if strings.HasPrefix(c.ContentType(), "application/json") {
		err := json.NewDecoder(http.MaxBytesReader(c.Writer, c.Request.Body, 1<<20)).Decode(&r)
		if err != nil {
			return r, true, index.Errorf(index.ErrInvalid, "The save does not parse: %v", err)
		}
		return r, true, nil
	}
	c.Request.Body = http.MaxBytesReader(c.Writer, c.Request.Body, 1<<20)
	id, err := strconv.ParseInt(c.PostForm("id"), 10, 64)
	if err != nil {
		return r, false, index.Errorf(index.ErrInvalid, "The save names no string.")
	}
	r = saveRequest{ID: id, Target: c.PostFormArray("target"), Fuzzy: c.PostForm("fuzzy") != "",
		Approved: c.PostForm("approved") != "", Version: c.PostForm("version"), Query: c.PostForm("q"),
		Sort: c.PostForm("sort_by"), CSRF: c.PostForm(edge.CSRFField), Zen: c.PostForm("zen") != ""}
	r.Offset, _ = strconv.Atoi(c.PostForm("offset")) // a missing place is the first
	return r, false, nil
}

// editorPost reads what every form the editor posts besides the save
// starts with (a comment, a suggestion's action): the body bounded, the
// session's CSRF token, someone signed in, the translation of the path
// and the string the form names.
func (s *Server) editorPost(c *gin.Context) (*index.Principal, index.Translation, int64, error) {
	return s.editorForm(c, false)
}

// editorForm is editorPost, letting an anonymous visitor through when
// anonymousOK (a suggestion where the project takes them).
func (s *Server) editorForm(c *gin.Context, anonymousOK bool) (*index.Principal, index.Translation, int64, error) {
	c.Request.Body = http.MaxBytesReader(c.Writer, c.Request.Body, 1<<20)
	if err := s.edge.CheckCSRF(c, c.PostForm(edge.CSRFField)); err != nil {
		return nil, index.Translation{}, 0, err
	}
	who := edge.Principal(c)
	if who.Anonymous() && !anonymousOK {
		return nil, index.Translation{}, 0, edge.ErrNotSignedIn
	}
	t, err := s.edge.FindTranslation(c)
	if err != nil {
		return nil, index.Translation{}, 0, err
	}
	id, err := strconv.ParseInt(c.PostForm("id"), 10, 64)
	if err != nil {
		return nil, index.Translation{}, 0, index.Errorf(index.ErrInvalid, "The form names no string.")
	}
	return who, t, id, nil
}

// checkSaver refuses a save without the session's CSRF token (in the
// header or the body) or without anyone signed in.
func (s *Server) checkSaver(c *gin.Context, req saveRequest) error {
	presented := req.CSRF
	if h := c.GetHeader(edge.CSRFHeader); h != "" {
		presented = h
	}
	if err := s.edge.CheckCSRF(c, presented); err != nil {
		return err
	}
	if edge.Principal(c).Anonymous() {
		return edge.ErrNotSignedIn
	}
	return nil
}

// state is the state a save asks for: empty for a blank target, else
// what its boxes say, translated when none is ticked.
func (r *saveRequest) state() index.State {
	switch {
	case index.IsBlank(r.Target):
		return index.StateEmpty
	case r.Fuzzy:
		return index.StateFuzzy
	case r.Approved:
		return index.StateApproved
	}
	return index.StateTranslated
}

// saveUnit serves POST /translate/:project/:component/:language/save/:
// the edit is the API's PATCH of the unit (index.CheckUnitPatch, the
// user as author, statistics in the same transaction), refused with a
// 409 when the stored unit is not what the editor loaded.
func (s *Server) saveUnit(c *gin.Context) {
	req, isJSON, err := readSave(c)
	if err == nil {
		err = s.checkSaver(c, req)
	}
	var t index.Translation
	if err == nil {
		t, err = s.edge.FindTranslation(c)
	}
	if err != nil {
		s.failSave(c, isJSON, err)
		return
	}
	who, state := edge.Principal(c), req.state()
	var current index.Unit
	// The target hinted, as the API's PATCH hints it (UpdateUnitExpecting);
	// a save without one hints none (req.Target nil), not a lookup of "".
	saved, err := s.store.UpdateUnitExpecting(c.Request.Context(), req.ID, index.UserActor(who.User), req.Target,
		func(u index.Unit, ut index.Translation) (index.UnitUpdate, error) {
			current = u
			if ut.ID != t.ID {
				return index.UnitUpdate{}, index.ErrNotFound
			}
			if unitVersion(&u) != req.Version {
				return index.UnitUpdate{}, index.Errorf(index.ErrConflict,
					"Someone else saved this string since you opened it; nothing was overwritten.")
			}
			return index.CheckUnitPatch(who, &u, &ut, index.UnitPatch{Target: &req.Target, State: &state})
		})
	if errors.Is(err, index.ErrConflict) && current.ID != 0 {
		conflict := &editorConflict{Theirs: current.Target, TheirsState: stateName(current.State, t.ReviewEnabled()), Yours: req.Target}
		s.answerConflict(c, isJSON, &t, req, conflict)
		return
	}
	if err != nil {
		s.failSave(c, isJSON, err)
		return
	}
	u := s.edge.PageURLs(c)
	base := u.Translate(t.Component.Project.Slug, t.Component.FullSlug(), t.LanguageCode)
	if req.Zen && !isJSON { // back to the zen page, not the next string
		c.Redirect(http.StatusSeeOther, zenAfterSave(base, req))
		return
	}
	next, err := s.nextAfterSave(c.Request.Context(), base, &t, req)
	if err != nil {
		s.failSave(c, isJSON, err)
		return
	}
	if !isJSON {
		c.Redirect(http.StatusSeeOther, next)
		return
	}
	// The saved unit says whether any check fails (the write settled
	// them): most saves fail none and need not read the rows.
	failing := []checkJSON{}
	if saved.HasFailingCheck {
		if failing, err = s.failingChecksJSON(c.Request.Context(), &t, req.ID); err != nil {
			s.failSave(c, isJSON, err)
			return
		}
	}
	answer := gin.H{"saved": req.ID, "next": next, "fixups": fixupNames(saved.Fixups),
		"needs_editing": saved.State.Fuzzy() && !req.Fuzzy, "checks": failing,
		"version": unitVersion(&saved), // zen mode saves a row again (web_zen.go)
		// and shows the state stored (keys.js).
		"state": stateName(saved.State, t.ReviewEnabled()), "fuzzy": saved.State.Fuzzy(),
		"approved": saved.State == index.StateApproved}
	if len(failing) > 0 {
		answer["previous"] = editorURL(u.Translate(t.Component.Project.Slug, t.Component.FullSlug(), t.LanguageCode),
			listQuery{req.Query, req.Sort}, "checksum", checksumOf(saved.IDHash))
	}
	c.JSON(http.StatusOK, answer)
}

// fixupNames are the names of the autofixes a save applied, for the
// editor's notice, as the reference names them ("Trailing ellipsis").
func fixupNames(ids []string) []string {
	names := []string{}
	for _, f := range checks.Fixers() {
		if slices.Contains(ids, f.ID) {
			names = append(names, f.Name)
		}
	}
	return names
}

// answerConflict shows a refused save: both texts, to the script as
// JSON, without it as the editor on the string.
func (s *Server) answerConflict(c *gin.Context, isJSON bool, t *index.Translation, req saveRequest, conflict *editorConflict) {
	if isJSON {
		c.JSON(http.StatusConflict, gin.H{"error": "Someone else saved this string since you opened it.",
			"theirs": nonNil(conflict.Theirs), "theirs_state": conflict.TheirsState, "yours": nonNil(conflict.Yours)})
		return
	}
	u, err := s.store.FindUnitByID(c.Request.Context(), req.ID)
	if err != nil {
		s.failPage(c, err)
		return
	}
	c.Request.URL.RawQuery = url.Values{"checksum": {checksumOf(u.IDHash)}}.Encode()
	page, err := s.editorPage(c, t, listQuery{req.Query, req.Sort}, conflict)
	if err != nil {
		s.failPage(c, err)
		return
	}
	s.writePage(c, http.StatusConflict, page)
}

// failSave answers a save that failed: JSON with the reason for the
// script, a page otherwise.
func (s *Server) failSave(c *gin.Context, isJSON bool, err error) {
	if !isJSON {
		s.failPage(c, err)
		return
	}
	status, body := edge.ErrorResponse(err)
	if status >= 500 {
		edge.LogFailure(c, s.log, err)
	}
	var details []string
	for _, e := range body.Errors {
		details = append(details, e.Detail)
	}
	c.JSON(status, gin.H{"error": strings.Join(details, " ")})
}
