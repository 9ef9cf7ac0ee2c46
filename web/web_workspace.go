package web

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/gin-gonic/gin"
	"github.com/tolk-project/tolk/checks"
	"github.com/tolk-project/tolk/edge"
	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/langdata"
	"github.com/tolk-project/tolk/machinery"
)

// The translator's workspace around the editor's text boxes (reference
// workspace §9.1): the source with its placeables visible and
// clickable, plural forms named by their CLDR category with example
// numbers, location links through the component's repoweb, flags, the
// failing checks with dismiss, the same string in the other languages,
// the strings nearby, and the history with a diff against the current
// text and a revert. Templates are in webui/workspace.html, the script
// in webui/workspace.js.

// workspaceStore is what the workspace reads and writes beyond the
// editor (see sqlstore for the contracts).
type workspaceStore interface {
	UnitChecks(ctx context.Context, unitID int64) ([]index.UnitCheck, error)
	SetCheckDismissed(ctx context.Context, unitID int64, name string, dismissed bool, actor index.Actor,
		allow func(u index.Unit, t index.Translation) error) (bool, error)
	FindOtherLanguages(ctx context.Context, sourceUnitID, excludeID int64, first []string, limit int) ([]index.LanguageUnit, error)
	FindChangeByID(ctx context.Context, id int64) (index.Change, error)
	SetCommentResolved(ctx context.Context, id int64, resolved bool, actor index.Actor,
		check func(c index.Comment, t index.Translation) error) (index.Comment, error)
}

// textPart is a piece of a source string: plain text, or a placeable
// the translator can click to insert (Insert is what goes in).
type textPart struct {
	Text string
	// Kind is "" for plain text, "ph" a placeholder, "markup" a tag,
	// "ws" whitespace made visible, "nl" a newline.
	Kind   string
	Insert string
}

// markupRE finds markup tags: <b>, </a>, <br/>, <a href="…">.
var markupRE = regexp.MustCompile(`</?[A-Za-z][A-Za-z0-9:-]*(?:\s[^<>]*)?/?>`)

// sourceParts cuts a source form into text and placeables: placeholders
// and markup tags, and the whitespace a translator would not see
// otherwise (leading and trailing spaces, runs of spaces, tabs,
// newlines), as the reference highlights them.
func sourceParts(s string) []textPart {
	type span struct {
		from, to int
		kind     string
	}
	var spans []span
	for _, m := range placeholderRE.FindAllStringIndex(s, -1) {
		spans = append(spans, span{m[0], m[1], "ph"})
	}
	for _, m := range markupRE.FindAllStringIndex(s, -1) {
		if !slices.ContainsFunc(spans, func(o span) bool { return m[0] < o.to && o.from < m[1] }) {
			spans = append(spans, span{m[0], m[1], "markup"})
		}
	}
	slices.SortFunc(spans, func(a, b span) int { return a.from - b.from })
	var out []textPart
	last := 0
	for _, sp := range spans {
		out = appendText(out, s, last, sp.from)
		out = append(out, textPart{Text: s[sp.from:sp.to], Kind: sp.kind, Insert: s[sp.from:sp.to]})
		last = sp.to
	}
	return appendText(out, s, last, len(s))
}

// appendText appends s[from:to], plain text with its invisible
// whitespace as parts of their own.
func appendText(out []textPart, s string, from, to int) []textPart {
	plain := from
	flush := func(i int) {
		if i > plain {
			out = append(out, textPart{Text: s[plain:i]})
		}
	}
	for i := from; i < to; i++ {
		switch c := s[i]; {
		case c == '\n':
			flush(i)
			out = append(out, textPart{Text: "↵\n", Kind: "nl", Insert: "\n"})
			plain = i + 1
		case c == '\t':
			flush(i)
			out = append(out, textPart{Text: "→", Kind: "ws", Insert: "\t"})
			plain = i + 1
		case c == ' ' && visibleSpace(s, i):
			flush(i)
			out = append(out, textPart{Text: "·", Kind: "ws", Insert: " "})
			plain = i + 1
		}
	}
	flush(to)
	return out
}

