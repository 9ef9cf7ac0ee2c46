package machinery_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/indextest"
	"github.com/tolk-project/tolk/index/sqlstore"
	"github.com/tolk-project/tolk/internal/servertest"
	"github.com/tolk-project/tolk/machinery"
)

func TestMain(m *testing.M) { indextest.Main(m) }

// glossaryDB is the demo index (servertest.SeedDemo: project "demo"
// with a glossary whose German terms are apple → Apfel, pear tree →
// Birnbaum, plum untranslated), its German glossary re-imported with a
// forbidden term, an untranslatable one, one starting with a formula
// character and control characters, a duplicate source and a term
// whose flags come from its source string; it returns the index and
// the demo project's id.
func glossaryDB(t *testing.T) (*sqlstore.DB, int64) {
	t.Helper()
	db := servertest.MustOpenDB(t)
	servertest.SeedDemo(t, db)
	ctx := context.Background()
	p, err := db.FindProject(ctx, "demo")
	if err != nil {
		t.Fatal(err)
	}
	g, err := db.FindTranslation(ctx, "demo", "glossary", "de")
	if err != nil {
		t.Fatal(err)
	}
	src, err := db.FindTranslation(ctx, "demo", "glossary", "en")
	if err != nil {
		t.Fatal(err)
	}
	unit := func(source, target string, state index.State, flags string) index.ImportUnit {
		u := servertest.Unit("", source, target, state)
		u.Flags = flags
		return u
	}
	servertest.MustImport(t, db, index.TranslationImport{ComponentID: g.ComponentID, LanguageCode: "de",
		Filename: "glossary/de.tbx", Revision: "g3", SourceTranslationID: src.ID, Units: []index.ImportUnit{
			unit("apple", "Apfel", index.StateTranslated, ""),
			unit("pear tree", "Birnbaum", index.StateTranslated, ""),
			unit("plum", "", index.StateEmpty, ""),
			unit("kill", "töten", index.StateTranslated, "forbidden"),
			unit("Tolk", "Dolmetscher", index.StateTranslated, "read-only"),
			unit("=sum", " =Summe\t", index.StateTranslated, ""),
			unit("Apple", "Apfelbaum", index.StateTranslated, ""), // another source: kept
			unit("peach", "Pfirsich", index.StateFuzzy, ""),       // not translated: left out
		}})
	return db, p.ID
}

// TestGlossaryTerms: the store's terms are the project's translated and
// read-only glossary terms in the language, with their flags; none for
// the source language or another project.
func TestGlossaryTerms(t *testing.T) {
	db, project := glossaryDB(t)
	ctx := context.Background()
	terms, err := db.GlossaryTerms(ctx, project, "en", "de")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, term := range terms {
		got = append(got, fmt.Sprintf("%s=%s/%v/%v", term.Source, term.Target, term.Forbidden, term.ReadOnly))
	}
	want := []string{"apple=Apfel/false/false", "pear tree=Birnbaum/false/false", "kill=töten/true/false",
		"Tolk=Dolmetscher/false/true", "=sum= =Summe\t/false/false", "Apple=Apfelbaum/false/false"}
	if !slices.Equal(got, want) {
		t.Errorf("terms\n%q\nwant\n%q", got, want)
	}
	for _, c := range [][3]any{{project, "en", "en"}, {project + 1000, "en", "de"}, {project, "fr", "de"}} {
		if terms, err := db.GlossaryTerms(ctx, c[0].(int64), c[1].(string), c[2].(string)); err != nil || len(terms) != 0 {
			t.Errorf("GlossaryTerms%v = %v, %v; want none", c, terms, err)
		}
	}
}

// fakeDeepL speaks DeepL's documented v2 API, glossaries included
// (https://developers.deepl.com/docs/api-reference/glossaries): no DeepL
// can be reached from here, so the engine's requests are checked
// against it.
type fakeDeepL struct {
	t   *testing.T
	key string

	mu         sync.Mutex
	glossaries []map[string]string // glossary_id, name, creation_time, entries
	calls      []string            // "METHOD path" of each glossary call
	created    []map[string]string // each POST /glossaries body
	used       []string            // glossary_id of each translation ("" none)
	failCreate bool
	next       int
}

