package web

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"
	"github.com/tolk-project/tolk/edge"
	"github.com/tolk-project/tolk/index"
)

// webUI holds the page template, the stylesheet and the script (package
// doc).
//
//go:embed webui
var webUI embed.FS

var pageTemplate = template.Must(template.New("").Funcs(template.FuncMap{
	"inc":        func(i int) int { return i + 1 },
	"queryWords": index.QueryWordList, // webui/keys.html
	"zenURL":     zenURL,
	"add":        func(a, b, c int) int { return a + b + c },
	"langtag":    langTag,
}).ParseFS(webUI, "webui/*.html"))

// langTag is a language code as HTML's lang attribute takes it, a BCP 47
// tag: Weblate's codes join region and variant with "_" and "@"
// (pt_BR, sr@latin), which axe-core and screen readers do not read.
func langTag(code string) string { return langTagReplacer.Replace(code) }

var langTagReplacer = strings.NewReplacer("_", "-", "@", "-")

// routes registers the pages, GET and HEAD only, and their
// state-changing routes, each of which checks the CSRF token of the
// session (or of the sign-in form) before anything else.
func (s *Server) routes(r *edge.Router) {
	r.Page("/", s.projectsPage)
	r.Page("/projects/", s.projectsPage)
	r.Page("/projects/:project/", s.projectPage)
	r.Page("/projects/:project/:component/", s.componentOrCategory) // or a category's (web_categories.go)
	r.Page("/projects/:project/:component/:language/", s.translationPage)
	r.Handle(http.MethodPost, "/projects/:project/:component/:language/upload/", s.uploadPage) // web_files.go
	r.Page("/translate/:project/:component/:language/", s.translatePage)                       // web_editor.go
	r.Page("/zen/:project/:component/:language/", s.zenPage)                                   // web_zen.go
	r.Handle(http.MethodPost, "/translate/:project/:component/:language/save/", s.saveUnit)
	r.Handle(http.MethodPost, "/translate/:project/:component/:language/comment/", s.addComment)           // web_comments.go
	r.Handle(http.MethodPost, "/translate/:project/:component/:language/suggestions/", s.suggestionAction) // web_suggestions.go
	r.Handle(http.MethodPost, "/translate/:project/:component/:language/check/", s.checkAction)            // web_workspace.go
	r.Handle(http.MethodPost, "/translate/:project/:component/:language/comment/resolve/", s.commentAction)
	r.Handle(http.MethodPost, "/translate/:project/:component/:language/revert/", s.revertUnit)
	r.Handle(http.MethodPost, "/js/translate/:service/:unit/", s.machineryTranslate) // web_machinery.go
	r.Page("/engage/:project/-/:language/", s.engagePage)
	r.Page("/languages/:code/", s.languagePage)
	r.Page("/component-lists/:list/", s.componentListPage) // web_componentlists.go
	r.Page("/accounts/login/", s.loginPage)                // web_auth.go
	r.Handle(http.MethodPost, "/accounts/login/", s.login)
	r.Handle(http.MethodPost, "/accounts/logout/", s.logout)
	r.Page("/accounts/login/link/", s.loginLinkPage) // web_auth.go
	r.Handle(http.MethodPost, "/accounts/login/link/", s.loginLink)
	r.Page("/accounts/profile/", s.profilePage) // web_profile.go
	r.Handle(http.MethodPost, "/accounts/profile/", s.saveProfile)
	r.Handle(http.MethodGet, "/static/:file", s.static)
	r.Handle(http.MethodHead, "/static/:file", s.static)
	// A person past the rate limit reads a page, not the API's JSON.
	r.PageErrors(s.failPage)
}

// webPage is what the page template shows; empty parts are left out.
type webPage struct {
	Title  string
	User   string // the signed-in user's name; "" for anonymous
	CSRF   string
	Here   string // this page's path and query, for the sign-in link
	Crumbs []webLink
	Note   string
	// Problems are what the last import could not do (Tolk's
	// import_error and skipped_files, README "Import errors").
	Problems []string
	// ProblemsTitle heads Problems; "" means import problems.
	ProblemsTitle string
	Stats         []statRow
	Actions       []webLink
	ListName      string
	List          []webRow
	Matrix        *webMatrix
	Login         *loginForm
	LoginLink     *loginLinkForm // web_auth.go
	Editor        *editorView
	Upload        *uploadView
	APIURL        string
	Translate     string // the "Translate" button's editor address (web_chrome.go)
	Zen           *zenView
	Profile       *profileForm // web_profile.go
}

