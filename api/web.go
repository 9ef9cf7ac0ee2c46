package api

import (
	"bytes"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"strconv"

	"github.com/gin-gonic/gin"
	"github.com/tolk-project/tolk/index"
)

// webResources are the human-facing pages that the web_url, share_url
// and translate_url fields of API objects lead to (urls.go, "Human-facing
// pages"). Each is a plain HTML page with the object's name, statistics
// and a link to its API resource. They take GET and HEAD only.
//
// They sit in the resource table (through projectResources) for the
// trailing-slash redirect and the 405 answer. The table's OPTIONS body
// describes API views, so pages do not advertise OPTIONS.
func (s *Server) webResources() []resource {
	get := []string{"GET", "HEAD"}
	return []resource{
		{"/projects/:project/", "Project", get, s.projectPage},
		{"/projects/:project/:component/", "Component", get, s.componentPage},
		{"/projects/:project/:component/:language/", "Translation", get, s.translationPage},
		{"/translate/:project/:component/:language/", "Translate", get, s.translatePage},
		{"/engage/:project/-/:language/", "Engage", get, s.engagePage},
		{"/languages/:code/", "Language", get, s.languagePage},
	}
}

// webPage is what the page template shows; empty parts are left out.
type webPage struct {
	Title    string
	Crumbs   []webLink // the way up: project, component
	Stats    []statRow
	Actions  []webLink
	ListName string
	List     []webRow
	Units    []webUnit
	Note     string
	// Problems are what the last import could not do (Tolk's
	// import_error and skipped_files, README "Import errors").
	Problems []string
	APIURL   string
}

type webLink struct{ Name, URL string }

// webRow is one child object with its translated share.
type webRow struct {
	Name, URL, Percent string
}

type statRow struct {
	Label, Count, Percent string
}

type webUnit struct {
	Context, Source, Target, State, APIURL string
}

// unitsShown bounds the units the translate page lists.
const unitsShown = 20

// webURLs builds links for pages: like the API's, minus format=api,
// which means nothing to a page.
func (s *Server) webURLs(c *gin.Context) urls {
	u := s.urlsFor(c)
	u.formatAPI = false
	return u
}

// projectPage serves /projects/:project/: the project, its languages and
// its components.
func (s *Server) projectPage(c *gin.Context) {
	ctx := c.Request.Context()
	p, err := s.findProject(c)
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
	u := s.webURLs(c)
	page := webPage{Title: p.Name, Stats: statRows(&st), ListName: "Languages", APIURL: u.project(p.Slug, "")}
	for i, l := range langs {
		page.List = append(page.List, webRow{l.Name, u.share(p.Slug, l.Code),
			percentText(langStats[i].Translated, langStats[i].Total)})
	}
	for _, comp := range comps {
		page.Actions = append(page.Actions, webLink{"Component " + comp.Name, u.componentWeb(p.Slug, comp.Slug)})
	}
	s.writePage(c, http.StatusOK, page)
}

// componentPage serves /projects/:project/:component/: the component and
// its translations.
func (s *Server) componentPage(c *gin.Context) {
	ctx := c.Request.Context()
	comp, err := s.findComponent(c)
	if err != nil {
		s.failPage(c, err)
		return
	}
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
	u, p := s.webURLs(c), comp.Project.Slug
	page := webPage{Title: comp.Name, Crumbs: []webLink{{comp.Project.Name, u.projectWeb(p)}},
		Stats: statRows(&st), ListName: "Translations", APIURL: u.component(p, comp.Slug, "")}
	if comp.Import.Error != "" {
		page.Problems = append(page.Problems, "The last import failed: "+comp.Import.Error)
	}
	for _, f := range comp.Import.Skipped {
		page.Problems = append(page.Problems, fmt.Sprintf("Skipped %q: %s", f.Filename, f.Reason))
	}
	for _, t := range trs {
		page.List = append(page.List, webRow{t.Language.Name, u.translationWeb(p, comp.Slug, t.LanguageCode),
			percentText(t.Stats.Translated, t.Stats.Total)})
		if t.LoadError != "" {
			page.Problems = append(page.Problems, t.Language.Name+" does not parse: "+t.LoadError)
		}
	}
	s.writePage(c, http.StatusOK, page)
}

