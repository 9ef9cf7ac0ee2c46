package autotranslate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/indextest"
	"github.com/tolk-project/tolk/index/langdata"
	"github.com/tolk-project/tolk/index/sqlstore"
	"github.com/tolk-project/tolk/internal/servertest"
	"github.com/tolk-project/tolk/machinery"
)

func TestMain(m *testing.M) { indextest.Main(m) }

// seedLanguages gives the index English and German.
func seedLanguages(tb testing.TB, db *sqlstore.DB) {
	tb.Helper()
	var langs []index.Language
	for _, code := range []string{"en", "de"} {
		l, _ := langdata.Default().Get(code)
		langs = append(langs, l)
	}
	if err := db.SeedLanguages(context.Background(), langs); err != nil {
		tb.Fatal(err)
	}
}

// seedPair adds project p with components "old" (n strings, German
// translated) and "new" (the same sources, German empty), and returns
// new's German translation.
func seedPair(tb testing.TB, db *sqlstore.DB, n int) index.Translation {
	tb.Helper()
	ctx := context.Background()
	p := servertest.MustProject(tb, db, index.Project{Name: "P", Slug: "p"})
	for _, slug := range []string{"old", "new"} {
		c := index.DefaultComponent()
		c.ProjectID, c.Name, c.Slug, c.Template = p.ID, slug, slug, slug+"/en.json"
		c.Repo, c.Branch, c.Filemask = "file:///srv/"+slug+".git", "main", slug+"/*.json"
		c = servertest.MustComponent(tb, db, c)
		var src, de []index.ImportUnit
		for i := range n {
			key, text := fmt.Sprintf("k%d", i), fmt.Sprintf("String number %d", i)
			src = append(src, servertest.Unit(key, text, text, index.StateReadOnly))
			target, state := "", index.StateEmpty
			if slug == "old" {
				target, state = fmt.Sprintf("Zeichenkette %d", i), index.StateTranslated
			}
			de = append(de, servertest.Unit(key, text, target, state))
		}
		id := servertest.MustImport(tb, db, index.TranslationImport{ComponentID: c.ID, LanguageCode: "en",
			Filename: slug + "/en.json", Revision: "1", IsSource: true, IsTemplate: true, Monolingual: true, Units: src})
		servertest.MustImport(tb, db, index.TranslationImport{ComponentID: c.ID, LanguageCode: "de",
			Filename: slug + "/de.json", Revision: "1", Monolingual: true, SourceTranslationID: id, Units: de})
	}
	t, err := db.FindTranslation(ctx, "p", "new", "de")
	if err != nil {
		tb.Fatal(err)
	}
	return t
}

// pairRunner is a runner over a fresh index with seedPair's n strings.
func pairRunner(t *testing.T, n int) (*sqlstore.DB, index.Translation, *Runner) {
	t.Helper()
	db := indextest.Open(t)
	seedLanguages(t, db)
	tr := seedPair(t, db, n)
	r := New(db, Options{})
	t.Cleanup(r.Close)
	return db, tr, r
}

// crashingStore is the real index whose third batch write never
// happens: the process "dies" first, its runner stopped as a kill stops
// it, between two transactions.
type crashingStore struct {
	*sqlstore.DB
	runner  *Runner
	batches int
}

func (s *crashingStore) ApplyAutoTranslateBatch(ctx context.Context, id string, b index.AutoBatch) (int, error) {
	if s.batches++; s.batches == 3 {
		s.runner.stop()
		return 0, errors.New("killed")
	}
	return s.DB.ApplyAutoTranslateBatch(ctx, id, b)
}