type webLink struct {
	Name, URL string
	Current   bool
}

// webRow is one child object with its translated share.
type webRow struct {
	Name, URL, Percent string
	Value              float64
	// Translate is the editor of the row's translation; "" for rows
	// that are not one translation.
	Translate string
}

// webMatrix is a project's components (rows) by languages (columns).
type webMatrix struct {
	Languages []string
	Rows      []webMatrixRow
}

type webMatrixRow struct {
	Name, URL string
	Cells     []webRow // one per language; empty URL where none exists
}

type statRow struct {
	Label, Count, Percent string
}

type loginForm struct {
	Next, Username, Problem string
}

// newPage starts a page with what every page shows: who is signed in
// and the CSRF token of its forms.
func (s *Server) newPage(c *gin.Context, title string) webPage {
	page := webPage{Title: title, Here: c.Request.URL.RequestURI()}
	// A token is a tool's, not a browser's sign-in: with one, the
	// header offers no sign-out (the permissions still apply).
	if p := edge.Principal(c); !p.Anonymous() && edge.ViaSession(c) {
		page.User = p.User.Username
		// The sign-out form's; pages with other forms ask for it too.
		page.CSRF = s.edge.CSRFToken(c)
	}
	return page
}

// projectsPage serves / and /projects/: every project the principal
// may see.
func (s *Server) projectsPage(c *gin.Context) {
	ctx := c.Request.Context()
	hidden, err := s.edge.HiddenProjects(c)
	if err != nil {
		s.failPage(c, err)
		return
	}
	projects, _, err := s.store.FindProjectPage(ctx, index.Page{Number: 1, Size: 1000}, hidden...)
	if err != nil {
		s.failPage(c, err)
		return
	}
	u := s.edge.PageURLs(c)
	page := s.newPage(c, "Projects")
	page.ListName, page.APIURL = "Projects", u.Abs("/api/projects/", "")
	for _, p := range projects {
		st, err := s.store.ProjectStats(ctx, p.ID)
		if err != nil {
			s.failPage(c, err)
			return
		}
		page.List = append(page.List, progressRow(p.Name, u.ProjectWeb(p.Slug), st.Translated, st.Total))
	}
	s.writePage(c, http.StatusOK, page)
}

// progressRow is a list row with its translated share.
func progressRow(name, url string, part, total int) webRow {
	return webRow{Name: name, URL: url, Percent: percentText(part, total), Value: index.Percent(part, total)}
}

// projectPage serves /projects/:project/: the project, its components by
// its languages, and its languages.
func (s *Server) projectPage(c *gin.Context) {
	ctx := c.Request.Context()
	p, err := s.edge.FindProject(c)
	if err != nil {
		s.failPage(c, err)
		return
	}
	st, err := s.store.ProjectStats(ctx, p.ID)
	if err != nil {
		s.failPage(c, err)
		return
	}
	langs, langStats, err := s.store.ProjectLanguageStats(ctx, p.ID)
	if err != nil {
		s.failPage(c, err)
		return
	}
	comps, _, err := s.store.FindComponentPage(ctx, p.ID, index.Page{})
	if err != nil {
		s.failPage(c, err)
		return
	}
	u := s.edge.PageURLs(c)
	page := s.newPage(c, p.Name)
	page.Stats, page.ListName, page.APIURL = statRows(&st), "Languages", u.Project(p.Slug, "")
	page.Crumbs = []webLink{{Name: "Projects", URL: u.Abs("/projects/", "")}}
	m := &webMatrix{}
	column := map[string]int{}
	for i, l := range langs {
		page.List = append(page.List, progressRow(l.Name, u.Share(p.Slug, l.Code), langStats[i].Translated, langStats[i].Total))
		m.Languages = append(m.Languages, l.Name)
		column[l.Code] = i
	}
	for _, comp := range comps {
		trs, _, err := s.store.FindTranslationPage(ctx, comp.ID, index.Page{})
		if err != nil {
			s.failPage(c, err)
			return
		}
		row := webMatrixRow{Name: comp.Name, URL: u.ComponentWeb(p.Slug, comp.FullSlug()), Cells: make([]webRow, len(langs))}
		for _, t := range trs {
			if i, ok := column[t.LanguageCode]; ok {
				row.Cells[i] = progressRow(t.Language.Name, u.TranslationWeb(p.Slug, comp.FullSlug(), t.LanguageCode),
					t.Stats.Translated, t.Stats.Total)
				row.Cells[i].Translate = translateURL(u, &t)
			}
		}
		m.Rows = append(m.Rows, row)
	}
	page.Matrix = m
	if page.Actions, err = s.categoryLinks(ctx, u, &p); err != nil {
		s.failPage(c, err)
		return
	}
	s.writePage(c, http.StatusOK, page)
}