// visibleSpace reports whether the space at i would go unseen: at the
// start or end of the string or a line, or next to another space.
func visibleSpace(s string, i int) bool {
	return i == 0 || i == len(s)-1 || s[i-1] == ' ' || s[i+1] == ' ' || s[i-1] == '\n' || s[i+1] == '\n'
}

// pluralExamples caches the example numbers of a plural formula: the
// first few n each form takes, so "few — 2, 3, 4".
var pluralExamples sync.Map // formula → [][]int64

// maxPluralExamples is how many numbers a form's label lists.
const maxPluralExamples = 4

// examplesOf returns, per form of formula, its first numbers from 0 to
// 1000; nil when the formula does not compile.
func examplesOf(formula string, forms int) [][]int64 {
	key := strconv.Itoa(forms) + ":" + formula
	if v, ok := pluralExamples.Load(key); ok {
		return v.([][]int64)
	}
	f, err := langdata.CompilePlural(formula)
	if err != nil {
		return nil
	}
	out := make([][]int64, forms)
	for n := int64(0); n <= 1000; n++ {
		if i := f(n); i >= 0 && i < forms && len(out[i]) < maxPluralExamples {
			out[i] = append(out[i], n)
		}
	}
	pluralExamples.Store(key, out)
	return out
}

// pluralLabels names the n forms of a language: the CLDR category and
// the first numbers that take the form ("few — 2, 3, 4, 22"); a form
// beyond what the language data knows keeps its number.
func pluralLabels(l *index.Language, n int) []string {
	cats := l.PluralCategories()
	ex := examplesOf(l.Plural.Formula, n)
	out := make([]string, n)
	for i := range out {
		label := "Plural form " + strconv.Itoa(i)
		if i < len(cats) && len(cats) == n {
			label = cats[i]
		}
		if i < len(ex) && len(ex[i]) > 0 {
			nums := make([]string, len(ex[i]))
			for j, v := range ex[i] {
				nums[j] = strconv.FormatInt(v, 10)
			}
			label += " — " + strings.Join(nums, ", ")
			if len(ex[i]) == maxPluralExamples {
				label += ", …"
			}
		}
		out[i] = label
	}
	return out
}

// locationLinks are a unit's locations ("src/app.c:12, src/b.c:3"), each
// linked through the component's repoweb when it has one, with the
// reference's {{filename}}, {{line}} and {{branch}} filled in. Only
// http and https links are made: a repoweb is a project administrator's
// text, and the page must not carry a javascript: link.
func locationLinks(repoweb, branch, location string) []webLink {
	var out []webLink
	for _, loc := range strings.FieldsFunc(location, func(r rune) bool { return r == ',' || r == ' ' || r == '\n' }) {
		l := webLink{Name: loc}
		if repoweb != "" {
			file, line, ok := strings.Cut(loc, ":")
			if !ok {
				line = ""
			}
			if _, err := strconv.Atoi(line); err != nil {
				file, line = loc, ""
			}
			r := strings.NewReplacer("{{filename}}", file, "{{ filename }}", file, "{{line}}", line, "{{ line }}", line,
				"{{branch}}", branch, "{{ branch }}", branch)
			if u, err := url.Parse(r.Replace(repoweb)); err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" {
				l.URL = u.String()
			}
		}
		out = append(out, l)
	}
	return out
}

// unitFlags are the flags of a unit, the file's and the added ones.
func unitFlags(u *index.Unit) []string {
	var out []string
	for _, set := range []string{u.Flags, u.ExtraFlags} {
		for _, f := range strings.Split(set, ",") {
			if f = strings.TrimSpace(f); f != "" && !slices.Contains(out, f) {
				out = append(out, f)
			}
		}
	}
	return out
}

// checkRow is a check failing on the string, as the editor shows it.
type checkRow struct {
	ID, Name, Description string
	Enforced, Dismissed   bool
	CanDismiss            bool
	Fixup                 string // the "Fix string" replacements as JSON (web_fixups.go), or ""
}

// checkJSON is a failing check in the save's answer.
type checkJSON struct {
	Check       string `json:"check"`
	Name        string `json:"name"`
	Description string `json:"description"`
	Enforced    bool   `json:"enforced"`
}