func (f *fakeDeepL) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if r.Header.Get("Authorization") != "DeepL-Auth-Key "+f.key {
		w.WriteHeader(403)
		fmt.Fprint(w, `{"message":"Wrong key"}`)
		return
	}
	path := strings.TrimPrefix(r.URL.Path, "/v2/")
	if strings.HasPrefix(path, "glossar") {
		f.calls = append(f.calls, r.Method+" "+path)
	}
	switch {
	case path == "languages" && r.URL.Query().Get("type") == "source":
		fmt.Fprint(w, `[{"language":"EN","name":"English"},{"language":"DE","name":"German"}]`)
	case path == "languages":
		fmt.Fprint(w, `[{"language":"DE","name":"German"},{"language":"FR","name":"French"},{"language":"EN-GB","name":"English"}]`)
	case path == "glossary-language-pairs":
		fmt.Fprint(w, `{"supported_languages":[{"source_lang":"en","target_lang":"de"},{"source_lang":"de","target_lang":"en"}]}`)
	case path == "glossaries" && r.Method == http.MethodGet:
		list := []map[string]string{}
		for _, g := range f.glossaries {
			list = append(list, map[string]string{"glossary_id": g["glossary_id"], "name": g["name"],
				"creation_time": g["creation_time"]})
		}
		json.NewEncoder(w).Encode(map[string]any{"glossaries": list})
	case path == "glossaries" && r.Method == http.MethodPost:
		var body map[string]string
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			w.WriteHeader(400)
			return
		}
		f.created = append(f.created, body)
		if f.failCreate {
			w.WriteHeader(500)
			fmt.Fprintf(w, `{"message":"Internal error for key %s"}`, f.key)
			return
		}
		f.next++
		g := map[string]string{"glossary_id": fmt.Sprintf("g%d", f.next), "name": body["name"],
			"creation_time": fmt.Sprintf("2026-11-27T15:%02d:00Z", f.next), "entries": body["entries"]}
		f.glossaries = append(f.glossaries, g)
		w.WriteHeader(201)
		json.NewEncoder(w).Encode(map[string]any{"glossary_id": g["glossary_id"], "name": g["name"], "ready": true,
			"source_lang": body["source_lang"], "target_lang": body["target_lang"], "entry_count": 1})
	case strings.HasPrefix(path, "glossaries/") && r.Method == http.MethodDelete:
		id := strings.TrimPrefix(path, "glossaries/")
		n := len(f.glossaries)
		f.glossaries = slices.DeleteFunc(f.glossaries, func(g map[string]string) bool { return g["glossary_id"] == id })
		if len(f.glossaries) == n {
			w.WriteHeader(404)
			return
		}
		w.WriteHeader(204)
	case path == "translate":
		var req struct {
			Text       []string `json:"text"`
			SourceLang string   `json:"source_lang"`
			TargetLang string   `json:"target_lang"`
			Glossary   string   `json:"glossary_id"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		if req.Glossary != "" && !slices.ContainsFunc(f.glossaries, func(g map[string]string) bool {
			return g["glossary_id"] == req.Glossary
		}) {
			w.WriteHeader(404)
			fmt.Fprint(w, `{"message":"Glossary not found"}`)
			return
		}
		f.used = append(f.used, req.Glossary)
		var out []map[string]string
		for _, text := range req.Text {
			out = append(out, map[string]string{"text": req.TargetLang + ":" + text})
		}
		json.NewEncoder(w).Encode(map[string]any{"translations": out})
	default:
		http.NotFound(w, r)
	}
}

// take returns and forgets the glossary calls and uses so far.
func (f *fakeDeepL) take() (calls, used []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	calls, used = f.calls, f.used
	f.calls, f.used = nil, nil
	return calls, used
}

// TestDeepLGlossary: DeepL gets the project's glossary as a DeepL
// glossary named by project, pair and content, made once and reused,
// replacing the project's stale one (and the account's oldest at its
// limit), each translation naming it; a project without a glossary or
// a glossary DeepL will not make translates without one, and no key
// reaches the log.
func TestDeepLGlossary(t *testing.T) {
	const key = "deepl-glossary-secret"
	db, project := glossaryDB(t)
	fake := &fakeDeepL{t: t, key: key}
	stale := glossaryNamePrefix(project) + "0123456789abcdef"
	fake.glossaries = append(fake.glossaries, map[string]string{"glossary_id": "stale", "name": stale,
		"creation_time": "2026-11-01T00:00:00Z"})
	// The account is at DeepL's limit of 1,000 glossaries besides the
	// stale one: the oldest of the others goes too.
	for i := range 1000 {
		fake.glossaries = append(fake.glossaries, map[string]string{"glossary_id": fmt.Sprintf("other%d", i),
			"name": fmt.Sprintf("someone-else-%d", i), "creation_time": fmt.Sprintf("2026-10-%02dT00:00:%02dZ", 1+i%28, i%60)})
	}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	var logs bytes.Buffer
	broker := func() *machinery.Broker {
		return mustBroker(t, machinery.Options{Glossary: db, Logger: slog.New(slog.NewTextHandler(&logs, nil)),
			Site: map[string]machinery.Config{"deepl": {"key": key, "url": srv.URL + "/v2"}}})
	}
	b := broker()
	translate := func(b *machinery.Broker, project int64, target string, texts ...string) []string {
		t.Helper()
		got, err := b.Translate(context.Background(), mustFind(t, b, "deepl"), machinery.Request{
			SourceLanguage: "en", TargetLanguage: target, ProjectID: project, Texts: texts})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, list := range got {
			out = append(out, list[0].Text)
		}
		return out
	}

	if got := translate(b, project, "de", "An apple", "A pear tree"); !slices.Equal(got, []string{"DE:An apple", "DE:A pear tree"}) {
		t.Errorf("translations %q", got)
	}
	calls, used := fake.take()
	wantCalls := []string{"GET glossary-language-pairs", "GET glossaries", "DELETE glossaries/stale",
		"DELETE glossaries/other0", "POST glossaries"}
	if !slices.Equal(calls, wantCalls) || !slices.Equal(used, []string{"g1"}) {
		t.Errorf("first translation: calls %q, glossaries used %q; want %q and g1", calls, used, wantCalls)
	}
	// other0 is the oldest of the others (2026-10-01T00:00:00Z).
	made := fake.created[0]
	wantEntries := "apple\tApfel\npear tree\tBirnbaum\nTolk\tTolk\nsum\tSumme\nApple\tApfelbaum"
	if made["entries"] != wantEntries || made["entries_format"] != "tsv" || made["source_lang"] != "EN" ||
		made["target_lang"] != "DE" || !strings.HasPrefix(made["name"], glossaryNamePrefix(project)) ||
		made["name"] == stale {
		t.Errorf("glossary made: %q", made)
	}

	// The same glossary again: reused, nothing listed or made.
	translate(b, project, "de", "Plums")
	if calls, used := fake.take(); len(calls) != 0 || !slices.Equal(used, []string{"g1"}) {
		t.Errorf("second translation: calls %q, used %q; want none and g1", calls, used)
	}

	// The glossary changes; a new broker (the terms are kept 30 s) sees
	// DeepL's copy stale: replaced, and the new one used.
	g, err := db.FindTranslation(context.Background(), "demo", "glossary", "de")
	if err != nil {
		t.Fatal(err)
	}
	id, err := db.FindUnitIDByHash(context.Background(), g.ID, index.IDHash(false, []string{"apple"}, ""))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.UpdateUnit(context.Background(), id, index.Actor{}, func(index.Unit, index.Translation) (index.UnitUpdate, error) {
		return index.UnitUpdate{Edit: &index.UnitEdit{Target: []string{"Apfel (Frucht)"}, State: index.StateTranslated}}, nil
	}); err != nil {
		t.Fatal(err)
	}
	b = broker()
	translate(b, project, "de", "An apple")
	calls, used = fake.take()
	if want := []string{"GET glossary-language-pairs", "GET glossaries", "DELETE glossaries/g1", "POST glossaries"}; !slices.Equal(calls, want) ||
		!slices.Equal(used, []string{"g2"}) || !strings.HasPrefix(fake.created[1]["entries"], "apple\tApfel (Frucht)\n") {
		t.Errorf("after the glossary changed: calls %q, used %q, entries %q", calls, used, fake.created[1]["entries"])
	}

	// Deleted outside Tolk: the translation that names it fails, the
	// next one lists again and makes it anew.
	fake.mu.Lock()
	fake.glossaries = slices.DeleteFunc(fake.glossaries, func(g map[string]string) bool { return g["glossary_id"] == "g2" })
	fake.mu.Unlock()
	if _, err := b.Translate(context.Background(), mustFind(t, b, "deepl"), machinery.Request{SourceLanguage: "en",
		TargetLanguage: "de", ProjectID: project, Texts: []string{"An apple"}}); err == nil || !strings.Contains(err.Error(), "Glossary not found") {
		t.Errorf("a glossary deleted outside Tolk: %v", err)
	}
	fake.take()
	translate(b, project, "de", "An apple")
	if calls, used := fake.take(); !slices.Equal(calls, []string{"GET glossaries", "POST glossaries"}) || !slices.Equal(used, []string{"g3"}) {
		t.Errorf("after the glossary was deleted outside: calls %q, used %q", calls, used)
	}

	// No glossary: another project, a language the glossary lacks, no
	// project.
	for _, c := range []struct {
		project int64
		target  string
	}{{project + 1000, "de"}, {project, "fr"}, {0, "de"}} {
		translate(b, c.project, c.target, "An apple")
		if calls, used := fake.take(); len(calls) != 0 || !slices.Equal(used, []string{""}) {
			t.Errorf("project %d → %s: calls %q, used %q; want no glossary", c.project, c.target, calls, used)
		}
	}

	// DeepL refuses to make the glossary: the translation is made
	// without, the reason logged without the key.
	fake.mu.Lock()
	fake.glossaries, fake.failCreate = nil, true
	fake.mu.Unlock()
	b = broker()
	if got := translate(b, project, "de", "An apple"); !slices.Equal(got, []string{"DE:An apple"}) {
		t.Errorf("with the glossary refused: %q", got)
	}
	if calls, used := fake.take(); !slices.Contains(calls, "POST glossaries") || !slices.Equal(used, []string{""}) {
		t.Errorf("with the glossary refused: calls %q, used %q", calls, used)
	}
	if !strings.Contains(logs.String(), "DeepL glossary not used") || strings.Contains(logs.String(), key) {
		t.Errorf("log:\n%s", logs.String())
	}
}

// glossaryNamePrefix is the name every DeepL glossary of the project
// for English → German starts with.
func glossaryNamePrefix(project int64) string { return fmt.Sprintf("tolk:%d:EN:DE:", project) }
