package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tolk-project/tolk/api"
	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/indextest"
	"github.com/tolk-project/tolk/index/langdata"
	"github.com/tolk-project/tolk/index/sqlstore"
)

// The tests run once on each engine.
func TestMain(m *testing.M) { indextest.Main(m) }

// The engine provides what the API declares.
var _ api.Store = (*sqlstore.DB)(nil)

// clockStart is the fake clock's first reading; each write transaction
// reads the clock once, so every import gets its own second.
var clockStart = time.Date(2026, 11, 23, 1, 2, 3, 123456000, time.UTC)

// mustOpenDB opens an empty index on the engine under test, with the
// languages en and de and a clock that advances one second per reading.
func mustOpenDB(tb testing.TB) *sqlstore.DB {
	tb.Helper()
	return mustOpenDBWith(tb, sqlstore.Options{})
}

// mustOpenDBWith is mustOpenDB with o's settings; a nil o.Now is its
// clock.
func mustOpenDBWith(tb testing.TB, o sqlstore.Options) *sqlstore.DB {
	tb.Helper()
	ctx := context.Background()
	if o.Now == nil {
		var tick atomic.Int64
		o.Now = func() time.Time { return clockStart.Add(time.Duration(tick.Add(1)-1) * time.Second) }
	}
	db := indextest.OpenWith(tb, o)
	table := langdata.Default()
	var langs []index.Language
	for _, code := range []string{"en", "de"} {
		l, ok := table.Get(code)
		if !ok {
			tb.Fatalf("language %s missing from the table", code)
		}
		langs = append(langs, l)
	}
	if err := db.SeedLanguages(ctx, langs); err != nil {
		tb.Fatal(err)
	}
	return db
}