// componentPage serves /projects/:project/:component/: the component
// (componentOrCategory found it) and its translations.
func (s *Server) componentPage(c *gin.Context, comp index.Component) {
	ctx := c.Request.Context()
	st, err := s.store.ComponentStats(ctx, comp.ID)
	if err != nil {
		s.failPage(c, err)
		return
	}
	trs, _, err := s.store.FindTranslationPage(ctx, comp.ID, index.Page{})
	if err != nil {
		s.failPage(c, err)
		return
	}
	u, p := s.edge.PageURLs(c), comp.Project.Slug
	page := s.newPage(c, comp.Name)
	page.Crumbs = s.componentCrumbs(c, u, &comp)
	page.Stats, page.ListName, page.APIURL = statRows(&st), "Translations", u.Component(p, comp.FullSlug(), "")
	if comp.Import.Error != "" {
		page.Problems = append(page.Problems, "The last import failed: "+comp.Import.Error)
	}
	for _, f := range comp.Import.Skipped {
		page.Problems = append(page.Problems, fmt.Sprintf("Skipped %q: %s", f.Filename, f.Reason))
	}
	for _, t := range trs {
		page.List = append(page.List, progressRow(t.Language.Name, u.TranslationWeb(p, comp.FullSlug(), t.LanguageCode),
			t.Stats.Translated, t.Stats.Total))
		page.List[len(page.List)-1].Translate = translateURL(u, &t)
		if t.LoadError != "" {
			page.Problems = append(page.Problems, t.Language.Name+" does not parse: "+t.LoadError)
		}
	}
	s.writePage(c, http.StatusOK, page)
}

// translationPage serves /projects/:project/:component/:language/: the
// statistics, the ways into the editor, and the file's download and
// upload.
func (s *Server) translationPage(c *gin.Context) {
	t, err := s.edge.FindTranslation(c)
	if err != nil {
		s.failPage(c, err)
		return
	}
	s.writePage(c, http.StatusOK, s.translationView(c, &t))
}

// translationView is the translation page of t.
func (s *Server) translationView(c *gin.Context, t *index.Translation) webPage {
	u, p, comp, l := s.edge.PageURLs(c), t.Component.Project.Slug, t.Component.FullSlug(), t.LanguageCode
	page := s.newPage(c, t.Component.Name+" — "+t.Language.Name)
	page.Crumbs = s.translationCrumbs(c, u, t)
	page.Stats, page.Problems = statRows(&t.Stats), problems(t.LoadError)
	page.APIURL = u.Translation(p, comp, l, "")
	edit := u.Translate(p, comp, l)
	page.Actions = []webLink{
		{Name: fmt.Sprintf("Untranslated strings (%d)", t.Stats.Total-t.Stats.Translated-t.Stats.Fuzzy),
			URL: edit + "?q=" + url.QueryEscape("state:empty")},
		{Name: fmt.Sprintf("Strings needing editing (%d)", t.Stats.Fuzzy), URL: edit + "?q=" + url.QueryEscape("is:fuzzy")},
		{Name: fmt.Sprintf("Strings with failing checks (%d)", t.Stats.Failing), URL: edit + "?q=" + url.QueryEscape("has:check")},
		{Name: fmt.Sprintf("All strings (%d)", t.Stats.Total), URL: edit},
		{Name: "Language " + t.Language.Name, URL: u.Share(p, l)},
		{Name: "Zen mode: many strings at once", URL: zenURL(edit) + "?q=" + url.QueryEscape(todoQuery)},
	}
	page.Upload = s.uploadView(c, u, t)
	page.Translate = translateURL(u, t)
	return page
}