// unitCheckRows reads the checks stored for a unit with what who may do
// with each (nil: nothing, for an answer that shows no buttons).
func (s *Server) unitCheckRows(ctx context.Context, who *index.Principal, t *index.Translation, unitID int64) ([]checkRow, error) {
	stored, err := s.store.UnitChecks(ctx, unitID)
	if err != nil {
		return nil, err
	}
	out := make([]checkRow, 0, len(stored))
	for _, c := range stored {
		info, _ := checks.ByID(c.Name)
		out = append(out, checkRow{ID: c.Name, Name: cmp.Or(info.Name, c.Name), Description: info.Description,
			Dismissed: c.Dismissed, Enforced: slices.Contains(t.Component.EnforcedChecks, c.Name),
			CanDismiss: who != nil && index.CheckDismissCheck(who, t, c.Name) == nil})
	}
	return out, nil
}

// failingChecksJSON are the undismissed checks of a unit (unitCheckRows)
// for the save's answer: what the translator just saved fails, shown
// without a reload.
func (s *Server) failingChecksJSON(ctx context.Context, t *index.Translation, unitID int64) ([]checkJSON, error) {
	rows, err := s.unitCheckRows(ctx, nil, t, unitID)
	if err != nil {
		return nil, err
	}
	out := []checkJSON{}
	for _, r := range rows {
		if !r.Dismissed {
			out = append(out, checkJSON{Check: r.ID, Name: r.Name, Description: r.Description, Enforced: r.Enforced})
		}
	}
	return out, nil
}

// languageRow is the string in another language.
type languageRow struct {
	Name, Code, Dir, Target, State, URL string
	Secondary                           bool // one of the translator's secondary languages
}

// maxOtherLanguages bounds the other languages the editor lists.
const maxOtherLanguages = 50

// otherLanguages lists the string in the component's other languages,
// each linked to its editor: the signed-in translator's secondary
// languages first, in their order, as the reference's editor shows
// them, then the others by code.
func (s *Server) otherLanguages(ctx context.Context, u edge.URLs, who *index.Principal, t *index.Translation, x *index.Unit) ([]languageRow, error) {
	if x.SourceUnitID == 0 || x.SourceUnitID == x.ID {
		return nil, nil
	}
	var mine []string
	if !who.Anonymous() {
		mine = who.User.SecondaryLanguages
	}
	units, err := s.store.FindOtherLanguages(ctx, x.SourceUnitID, x.ID, mine, maxOtherLanguages)
	if err != nil {
		return nil, err
	}
	sum := checksumOf(x.IDHash)
	out := make([]languageRow, len(units))
	for i, lu := range units {
		dir := "ltr"
		if lu.Direction == "rtl" {
			dir = "rtl"
		}
		out[i] = languageRow{Name: lu.LanguageName, Code: lu.LanguageCode, Dir: dir,
			Target: joinForms(lu.Target), State: stateName(lu.State, t.ReviewEnabled()), Secondary: slices.Contains(mine, lu.LanguageCode),
			URL: editorURL(u.Translate(t.Component.Project.Slug, t.Component.FullSlug(), lu.LanguageCode), listQuery{}, "checksum", sum)}
	}
	return out, nil
}

// joinForms shows plural forms on one line; nothing for an
// untranslated string.
func joinForms(forms []string) string {
	if index.IsBlank(forms) {
		return ""
	}
	return strings.Join(forms, " | ")
}

// checksumOf is a unit's checksum in editor URLs: the unsigned form of
// its id_hash, in hex.
func checksumOf(idHash int64) string { return fmt.Sprintf("%x", uint64(idHash)+1<<63) }

// nearbyStrings is how many strings either side the editor shows (the
// reference shows 15; the list below the editor already shows 20).
const nearbyStrings = 5

// nearby lists the strings around x by position in its translation.
func (s *Server) nearby(ctx context.Context, base string, t *index.Translation, x *index.Unit) ([]editorRow, error) {
	q := fmt.Sprintf("position:>=%d AND position:<=%d", max(x.Position-nearbyStrings, 0), x.Position+nearbyStrings)
	units, _, err := s.store.FindUnits(ctx, index.UnitFilter{TranslationID: t.ID, Query: q,
		Page: index.Page{Number: 1, Size: 2*nearbyStrings + 1}})
	if err != nil {
		return nil, err
	}
	out := make([]editorRow, len(units))
	for i, r := range units {
		out[i] = editorRow{Position: r.Position, URL: editorURL(base, listQuery{}, "checksum", checksumOf(r.IDHash)),
			Key: r.Context, Source: firstForm(r.Source), Target: firstForm(r.Target),
			State: stateName(r.State, t.ReviewEnabled()), Current: r.ID == x.ID}
	}
	return out, nil
}