// TestResumeAfterKill: a job stopped midway stays open with its cursor;
// the next process's Resume finishes it, and every string is translated
// exactly once (one change 6 each) with the counts exact.
func TestResumeAfterKill(t *testing.T) {
	ctx := context.Background()
	db := indextest.Open(t)
	seedLanguages(t, db)
	tr := seedPair(t, db, 25)
	crash := &crashingStore{DB: db}
	r1 := New(crash, Options{BatchSize: 4})
	crash.runner = r1
	j, done, err := r1.Start(ctx, tr, 0, index.AutoTranslateParams{Mode: index.AutoTranslate,
		Query: index.AutoDefaultQuery, Source: index.AutoSourceOthers, Threshold: 80})
	if err != nil {
		t.Fatal(err)
	}
	<-done
	r1.Close()
	j, err = db.FindAutoTranslateJob(ctx, j.ID)
	if err != nil || j.Completed || j.Done != 8 || j.Updated != 8 || j.Total != 25 {
		t.Fatalf("job after the kill = %+v, %v; want open after 2 batches of 4", j, err)
	}

	r2 := New(db, Options{BatchSize: 4})
	defer r2.Close()
	if n, err := r2.Resume(ctx); err != nil || n != 1 {
		t.Fatalf("resume = %d, %v", n, err)
	}
	for deadline := time.Now().Add(20 * time.Second); !j.Completed; time.Sleep(10 * time.Millisecond) {
		if j, err = db.FindAutoTranslateJob(ctx, j.ID); err != nil || time.Now().After(deadline) {
			t.Fatalf("job not done: %+v, %v", j, err)
		}
	}
	if j.Err != "" || j.Done != 25 || j.Updated != 25 || j.Progress() != 100 {
		t.Errorf("resumed job = %+v", j)
	}
	changes, _, err := db.FindChanges(ctx, index.ChangeFilter{TranslationID: tr.ID, Actions: []index.Action{index.ActionAutoTranslated},
		Page: index.Page{Number: 1, Size: 100}})
	if err != nil {
		t.Fatal(err)
	}
	per := map[int64]int{}
	for _, c := range changes {
		per[c.UnitID]++
	}
	if len(changes) != 25 || len(per) != 25 {
		t.Errorf("%d changes 6 on %d units, want one on each of 25", len(changes), len(per))
	}
	stats, err := db.TranslationStats(ctx, tr.ID)
	if err != nil || stats.Translated != 25 {
		t.Errorf("translated = %d, %v", stats.Translated, err)
	}
	indextest.CheckCounts(t, db)
	// Nothing left to resume.
	if n, err := New(db, Options{}).Resume(ctx); err != nil || n != 0 {
		t.Errorf("second resume = %d, %v", n, err)
	}
}

// TestCancel: a cancelled job completes with the reference's error and
// writes nothing more.
func TestCancel(t *testing.T) {
	ctx := context.Background()
	db, tr, r := pairRunner(t, 3)
	j, err := db.CreateAutoTranslateJob(ctx, index.AutoTranslateJob{ID: "c", ProjectID: tr.Component.ProjectID,
		ComponentID: tr.ComponentID, TranslationID: tr.ID, Params: index.AutoTranslateParams{Mode: index.AutoSuggest,
			Query: index.AutoDefaultQuery, Source: index.AutoSourceOthers, Threshold: 80}})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.CancelJob(ctx, j.ID); err != nil {
		t.Fatal(err)
	}
	if j, _ = db.FindAutoTranslateJob(ctx, j.ID); !j.Completed || j.Err != errCancelled.Error() {
		t.Errorf("cancelled job = %+v", j)
	}
	if n, _ := r.Resume(ctx); n != 0 {
		t.Errorf("a cancelled job resumed")
	}
}