func problems(loadError string) []string {
	if loadError == "" {
		return nil
	}
	return []string{"The file does not parse: " + loadError}
}

// engagePage serves /engage/:project/-/:language/: a project in one of
// its languages.
func (s *Server) engagePage(c *gin.Context) {
	p, err := s.edge.FindProject(c)
	if err != nil {
		s.failPage(c, err)
		return
	}
	langs, stats, err := s.store.ProjectLanguageStats(c.Request.Context(), p.ID)
	if err != nil {
		s.failPage(c, err)
		return
	}
	u, code := s.edge.PageURLs(c), c.Param("language")
	for i, l := range langs {
		if l.Code != code {
			continue
		}
		page := s.newPage(c, p.Name+" — "+l.Name)
		page.Crumbs = []webLink{{Name: p.Name, URL: u.ProjectWeb(p.Slug)}}
		page.Stats, page.APIURL = statRows(&stats[i]), u.Project(p.Slug, "languages")
		page.Actions = []webLink{{Name: "Language " + l.Name, URL: u.LanguageWeb(l.Code)}}
		comps, _, err := s.store.FindComponentPage(c.Request.Context(), p.ID, index.Page{})
		if err != nil {
			s.failPage(c, err)
			return
		}
		for _, comp := range comps {
			t, err := s.store.FindTranslation(c.Request.Context(), p.Slug, comp.Slug, code)
			if errors.Is(err, index.ErrNotFound) {
				continue
			}
			if err != nil {
				s.failPage(c, err)
				return
			}
			page.List = append(page.List, progressRow(comp.Name, u.TranslationWeb(p.Slug, comp.FullSlug(), code),
				t.Stats.Translated, t.Stats.Total))
		}
		page.ListName = "Components"
		s.writePage(c, http.StatusOK, page)
		return
	}
	s.failPage(c, index.ErrNotFound)
}

// languagePage serves /languages/:code/.
func (s *Server) languagePage(c *gin.Context) {
	l, st, err := s.edge.LanguageStats(c)
	if err != nil {
		s.failPage(c, err)
		return
	}
	page := s.newPage(c, l.Name)
	u := s.edge.PageURLs(c)
	page.Stats, page.APIURL = statRows(&st), u.Language(l.Code, "")
	// The language across the projects the reader may see.
	hidden, err := s.edge.HiddenProjects(c)
	if err != nil {
		s.failPage(c, err)
		return
	}
	projects, _, err := s.store.FindProjectPage(c.Request.Context(), index.Page{Number: 1, Size: 1000}, hidden...)
	if err != nil {
		s.failPage(c, err)
		return
	}
	page.ListName = "Projects"
	for _, p := range projects {
		langs, stats, err := s.store.ProjectLanguageStats(c.Request.Context(), p.ID)
		if err != nil {
			s.failPage(c, err)
			return
		}
		for i := range langs {
			if langs[i].Code == l.Code {
				page.List = append(page.List, progressRow(p.Name, u.Share(p.Slug, l.Code), stats[i].Translated, stats[i].Total))
			}
		}
	}
	s.writePage(c, http.StatusOK, page)
}

func (s *Server) translationCrumbs(c *gin.Context, u edge.URLs, t *index.Translation) []webLink {
	p := &t.Component.Project
	return append(s.componentCrumbs(c, u, &t.Component),
		webLink{Name: t.Component.Name, URL: u.ComponentWeb(p.Slug, t.Component.FullSlug())})
}

// statRows lays out the statistics a page shows, with the API's
// truncated percentages.
func statRows(st *index.Stats) []statRow {
	row := func(label string, n int) statRow {
		return statRow{label, strconv.Itoa(n), percentText(n, st.Total)}
	}
	last := "never"
	if !st.LastChange.IsZero() {
		last = timestamp(st.LastChange)
	}
	return []statRow{
		{"Strings", strconv.Itoa(st.Total), ""},
		{"Words", strconv.Itoa(st.TotalWords), ""},
		row("Translated", st.Translated),
		{"Translated words", strconv.Itoa(st.TranslatedWords), percentText(st.TranslatedWords, st.TotalWords)},
		row("Needs editing", st.Fuzzy),
		row("Approved", st.Approved),
		row("Read-only", st.Readonly),
		row("Failing checks", st.Failing),
		{"Suggestions", strconv.Itoa(st.Suggestions), ""},
		{"Comments", strconv.Itoa(st.Comments), ""},
		{"Last change", last, ""},
	}
}