// translationPage serves /projects/:project/:component/:language/.
func (s *Server) translationPage(c *gin.Context) {
	t, err := s.findTranslation(c)
	if err != nil {
		s.failPage(c, err)
		return
	}
	u, p, comp, l := s.webURLs(c), t.Component.Project.Slug, t.Component.Slug, t.LanguageCode
	s.writePage(c, http.StatusOK, webPage{
		Title:    t.Component.Name + " — " + t.Language.Name,
		Crumbs:   translationCrumbs(u, &t),
		Stats:    statRows(&t.Stats),
		Actions:  []webLink{{"Translate", u.translate(p, comp, l)}, {"Language " + t.Language.Name, u.share(p, l)}},
		Problems: problems(t.LoadError),
		APIURL:   u.translation(p, comp, l, ""),
	})
}

// problems is a translation's load error as a page's problems.
func problems(loadError string) []string {
	if loadError == "" {
		return nil
	}
	return []string{"The file does not parse: " + loadError}
}

// translatePage serves /translate/:project/:component/:language/: the
// translation's first units or, with ?checksum= (the hex the API's unit
// web_url carries), that one unit.
func (s *Server) translatePage(c *gin.Context) {
	ctx := c.Request.Context()
	t, err := s.findTranslation(c)
	if err != nil {
		s.failPage(c, err)
		return
	}
	f := index.UnitFilter{TranslationID: t.ID, Page: index.Page{Number: 1, Size: unitsShown}}
	if sum := c.Query("checksum"); sum != "" {
		v, err := strconv.ParseUint(sum, 16, 64)
		if err != nil {
			s.failPage(c, index.ErrNotFound)
			return
		}
		// The checksum is the unsigned form of id_hash (appendChecksum).
		id, err := s.store.FindUnitIDByHash(ctx, t.ID, int64(v-1<<63))
		if err != nil {
			s.failPage(c, err)
			return
		}
		f.Query = "id:" + strconv.FormatInt(id, 10)
	}
	units, total, err := s.store.FindUnits(ctx, f)
	if err != nil {
		s.failPage(c, err)
		return
	}
	u, p, comp, l := s.webURLs(c), t.Component.Project.Slug, t.Component.Slug, t.LanguageCode
	page := webPage{
		Title:  "Translate " + t.Component.Name + " — " + t.Language.Name,
		Crumbs: append(translationCrumbs(u, &t), webLink{t.Language.Name, u.translationWeb(p, comp, l)}),
		Stats:  statRows(&t.Stats),
		APIURL: u.translation(p, comp, l, "units"),
		Note:   "Showing " + strconv.Itoa(len(units)) + " of " + strconv.Itoa(total) + " strings.",
	}
	for _, x := range units {
		page.Units = append(page.Units, webUnit{x.Context, joinPlurals(x.Source), joinPlurals(x.Target),
			stateName(x.State), u.unit(x.ID)})
	}
	s.writePage(c, http.StatusOK, page)
}

// engagePage serves /engage/:project/-/:language/: a project in one of
// its languages.
func (s *Server) engagePage(c *gin.Context) {
	p, err := s.findProject(c)
	if err != nil {
		s.failPage(c, err)
		return
	}
	langs, stats, err := s.store.ProjectLanguageStats(c.Request.Context(), p.ID)
	if err != nil {
		s.failPage(c, err)
		return
	}
	u, code := s.webURLs(c), c.Param("language")
	for i, l := range langs {
		if l.Code != code {
			continue
		}
		s.writePage(c, http.StatusOK, webPage{
			Title:   p.Name + " — " + l.Name,
			Crumbs:  []webLink{{p.Name, u.projectWeb(p.Slug)}},
			Stats:   statRows(&stats[i]),
			Actions: []webLink{{"Language " + l.Name, u.languageWeb(l.Code)}},
			APIURL:  u.project(p.Slug, "languages"),
		})
		return
	}
	s.failPage(c, index.ErrNotFound)
}