// TestAddon: the add-on's configuration as the reference stores it, and
// its run over a component's translations, restricted to a component
// named as the configuration names it.
func TestAddon(t *testing.T) {
	for _, c := range []struct {
		cfg  map[string]any
		want string // the params, or the field refused
	}{
		{map[string]any{}, "suggest state:<translated others 80 []"},
		{map[string]any{"mode": "translate", "filter_type": "nottranslated", "threshold": "90"}, "translate state:empty others 90 []"},
		{map[string]any{"mode": "fuzzy", "q": "has:check", "auto_source": "mt", "engines": []any{"weblate"}, "threshold": 75.0},
			"fuzzy has:check mt 75 [weblate]"},
		{map[string]any{"mode": "everything"}, "configuration.mode"},
		{map[string]any{"q": "state:<<"}, "configuration.q"},
		{map[string]any{"filter_type": "bogus"}, "configuration.filter_type"},
		{map[string]any{"threshold": 0}, "configuration.threshold"},
		{map[string]any{"auto_source": "mt"}, "configuration.engines"},
		{map[string]any{"engines": "weblate"}, "configuration.engines"},
		{map[string]any{"mode": []any{"x"}}, "configuration.mode"},
	} {
		a, err := index.ParseAutoTranslateAddon(c.cfg)
		p := a.Params
		got := fmt.Sprintf("%s %s %s %d %v", p.Mode, p.Query, p.Source, p.Threshold, p.Engines)
		var fe *index.FieldError
		if errors.As(err, &fe) {
			for k := range fe.Fields {
				got = k
			}
		} else if err != nil {
			got = err.Error()
		}
		if got != c.want {
			t.Errorf("ParseAutoTranslateAddon(%v) = %s, want %s", c.cfg, got, c.want)
		}
	}

	ctx := context.Background()
	db, tr, r := pairRunner(t, 5)
	a, err := index.ParseAutoTranslateAddon(map[string]any{"mode": "translate", "component": "p/old"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.RunComponent(ctx, tr.Component, a.Params, "p/missing"); err == nil {
		t.Error("a missing component ran")
	}
	n, err := r.RunAddon(ctx, index.Addon{Name: index.AddonAutoTranslate, AutoTranslate: a}, tr.Component)
	if err != nil || n != 5 {
		t.Errorf("add-on run = %d, %v; want the 5 German strings", n, err)
	}
	indextest.CheckCounts(t, db)
}

// seedOne adds project slug (private or not, sharing no memory) with
// component "app" whose German translation holds sources, untranslated,
// as keys k0, k1, …, and returns that translation.
func seedOne(tb testing.TB, db *sqlstore.DB, slug string, private bool, sources ...string) index.Translation {
	tb.Helper()
	p := index.Project{Name: slug, Slug: slug}
	if private {
		p.AccessControl = index.AccessPrivate
	}
	units := make([]index.ImportUnit, len(sources))
	for i, text := range sources {
		units[i] = servertest.Unit(fmt.Sprintf("k%d", i), text, text, index.StateReadOnly)
	}
	return servertest.MustUnsharedTranslation(tb, db, p, "de", units...)
}

// mustUsers creates active users with the given names and returns
// their ids by name.
func mustUsers(tb testing.TB, db *sqlstore.DB, names ...string) map[string]int64 {
	tb.Helper()
	users := map[string]int64{}
	for _, name := range names {
		u, err := db.CreateUser(context.Background(), index.User{Username: name, Email: name + "@example.com", IsActive: true})
		if err != nil {
			tb.Fatal(err)
		}
		users[name] = u.ID
	}
	return users
}

// memoryRunner is a runner whose machinery has the translation memory,
// site-wide.
func memoryRunner(tb testing.TB, db *sqlstore.DB) *Runner {
	tb.Helper()
	broker, err := machinery.New(machinery.Options{Memory: db,
		Site: map[string]machinery.Config{"weblate-translation-memory": {}}})
	if err != nil {
		tb.Fatal(err)
	}
	r := New(db, Options{Machinery: broker})
	tb.Cleanup(r.Close)
	return r
}

// fromMemory are the parameters of an automatic translation from the
// memory.
func fromMemory(mode index.AutoMode, threshold int, personal bool) index.AutoTranslateParams {
	return index.AutoTranslateParams{Mode: mode, Query: index.AutoDefaultQuery, Source: index.AutoSourceMT,
		Engines: []string{"weblate-translation-memory"}, Threshold: threshold, Personal: personal}
}

// TestPersonalMemoryScope: automatic translation from the memory finds
// what its user translated in another project (the personal scope, as
// the reference passes the user to the memory), neither project sharing
// its memory; not for a job without Personal (an add-on, a token
// narrowed to a project), not for another user, and not from a private
// project the user may not read, until they may.
func TestPersonalMemoryScope(t *testing.T) {
	ctx := context.Background()
	db := indextest.Open(t)
	seedLanguages(t, db)
	target := seedOne(t, db, "p", false, "Hello world", "Secret launch date")
	pub := seedOne(t, db, "pub", false, "Hello world")
	priv := seedOne(t, db, "priv", true, "Secret launch date")
	users := mustUsers(t, db, "ann", "bob")
	// ann holds a role in priv while she translates there.
	grant := index.Grant{UserID: users["ann"], Role: "Translate", ProjectID: priv.Component.ProjectID}
	if err := db.AddGrant(ctx, grant); err != nil {
		t.Fatal(err)
	}
	for _, e := range []struct {
		tr   index.Translation
		text string
	}{{pub, "Hallo Welt"}, {priv, "Geheimes Startdatum"}} {
		tr, text := e.tr, e.text
		units, _, err := db.FindUnits(ctx, index.UnitFilter{TranslationID: tr.ID, Page: index.Page{Number: 1, Size: 10}})
		if err != nil || len(units) != 1 {
			t.Fatalf("%s units: %v %v", tr.Component.Project.Slug, units, err)
		}
		servertest.MustEdit(t, db, units[0].ID, index.Actor{UserID: users["ann"], AuthorID: users["ann"]}, text)
	}
	r := memoryRunner(t, db)
	run := func(user string, personal bool) []string {
		t.Helper()
		_, done, err := r.Start(ctx, target, users[user], fromMemory(index.AutoSuggest, 80, personal))
		if err != nil {
			t.Fatal(err)
		}
		<-done
		units, _, err := db.FindUnits(ctx, index.UnitFilter{TranslationID: target.ID, Page: index.Page{Number: 1, Size: 10}})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, u := range units {
			sugg, _, err := db.FindSuggestions(ctx, index.SuggestionFilter{UnitID: u.ID, Page: index.Page{Number: 1, Size: 10}})
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range sugg {
				got = append(got, s.Target[0])
			}
		}
		slices.Sort(got)
		return got
	}
	for _, c := range []struct {
		user     string
		personal bool
		want     string
	}{
		{"ann", false, ""}, // an add-on or a narrowed token: no personal scope
		{"bob", true, ""},  // not bob's translations
		{"", true, ""},     // no user
		{"ann", true, "Geheimes Startdatum,Hallo Welt"},
	} {
		if got := strings.Join(run(c.user, c.personal), ","); got != c.want {
			t.Errorf("%s (personal %v): suggestions %q, want %q", c.user, c.personal, got, c.want)
		}
	}
	indextest.CheckCounts(t, db)
}

// TestPersonalScopeHidesPrivate: a private project the user no longer
// holds a role in stays out of the personal scope of their automatic
// translation, read when the job runs.
func TestPersonalScopeHidesPrivate(t *testing.T) {
	ctx := context.Background()
	db := indextest.Open(t)
	seedLanguages(t, db)
	target := seedOne(t, db, "p", false, "Secret launch date")
	priv := seedOne(t, db, "priv", true, "Secret launch date")
	ann, err := db.CreateUser(ctx, index.User{Username: "ann", Email: "ann@example.com", IsActive: true})
	if err != nil {
		t.Fatal(err)
	}
	units, _, err := db.FindUnits(ctx, index.UnitFilter{TranslationID: priv.ID, Page: index.Page{Number: 1, Size: 10}})
	if err != nil || len(units) != 1 {
		t.Fatalf("priv units: %v %v", units, err)
	}
	servertest.MustEdit(t, db, units[0].ID, index.Actor{UserID: ann.ID, AuthorID: ann.ID}, "Geheimes Startdatum")
	r := memoryRunner(t, db)
	j, done, err := r.Start(ctx, target, ann.ID, fromMemory(index.AutoTranslate, 80, true))
	if err != nil {
		t.Fatal(err)
	}
	<-done
	if j, err = db.FindAutoTranslateJob(ctx, j.ID); err != nil || j.Err != "" || j.Updated != 0 {
		t.Errorf("job = %+v, %v; want nothing from the private project ann may not read", j, err)
	}
	indextest.CheckCounts(t, db)
}

// TestMachinePlurals: a plural string is translated from a machine
// translation service form by form, each of the translation's forms
// from the source form the reference's plural mapper pairs it with
// (Polish one ← English one, few and many ← other); a string whose
// form the service leaves untranslated is left as it was.
func TestMachinePlurals(t *testing.T) {
	ctx := context.Background()
	db := indextest.Open(t)
	var langs []index.Language
	for _, code := range []string{"en", "de", "pl"} {
		l, _ := langdata.Default().Get(code)
		langs = append(langs, l)
	}
	if err := db.SeedLanguages(ctx, langs); err != nil {
		t.Fatal(err)
	}
	p := servertest.MustProject(t, db, index.Project{Name: "P", Slug: "p"})
	c := index.DefaultComponent()
	c.ProjectID, c.Name, c.Slug, c.Template = p.ID, "App", "app", "en.json"
	c.Repo, c.Branch, c.Filemask = "file:///srv/app.git", "main", "*.json"
	c = servertest.MustComponent(t, db, c)
	plural := func(key string, forms ...string) index.ImportUnit {
		return index.ImportUnit{Context: key, Source: forms, Target: forms, State: index.StateReadOnly}
	}
	src := []index.ImportUnit{plural("files", "%d file", "%d files"), plural("dirs", "%d folder", "%d untranslatable"),
		servertest.Unit("hello", "Hello", "Hello", index.StateReadOnly)}
	id := servertest.MustImport(t, db, index.TranslationImport{ComponentID: c.ID, LanguageCode: "en",
		Filename: "en.json", Revision: "1", IsSource: true, IsTemplate: true, Monolingual: true, Units: src})
	for _, lang := range []string{"de", "pl"} {
		n := 2
		if lang == "pl" {
			n = 3
		}
		var units []index.ImportUnit
		for _, u := range src {
			empty := make([]string, len(u.Source))
			if len(u.Source) > 1 {
				empty = make([]string, n)
			}
			units = append(units, index.ImportUnit{Context: u.Context, Source: u.Source, Target: empty, State: index.StateEmpty})
		}
		servertest.MustImport(t, db, index.TranslationImport{ComponentID: c.ID, LanguageCode: lang,
			Filename: lang + ".json", Revision: "1", Monolingual: true, SourceTranslationID: id, Units: units})
	}
	// A LibreTranslate that translates by upper-casing, except the
	// texts it does not know.
	libre := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/languages" {
			fmt.Fprint(w, `[{"code":"en","name":"English","targets":["de","pl"]}]`)
			return
		}
		var req struct {
			Q      []string `json:"q"`
			Target string   `json:"target"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		out := make([]string, len(req.Q))
		for i, q := range req.Q {
			if !strings.Contains(q, "untranslatable") {
				out[i] = req.Target + ":" + strings.ToUpper(q)
			}
		}
		json.NewEncoder(w).Encode(map[string]any{"translatedText": out})
	}))
	defer libre.Close()
	broker, err := machinery.New(machinery.Options{Site: map[string]machinery.Config{"libretranslate": {"url": libre.URL}}})
	if err != nil {
		t.Fatal(err)
	}
	r := New(db, Options{Machinery: broker})
	t.Cleanup(r.Close)
	for lang, want := range map[string]map[string]string{
		"de": {"files": "de:%D FILE|de:%D FILES", "dirs": "|", "hello": "de:HELLO"},
		"pl": {"files": "pl:%D FILE|pl:%D FILES|pl:%D FILES", "dirs": "||", "hello": "pl:HELLO"},
	} {
		tr, err := db.FindTranslation(ctx, "p", "app", lang)
		if err != nil {
			t.Fatal(err)
		}
		j, done, err := r.Start(ctx, tr, 0, index.AutoTranslateParams{Mode: index.AutoTranslate, Query: index.AutoDefaultQuery,
			Source: index.AutoSourceMT, Engines: []string{"libretranslate"}, Threshold: 80})
		if err != nil {
			t.Fatal(err)
		}
		<-done
		if j, err = db.FindAutoTranslateJob(ctx, j.ID); err != nil || j.Err != "" || j.Updated != 2 {
			t.Errorf("%s: job %+v, %v; want 2 strings updated", lang, j, err)
		}
		units, _, err := db.FindUnits(ctx, index.UnitFilter{TranslationID: tr.ID, Page: index.Page{Number: 1, Size: 10}})
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range units {
			if got := strings.Join(u.Target, "|"); got != want[u.Context] {
				t.Errorf("%s %s: %q, want %q", lang, u.Context, got, want[u.Context])
			}
		}
	}
	indextest.CheckCounts(t, db)
}

// TestMachineEngineFails: an engine that fails leaves its strings to the
// next engine chosen, as the reference goes on past an engine's error;
// with every chosen engine failing, the job fails naming the engine.
func TestMachineEngineFails(t *testing.T) {
	ctx := context.Background()
	db, tr, _ := pairRunner(t, 5)
	var brokenCalls int
	var mu sync.Mutex
	broken := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		brokenCalls++
		mu.Unlock()
		w.WriteHeader(http.StatusInternalServerError)
	}))
	defer broken.Close()
	good := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/languages" {
			fmt.Fprint(w, `[{"code":"en","name":"English","targets":["de"]}]`)
			return
		}
		var req struct{ Q []string }
		json.NewDecoder(r.Body).Decode(&req)
		for i := range req.Q {
			req.Q[i] = "DE " + req.Q[i]
		}
		json.NewEncoder(w).Encode(map[string]any{"translatedText": req.Q})
	}))
	defer good.Close()
	broker, err := machinery.New(machinery.Options{Site: map[string]machinery.Config{
		"apertium-apy": {"url": broken.URL}, "libretranslate": {"url": good.URL}}})
	if err != nil {
		t.Fatal(err)
	}
	r := New(db, Options{Machinery: broker, BatchSize: 2})
	t.Cleanup(r.Close)
	run := func(engines ...string) index.AutoTranslateJob {
		t.Helper()
		j, done, err := r.Start(ctx, tr, 0, index.AutoTranslateParams{Mode: index.AutoSuggest, Query: index.AutoDefaultQuery,
			Source: index.AutoSourceMT, Engines: engines, Threshold: 80})
		if err != nil {
			t.Fatal(err)
		}
		<-done
		if j, err = db.FindAutoTranslateJob(ctx, j.ID); err != nil {
			t.Fatal(err)
		}
		return j
	}
	if j := run("apertium-apy"); !strings.HasPrefix(j.Err, "Apertium APy: ") || j.Updated != 0 {
		t.Errorf("only a broken engine: %+v", j)
	}
	if j := run("apertium-apy", "libretranslate"); j.Err != "" || j.Updated != 5 {
		t.Errorf("a broken engine before a good one: %+v", j)
	}
	mu.Lock()
	calls := brokenCalls
	mu.Unlock()
	if calls != 2 {
		t.Errorf("the broken engine was asked %d times in two jobs, the second of three batches; want once a job", calls)
	}
	indextest.CheckCounts(t, db)
}

// TestMemoryCreditsAuthor: a string translated from a memory match of
// another string's translation is credited, on its change 6, to whoever
// made that translation, as the reference records its memory entry's
// user; a match nobody made (an imported file's) is the asker's.
func TestMemoryCreditsAuthor(t *testing.T) {
	ctx := context.Background()
	db, tr, _ := pairRunner(t, 3)
	users := mustUsers(t, db, "ann", "bob")
	// No propagation of bob's edit to the string to translate.
	for _, slug := range []string{"old", "new"} {
		c, err := db.FindComponent(ctx, "p", slug)
		if err != nil {
			t.Fatal(err)
		}
		c.AllowTranslationPropagation = false
		if _, _, err := db.SaveComponent(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	old, err := db.FindTranslation(ctx, "p", "old", "de")
	if err != nil {
		t.Fatal(err)
	}
	id, err := db.FindUnitIDByHash(ctx, old.ID, index.IDHash(true, nil, "k0"))
	if err != nil {
		t.Fatal(err)
	}
	servertest.MustEdit(t, db, id, index.Actor{UserID: users["bob"], AuthorID: users["bob"]}, "Bobs Zeichenkette")
	r := memoryRunner(t, db)
	j, done, err := r.Start(ctx, tr, users["ann"], fromMemory(index.AutoTranslate, 100, false))
	if err != nil {
		t.Fatal(err)
	}
	<-done
	if j, err = db.FindAutoTranslateJob(ctx, j.ID); err != nil || j.Err != "" || j.Updated != 3 {
		t.Fatalf("job %+v, %v", j, err)
	}
	changes, _, err := db.FindChanges(ctx, index.ChangeFilter{TranslationID: tr.ID,
		Actions: []index.Action{index.ActionAutoTranslated}, Page: index.Page{Number: 1, Size: 10}})
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]int64{}
	for _, c := range changes {
		by[c.Target] = c.UserID
	}
	want := map[string]int64{"Bobs Zeichenkette": users["bob"], "Zeichenkette 1": users["ann"], "Zeichenkette 2": users["ann"]}
	if fmt.Sprint(by) != fmt.Sprint(want) {
		t.Errorf("changes 6 by target: %v, want %v", by, want)
	}
	indextest.CheckCounts(t, db)
}