func mustProject(tb testing.TB, db *sqlstore.DB, p index.Project) index.Project {
	tb.Helper()
	p, _, err := db.SaveProject(context.Background(), p)
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

func mustComponent(tb testing.TB, db *sqlstore.DB, c index.Component) index.Component {
	tb.Helper()
	c, _, err := db.SaveComponent(context.Background(), c)
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

func mustImport(tb testing.TB, db *sqlstore.DB, imp index.TranslationImport) int64 {
	tb.Helper()
	res, err := db.ImportTranslation(context.Background(), imp)
	if err != nil {
		tb.Fatal(err)
	}
	return res.TranslationID
}

// unit is a shorthand for one imported unit.
func unit(ctx, source, target string, state index.State) index.ImportUnit {
	return index.ImportUnit{Context: ctx, Source: []string{source}, Target: []string{target}, State: state}
}

// appUnits are the German strings of the demo app; sourceOnly gives the
// source translation's units instead.
func appUnits(sourceOnly bool) []index.ImportUnit {
	units := []index.ImportUnit{
		unit("hello", "Hello", "Hallo", index.StateApproved),
		unit("bye", "Good bye", "Tschüss", index.StateFuzzy),
		unit("open", "Open file", "Datei öffnen", index.StateTranslated),
		unit("save", "Save all files", "", index.StateEmpty),
		unit("quit", "Quit", "", index.StateEmpty),
		unit("about", "About this app", "", index.StateEmpty),
	}
	if sourceOnly {
		for i := range units {
			units[i].Target, units[i].State = units[i].Source, index.StateReadOnly
		}
	}
	return units
}

// seedDemo fills db with project "demo": a monolingual JSON component
// "app" (English source, German with every state) and a TBX glossary.
// The German app file is imported twice, the second time with one target
// changed, so its changes hold a unit-less update and a unit change.
func seedDemo(tb testing.TB, db *sqlstore.DB) {
	tb.Helper()
	p := mustProject(tb, db, index.Project{Name: "Demo", Slug: "demo", Web: "https://example.com/",
		SetLanguageTeam: true, EnableHooks: true})

	app := index.DefaultComponent()
	app.ProjectID, app.Name, app.Slug = p.ID, "App", "app"
	app.Repo, app.Branch, app.Filemask, app.Template = "file:///srv/repos/app.git", "main", "locales/*.json", "locales/en.json"
	app.License = "MIT"
	app = mustComponent(tb, db, app)
	src := mustImport(tb, db, index.TranslationImport{ComponentID: app.ID, LanguageCode: "en",
		Filename: "locales/en.json", Revision: "a1,a1", IsSource: true, IsTemplate: true, Monolingual: true,
		Units: appUnits(true)})
	de := index.TranslationImport{ComponentID: app.ID, LanguageCode: "de", Filename: "locales/de.json",
		Revision: "b1,a1", Monolingual: true, SourceTranslationID: src, Units: appUnits(false)}
	mustImport(tb, db, de)
	de.Revision = "b2,a1"
	de.Units[2].Target = []string{"Datei öffnen…"}
	mustImport(tb, db, de)

	g := index.DefaultComponent()
	g.ProjectID, g.Name, g.Slug, g.IsGlossary = p.ID, "Glossary", "glossary", true
	g.Repo, g.Branch, g.Filemask, g.FileFormat = "file:///srv/repos/glossary.git", "main", "glossary/*.tbx", "tbx"
	g = mustComponent(tb, db, g)
	gsrc := mustImport(tb, db, index.TranslationImport{ComponentID: g.ID, LanguageCode: "en",
		Filename: "glossary/en.tbx", Revision: "g1", IsSource: true, Units: []index.ImportUnit{
			unit("", "apple", "apple", index.StateReadOnly), unit("", "pear tree", "pear tree", index.StateReadOnly),
			unit("", "plum", "plum", index.StateReadOnly)}})
	mustImport(tb, db, index.TranslationImport{ComponentID: g.ID, LanguageCode: "de",
		Filename: "glossary/de.tbx", Revision: "g2", SourceTranslationID: gsrc, Units: []index.ImportUnit{
			unit("", "apple", "Apfel", index.StateTranslated), unit("", "pear tree", "Birnbaum", index.StateTranslated),
			unit("", "plum", "", index.StateEmpty)}})
}

// seedBig adds project "big" whose component "strings" has n units. The
// German file is imported empty, then fully translated, so its change
// list holds n unit changes between two updates.
func seedBig(tb testing.TB, db *sqlstore.DB, n int) {
	tb.Helper()
	p := mustProject(tb, db, index.Project{Name: "Big", Slug: "big"})
	c := index.DefaultComponent()
	c.ProjectID, c.Name, c.Slug, c.Filemask, c.Template = p.ID, "Strings", "strings", "*.json", "en.json"
	c = mustComponent(tb, db, c)
	source := make([]index.ImportUnit, n)
	empty := make([]index.ImportUnit, n)
	full := make([]index.ImportUnit, n)
	for i := range n {
		key, text := fmt.Sprintf("key.%04d", i), fmt.Sprintf("String number %d", i)
		source[i] = unit(key, text, text, index.StateReadOnly)
		empty[i] = unit(key, text, "", index.StateEmpty)
		full[i] = unit(key, text, "Zeichenkette "+fmt.Sprint(i), index.StateTranslated)
	}
	src := mustImport(tb, db, index.TranslationImport{ComponentID: c.ID, LanguageCode: "en",
		Filename: "en.json", Revision: "s", IsSource: true, IsTemplate: true, Monolingual: true, Units: source})
	de := index.TranslationImport{ComponentID: c.ID, LanguageCode: "de", Filename: "de.json",
		Revision: "d1", Monolingual: true, SourceTranslationID: src, Units: empty}
	mustImport(tb, db, de)
	de.Units, de.Revision = full, "d2"
	mustImport(tb, db, de)
}

// logServerErrors logs the server's log lines of level ERROR.
func logServerErrors(tb testing.TB, log string) {
	for _, line := range strings.Split(log, "\n") {
		if strings.Contains(line, `"level":"ERROR"`) {
			tb.Logf("server: %s", line)
		}
	}
}

// syncBuffer collects log output written from request goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// testServer is a real HTTP server over the API with its log captured.
type testServer struct {
	*httptest.Server
	logs *syncBuffer
}

func mustServe(tb testing.TB, store api.Store, opts api.Options) *testServer {
	tb.Helper()
	logs := &syncBuffer{}
	opts.Logger = slog.New(slog.NewJSONHandler(logs, nil))
	srv := httptest.NewServer(api.New(store, opts).Handler())
	tb.Cleanup(srv.Close)
	tb.Cleanup(func() {
		// What a 500 was, which its answer does not say.
		if tb.Failed() {
			logServerErrors(tb, logs.String())
		}
	})
	return &testServer{Server: srv, logs: logs}
}

// demoServer serves a fresh demo index.
func demoServer(tb testing.TB) (*testServer, *sqlstore.DB) {
	tb.Helper()
	db := mustOpenDB(tb)
	seedDemo(tb, db)
	return mustServe(tb, db, api.Options{}), db
}

// response is a finished request.
type response struct {
	status int
	header http.Header
	body   []byte
}

// noRedirects shows tests the redirect itself rather than its target.
var noRedirects = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error {
	return http.ErrUseLastResponse
}}

func do(tb testing.TB, method, url string, header http.Header) response {
	tb.Helper()
	return doBody(tb, method, url, header, nil)
}

// doBody is do with a request body.
func doBody(tb testing.TB, method, url string, header http.Header, body io.Reader) response {
	tb.Helper()
	req, err := http.NewRequest(method, url, body)
	if err != nil {
		tb.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := noRedirects.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatal(err)
	}
	return response{status: resp.StatusCode, header: resp.Header, body: data}
}

// getObject GETs url, requires a 200 and decodes the body keeping
// numbers exact.
func getObject(tb testing.TB, url string) map[string]any {
	tb.Helper()
	return getObjectAs(tb, url, "")
}

// getObjectAs is getObject with the given Authorization header ("" for
// none).
func getObjectAs(tb testing.TB, url, auth string) map[string]any {
	tb.Helper()
	var h http.Header
	if auth != "" {
		h = http.Header{"Authorization": {auth}}
	}
	r := do(tb, http.MethodGet, url, h)
	if r.status != http.StatusOK {
		tb.Fatalf("GET %s: status %d, body %s", url, r.status, r.body)
	}
	return decode(tb, r.body)
}

func decode(tb testing.TB, body []byte) map[string]any {
	tb.Helper()
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var out map[string]any
	if err := dec.Decode(&out); err != nil {
		tb.Fatalf("decode %s: %v", body, err)
	}
	return out
}

var timestampRE = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$`)

// kindOf names a decoded JSON value's type in the vocabulary of shapes.
func kindOf(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return "bool"
	case json.Number:
		if strings.ContainsAny(string(v), ".eE") {
			return "number"
		}
		return "int"
	case string:
		switch {
		case strings.HasPrefix(v, "http://") || strings.HasPrefix(v, "https://"):
			return "url"
		case timestampRE.MatchString(v):
			return "timestamp"
		}
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

// shape maps every field an object must have (and no other) to the kinds
// its value may have: "int", "number" (any JSON number), "string", "url",
// "timestamp", "bool", "array", "strings", "object", "null", joined by
// "|" when several are allowed. A "string" field accepts any string.
type shape map[string]string

func checkShape(tb testing.TB, what string, obj map[string]any, want shape) {
	tb.Helper()
	for k, kinds := range want {
		v, ok := obj[k]
		if !ok {
			tb.Errorf("%s: field %q missing", what, k)
			continue
		}
		if !kindMatches(v, kinds) {
			tb.Errorf("%s: field %q = %#v (%s), want %s", what, k, v, kindOf(v), kinds)
		}
	}
	var extra []string
	for k := range obj {
		if _, ok := want[k]; !ok {
			extra = append(extra, k)
		}
	}
	sort.Strings(extra)
	if len(extra) > 0 {
		tb.Errorf("%s: unexpected fields %v", what, extra)
	}
}

func kindMatches(v any, kinds string) bool {
	got := kindOf(v)
	for _, k := range strings.Split(kinds, "|") {
		switch {
		case k == got:
			return true
		case k == "number" && got == "int":
			return true
		case k == "string" && (got == "url" || got == "timestamp"):
			return true
		case k == "strings" && got == "array":
			for _, e := range v.([]any) {
				if _, ok := e.(string); !ok {
					return false
				}
			}
			return true
		}
	}
	return false
}

// strs collects every string in a decoded JSON value.
func strs(v any, out *[]string) {
	switch v := v.(type) {
	case string:
		*out = append(*out, v)
	case []any:
		for _, e := range v {
			strs(e, out)
		}
	case map[string]any:
		for _, e := range v {
			strs(e, out)
		}
	}
}

func obj(tb testing.TB, v any) map[string]any {
	tb.Helper()
	m, ok := v.(map[string]any)
	if !ok {
		tb.Fatalf("%#v is not an object", v)
	}
	return m
}

func results(tb testing.TB, list map[string]any) []map[string]any {
	tb.Helper()
	arr, ok := list["results"].([]any)
	if !ok {
		tb.Fatalf("results = %#v, want an array", list["results"])
	}
	out := make([]map[string]any, len(arr))
	for i, e := range arr {
		out[i] = obj(tb, e)
	}
	return out
}

// num returns a decoded JSON number's text.
func num(v any) string {
	if n, ok := v.(json.Number); ok {
		return string(n)
	}
	return fmt.Sprintf("<%T %v>", v, v)
}