func percentText(part, total int) string {
	return strconv.FormatFloat(index.Percent(part, total), 'f', 1, 64) + "%"
}

// stateName is the reference's label of a unit state; review says the
// translation has reviews on, where a translated string is "Waiting for
// review" (reference workspace §4.1).
func stateName(st index.State, review bool) string {
	switch st {
	case index.StateEmpty:
		return "Not translated"
	case index.StateFuzzy:
		return "Needs editing"
	case index.StateNeedsRewriting:
		return "Needs rewriting"
	case 12:
		return "Needs checking"
	case index.StateTranslated:
		if review {
			return "Waiting for review"
		}
		return "Translated"
	case index.StateApproved:
		return "Approved"
	case index.StateReadOnly:
		return "Read-only"
	}
	return strconv.Itoa(int(st))
}

// failPage answers a page request that failed with edge.ErrorResponse's
// status (the one place that picks error statuses): a 404 page for
// unknown objects, the error's details for other client errors, and a
// 500 page with the error logged, never shown.
func (s *Server) failPage(c *gin.Context, err error) {
	status, body := edge.ErrorResponse(err)
	page := s.newPage(c, "Not done")
	switch {
	case status == http.StatusNotFound:
		page.Title, page.Note = "Not found", "The page you are looking for does not exist."
	case status == http.StatusTooManyRequests:
		// The edge's throttle has set Retry-After; the detail says when.
		page.Title, page.Note = "Too many requests", body.Errors[0].Detail
	case status >= 500:
		edge.LogFailure(c, s.log, err)
		page.Title, page.Note = "Server error", "A server error occurred."
	default:
		page.ProblemsTitle = "What went wrong"
		for _, e := range body.Errors {
			page.Problems = append(page.Problems, e.Detail)
		}
	}
	s.writePage(c, status, page)
}

// writePage renders page. The template escapes every value it prints.
func (s *Server) writePage(c *gin.Context, status int, page webPage) {
	s.render(c, status, "page", page)
}

// render writes one template of webui/ as an HTML answer.
func (s *Server) render(c *gin.Context, status int, name string, data any) {
	var buf bytes.Buffer
	if err := pageTemplate.ExecuteTemplate(&buf, name, data); err != nil {
		edge.RequestLogger(c, s.log).Error("render page", "err", err)
		status = http.StatusInternalServerError
		buf.Reset()
		buf.WriteString("<!DOCTYPE html>\n<title>Server error</title>\n<p>A server error occurred.</p>\n")
	}
	// The page holds its share of the response budget until it is sent.
	release, ok := s.edge.HoldResponse(c, buf.Len())
	defer release()
	if !ok {
		status = http.StatusServiceUnavailable
		buf.Reset()
		buf.WriteString("<!DOCTYPE html>\n<title>Busy</title>\n<p>The server is busy; try again shortly.</p>\n")
		c.Header("Retry-After", "1")
	}
	h := c.Writer.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(buf.Len()))
	// Pages show who is signed in and carry their CSRF token.
	h.Set("Cache-Control", "no-store")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; frame-ancestors 'none'")
	c.Status(status)
	c.Writer.Write(buf.Bytes())
	c.Abort()
}

// static serves the stylesheet and script of webui/.
func (s *Server) static(c *gin.Context) {
	name := c.Param("file")
	types := map[string]string{"tolk.css": "text/css; charset=utf-8", "tolk.js": "text/javascript; charset=utf-8",
		"workspace.js": "text/javascript; charset=utf-8",
		"keys.js":      "text/javascript; charset=utf-8"}
	ct, ok := types[name]
	if !ok {
		s.failPage(c, index.ErrNotFound)
		return
	}
	b, err := webUI.ReadFile("webui/" + name)
	if err != nil {
		s.failPage(c, err)
		return
	}
	c.Header("Cache-Control", "public, max-age=3600")
	c.Data(http.StatusOK, ct, b)
}