// diffPart is a piece of a word diff: Op "" kept, "del" only in the
// old text, "ins" only in the new.
type diffPart struct{ Text, Op string }

// wordRE cuts text into words and the space between them.
var wordRE = regexp.MustCompile(`\s+|[\p{L}\p{N}_]+|[^\s\p{L}\p{N}_]`)

// maxDiffTokens bounds the diff's quadratic table: longer texts are
// shown as one deletion and one insertion.
const maxDiffTokens = 400

// wordDiff returns the word diff from old to new.
func wordDiff(old, new string) []diffPart {
	a, b := wordRE.FindAllString(old, -1), wordRE.FindAllString(new, -1)
	if len(a) > maxDiffTokens || len(b) > maxDiffTokens {
		return mergeParts([]diffPart{{old, "del"}, {new, "ins"}})
	}
	// lcs[i][j] is the longest common subsequence of a[i:] and b[j:].
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out []diffPart
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			out = append(out, diffPart{a[i], ""})
			i, j = i+1, j+1
		case lcs[i+1][j] >= lcs[i][j+1]:
			out = append(out, diffPart{a[i], "del"})
			i++
		default:
			out = append(out, diffPart{b[j], "ins"})
			j++
		}
	}
	for ; i < len(a); i++ {
		out = append(out, diffPart{a[i], "del"})
	}
	for ; j < len(b); j++ {
		out = append(out, diffPart{b[j], "ins"})
	}
	return mergeParts(out)
}

// mergeParts joins neighbours of the same kind and drops empty parts.
func mergeParts(parts []diffPart) []diffPart {
	var out []diffPart
	for _, p := range parts {
		if p.Text == "" {
			continue
		}
		if n := len(out); n > 0 && out[n-1].Op == p.Op {
			out[n-1].Text += p.Text
			continue
		}
		out = append(out, p)
	}
	return out
}

// historyRow is what the history adds to a change of the string: the
// diff of its text against the current text and whether the string can
// be set back to it.
type historyRow struct {
	ChangeID   int64
	Diff       []diffPart
	Revertable bool // a translation's text other than the current one
}

// translationActions are the changes whose text is a translation the
// string can be reverted to (a source change, explanation or flags
// change records other texts): every change that makes a translation
// someone's own, and automatic translation's.
var translationActions = append(slices.Clone(index.MemoryMadeBy), index.ActionAutoTranslated)

// historyOf is the history's part of change ch of a string whose text
// is now current.
func historyOf(ch *index.Change, current []string) historyRow {
	if !slices.Contains(translationActions, ch.Action) || len(ch.Target) > maxRevertBytes {
		return historyRow{}
	}
	then := strings.ReplaceAll(ch.Target, index.PluralSeparator, " | ")
	now := strings.Join(current, " | ")
	return historyRow{ChangeID: ch.ID, Diff: wordDiff(then, now), Revertable: then != now}
}

// workspaceUnit is what the workspace adds to the editor's string.
type workspaceUnit struct {
	Locations []webLink
	Flags     []string
	Checks    []checkRow
	Languages []languageRow
	Nearby    []editorRow
}

// workspace fills the workspace's parts of the editor on unit x.
func (s *Server) workspace(ctx context.Context, u edge.URLs, who *index.Principal, ed *editorView,
	t *index.Translation, x *index.Unit) error {
	w := &ed.Unit.workspaceUnit
	w.Locations = locationLinks(t.Component.Repoweb, t.Component.Branch, x.Location)
	w.Flags = unitFlags(x)
	for i := range ed.Unit.Comments {
		cm := &ed.Unit.Comments[i]
		cm.CanResolve = !who.Anonymous() &&
			index.CheckResolveComment(who, &index.Comment{ID: cm.ID, UserID: cm.userID}, t) == nil
	}
	var err error
	if w.Checks, err = s.unitCheckRows(ctx, who, t, x.ID); err != nil {
		return err
	}
	setFixups(w.Checks, x, t)
	if w.Languages, err = s.otherLanguages(ctx, u, who, t, x); err != nil {
		return err
	}
	w.Nearby, err = s.nearby(ctx, ed.Base, t, x)
	return err
}