// languagePage serves /languages/:code/.
func (s *Server) languagePage(c *gin.Context) {
	l, st, err := s.languageStats(c)
	if err != nil {
		s.failPage(c, err)
		return
	}
	s.writePage(c, http.StatusOK, webPage{Title: l.Name, Stats: statRows(&st),
		APIURL: s.webURLs(c).language(l.Code, "")})
}

func translationCrumbs(u urls, t *index.Translation) []webLink {
	p := &t.Component.Project
	return []webLink{{p.Name, u.projectWeb(p.Slug)}, {t.Component.Name, u.componentWeb(p.Slug, t.Component.Slug)}}
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

func joinPlurals(forms []string) string {
	if len(forms) == 1 {
		return forms[0]
	}
	var b bytes.Buffer
	for i, f := range forms {
		if i > 0 {
			b.WriteString(" | ")
		}
		b.WriteString(f)
	}
	return b.String()
}

// stateName is the reference's label of a unit state.
func stateName(st index.State) string {
	switch st {
	case index.StateEmpty:
		return "Not translated"
	case index.StateFuzzy:
		return "Needs editing"
	case index.StateTranslated:
		return "Translated"
	case index.StateApproved:
		return "Approved"
	case index.StateReadOnly:
		return "Read-only"
	}
	return strconv.Itoa(int(st))
}

// failPage answers a page request that failed: a 404 page for unknown
// objects, otherwise a 500 page with the error logged, never shown.
func (s *Server) failPage(c *gin.Context, err error) {
	if errors.Is(err, index.ErrNotFound) {
		s.writePage(c, http.StatusNotFound, webPage{Title: "Not found",
			Note: "The page you are looking for does not exist."})
		return
	}
	requestLogger(c, s.log).Error("request failed", "err", err)
	s.writePage(c, http.StatusInternalServerError, webPage{Title: "Server error",
		Note: "A server error occurred."})
}

// writePage renders page. The template escapes every value it prints.
func (s *Server) writePage(c *gin.Context, status int, page webPage) {
	var buf bytes.Buffer
	if err := pageTemplate.Execute(&buf, page); err != nil {
		requestLogger(c, s.log).Error("render page", "err", err)
		status = http.StatusInternalServerError
		buf.Reset()
		buf.WriteString("<!DOCTYPE html>\n<title>Server error</title>\n<p>A server error occurred.</p>\n")
	}
	h := c.Writer.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(buf.Len()))
	c.Status(status)
	c.Writer.Write(buf.Bytes())
	c.Abort()
}

var pageTemplate = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{{.Title}} · Tolk</title>
</head>
<body>
{{with .Crumbs}}<nav>{{range $i, $c := .}}{{if $i}} / {{end}}<a href="{{$c.URL}}">{{$c.Name}}</a>{{end}}</nav>
{{end}}<h1>{{.Title}}</h1>
{{with .Note}}<p>{{.}}</p>
{{end}}{{with .Problems}}<section class="problems">
<h2>Import problems</h2>
<ul>
{{range .}}<li>{{.}}</li>
{{end}}</ul>
</section>
{{end}}{{with .Stats}}<table class="stats">
{{range .}}<tr><th>{{.Label}}</th><td>{{.Count}}</td><td>{{.Percent}}</td></tr>
{{end}}</table>
{{end}}{{with .Actions}}<ul>
{{range .}}<li><a href="{{.URL}}">{{.Name}}</a></li>
{{end}}</ul>
{{end}}{{with .List}}<h2>{{$.ListName}}</h2>
<table class="list">
{{range .}}<tr><td><a href="{{.URL}}">{{.Name}}</a></td><td>{{.Percent}}</td></tr>
{{end}}</table>
{{end}}{{with .Units}}<table class="units">
<tr><th>Key</th><th>Source</th><th>Translation</th><th>State</th><th></th></tr>
{{range .}}<tr><td>{{.Context}}</td><td>{{.Source}}</td><td>{{.Target}}</td><td>{{.State}}</td><td><a href="{{.APIURL}}">API</a></td></tr>
{{end}}</table>
{{end}}{{with .APIURL}}<p><a href="{{.}}">API resource</a></p>
{{end}}</body>
</html>
`))