// maxRevertBytes is the longest change text the history diffs and
// reverts to; a change's text may be shortened by the index beyond it.
const maxRevertBytes = 10000

// workspaceForm reads a workspace form the editor posts: editorPost's
// checks, then the unit it names, which must be of the page's
// translation.
func (s *Server) workspaceForm(c *gin.Context) (*index.Principal, index.Translation, index.Unit, error) {
	who, t, id, err := s.editorPost(c)
	if err != nil {
		return nil, t, index.Unit{}, err
	}
	u, err := s.store.FindUnitByID(c.Request.Context(), id)
	if err == nil && u.TranslationID != t.ID {
		err = index.ErrNotFound
	}
	return who, t, u, err
}

// backToUnit answers a workspace form: the editor on the string, at
// anchor.
func (s *Server) backToUnit(c *gin.Context, t *index.Translation, u *index.Unit, anchor string) {
	back := editorURL(s.edge.PageURLs(c).Translate(t.Component.Project.Slug, t.Component.FullSlug(), t.LanguageCode),
		formList(c), "checksum", checksumOf(u.IDHash))
	c.Redirect(http.StatusSeeOther, back+anchor)
}

// checkAction serves POST /translate/:project/:component/:language/check/:
// op dismiss or restore of the check named check on unit id, with the
// API's rule (index.CheckDismissCheck: unit.check, never an enforced
// check).
func (s *Server) checkAction(c *gin.Context) {
	who, t, u, err := s.workspaceForm(c)
	var dismiss bool
	if err == nil {
		switch c.PostForm("op") {
		case "dismiss":
			dismiss = true
		case "restore":
		default:
			err = index.Errorf(index.ErrInvalid, "op: choose dismiss or restore.")
		}
	}
	if err == nil {
		_, err = s.store.SetCheckDismissed(c.Request.Context(), u.ID, c.PostForm("check"), dismiss,
			index.UserActor(who.User), func(_ index.Unit, ut index.Translation) error {
				return index.CheckDismissCheck(who, &ut, c.PostForm("check"))
			})
	}
	if err != nil {
		s.failPage(c, err)
		return
	}
	s.backToUnit(c, &t, &u, "#checks")
}

// commentAction serves POST /translate/:project/:component/:language/comment/resolve/:
// op resolve or reopen of comment comment, one of the string's or its
// source string's, with the API's rule (index.CheckResolveComment).
func (s *Server) commentAction(c *gin.Context) {
	who, t, u, err := s.workspaceForm(c)
	var id int64
	if err == nil {
		if id, err = strconv.ParseInt(c.PostForm("comment"), 10, 64); err != nil {
			err = index.Errorf(index.ErrInvalid, "comment: the form names no comment.")
		}
	}
	resolve := c.PostForm("op") == "resolve"
	if err == nil && !resolve && c.PostForm("op") != "reopen" {
		err = index.Errorf(index.ErrInvalid, "op: choose resolve or reopen.")
	}
	if err == nil {
		_, err = s.store.SetCommentResolved(c.Request.Context(), id, resolve, index.UserActor(who.User),
			func(cm index.Comment, ct index.Translation) error {
				if cm.UnitID != u.ID && cm.UnitID != u.SourceUnitID {
					return index.ErrNotFound
				}
				return index.CheckResolveComment(who, &cm, &ct)
			})
	}
	if err != nil {
		s.failPage(c, err)
		return
	}
	s.backToUnit(c, &t, &u, "#comments")
}

// revertUnit serves POST /translate/:project/:component/:language/revert/:
// sets unit id back to the text of change change (one of its own),
// through the editor's save rules (index.CheckUnitPatch), refused when
// the string changed since the page showed it (version). The edit
// records "Translation reverted" (8), as the reference's revert does.
func (s *Server) revertUnit(c *gin.Context) {
	who, t, u, err := s.workspaceForm(c)
	var ch index.Change
	if err == nil {
		var id int64
		if id, err = strconv.ParseInt(c.PostForm("change"), 10, 64); err != nil {
			err = index.Errorf(index.ErrInvalid, "change: the form names no change.")
		} else if ch, err = s.store.FindChangeByID(c.Request.Context(), id); err == nil &&
			(ch.UnitID != u.ID || !slices.Contains(translationActions, ch.Action)) {
			err = index.Errorf(index.ErrInvalid, "change: not a change of this string's text.")
		}
	}
	if err != nil {
		s.failPage(c, err)
		return
	}
	target := index.SplitPlural(ch.Target)
	version := c.PostForm("version")
	_, err = s.store.UpdateUnit(c.Request.Context(), u.ID, index.UserActor(who.User),
		func(cur index.Unit, ut index.Translation) (index.UnitUpdate, error) {
			if ut.ID != t.ID {
				return index.UnitUpdate{}, index.ErrNotFound
			}
			if unitVersion(&cur) != version {
				return index.UnitUpdate{}, index.Errorf(index.ErrConflict,
					"Someone else saved this string since you opened it; nothing was reverted.")
			}
			state := index.StateTranslated
			if index.IsBlank(target) {
				state = index.StateEmpty
			}
			upd, err := index.CheckUnitPatch(who, &cur, &ut, index.UnitPatch{Target: &target, State: &state})
			if upd.Edit != nil {
				upd.Edit.Action = index.ActionRevert
			}
			return upd, err
		})
	if err != nil {
		s.failPage(c, err)
		return
	}
	s.backToUnit(c, &t, &u, "#history")
}

// memoryServiceID is the translation memory's service: a lookup in
// Tolk's own index, milliseconds, so its box is filled with the page.
const memoryServiceID = "weblate-translation-memory"

// fillMemoryBox fills the memory's box of the editor on the server: its
// matches are in the page itself, not a request the script makes once
// the page has loaded (which put them 80 ms after the page in
// Chromium; the reference loads all suggestions on demand). Only for
// someone signed in, as the memory's API and the script's endpoint
// are; engines that call out over HTTP stay with the script. settings
// are the project's, as machineryBoxes read them for the boxes.
func (s *Server) fillMemoryBox(c *gin.Context, ed *editorView, t *index.Translation, x *index.Unit,
	settings index.MachinerySettings) error {
	who := edge.Principal(c)
	for i := range ed.Machinery {
		b := &ed.Machinery[i]
		if b.ID != memoryServiceID || who.Anonymous() {
			continue
		}
		ctx := c.Request.Context()
		configured, err := s.opts.Machinery.Find(settings, b.ID)
		if err != nil {
			continue // the script's request will say it is not available
		}
		hidden, err := s.edge.HiddenProjects(c)
		if err != nil {
			return err
		}
		results, err := s.opts.Machinery.Translate(ctx, configured, machinery.Request{
			SourceLanguage: t.Component.SourceLanguage, TargetLanguage: t.LanguageCode, Texts: x.Source,
			ProjectID: t.Component.ProjectID, ComponentID: t.ComponentID, UnitID: x.ID, Context: x.Context,
			UserID: who.User.ID, Hidden: hidden})
		if err != nil {
			continue // left to the script, which shows the engine's error
		}
		b.Filled, b.URL, b.Lang, b.Dir, b.CanUse = true, "", ed.Lang, ed.Dir, ed.CanEdit || ed.CanSuggest
		for form, list := range results {
			for _, r := range list {
				b.Results = append(b.Results, candidate(r, form))
			}
		}
	}
	return nil
}

// throttleAnonymous counts an anonymous suggestion against its
// address's window: 429 with Retry-After past it, as the API's.
func (s *Server) throttleAnonymous(c *gin.Context) error {
	ok, _, reset := s.anonSuggestions.Take(edge.ClientKey(c.ClientIP()))
	if ok {
		return nil
	}
	wait := int(math.Ceil(reset.Seconds()))
	c.Header("Retry-After", strconv.Itoa(wait))
	return &edge.RequestError{Status: http.StatusTooManyRequests, Code: "throttled",
		Detail: fmt.Sprintf("Too many anonymous suggestions from your address; try again in %d seconds.", wait)}
}
