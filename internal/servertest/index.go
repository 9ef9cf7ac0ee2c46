package servertest

import (
	"context"
	"fmt"
	tolksync "github.com/tolk-project/tolk/sync"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/tolk-project/tolk/formats"
	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/indextest"
	"github.com/tolk-project/tolk/index/langdata"
	"github.com/tolk-project/tolk/index/sqlstore"
)

// ClockStart is the fake clock's first reading; each write transaction
// reads the clock once, so every import gets its own second.
var ClockStart = time.Date(2026, 11, 23, 1, 2, 3, 123456000, time.UTC)

// MustOpenDB opens an empty index on the engine under test, with the
// languages en and de and a clock that advances one second per reading.
func MustOpenDB(tb testing.TB) *sqlstore.DB {
	tb.Helper()
	return MustOpenDBWith(tb, sqlstore.Options{})
}

// MustOpenDBWith is MustOpenDB with o's settings; a nil o.Now is the
// fake clock.
func MustOpenDBWith(tb testing.TB, o sqlstore.Options) *sqlstore.DB {
	tb.Helper()
	if o.Now == nil {
		o.Now = FakeClock()
	}
	if o.FormatFlags == nil {
		o.FormatFlags = formats.FlagsOf
	}
	if o.FormatPlural == nil {
		o.FormatPlural = tolksync.FormatPlural
	}
	db := indextest.OpenWith(tb, o)
	seedLanguages(tb, db, false)
	return db
}

// FakeClock is a clock each reading of which is one second after the
// last, from ClockStart: each write transaction reads the clock once, so
// every import gets its own second.
func FakeClock() func() time.Time {
	var tick atomic.Int64
	return func() time.Time { return ClockStart.Add(time.Duration(tick.Add(1)-1) * time.Second) }
}

// seedLanguages seeds the whole language table into db, or only en and
// de.
func seedLanguages(tb testing.TB, db *sqlstore.DB, all bool) {
	tb.Helper()
	table := langdata.Default()
	langs := table.All()
	if !all {
		langs = nil
		for _, code := range []string{"en", "de"} {
			l, ok := table.Get(code)
			if !ok {
				tb.Fatalf("language %s missing from the table", code)
			}
			langs = append(langs, l)
		}
	}
	if err := db.SeedLanguages(context.Background(), langs); err != nil {
		tb.Fatal(err)
	}
}

func MustProject(tb testing.TB, db *sqlstore.DB, p index.Project) index.Project {
	tb.Helper()
	p, _, err := db.SaveProject(context.Background(), p)
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

func MustComponent(tb testing.TB, db *sqlstore.DB, c index.Component) index.Component {
	tb.Helper()
	c, _, err := db.SaveComponent(context.Background(), c)
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

func MustImport(tb testing.TB, db *sqlstore.DB, imp index.TranslationImport) int64 {
	tb.Helper()
	res, err := db.ImportTranslation(context.Background(), imp)
	if err != nil {
		tb.Fatal(err)
	}
	return res.TranslationID
}

// Unit is a shorthand for one imported Unit.
func Unit(ctx, source, target string, state index.State) index.ImportUnit {
	return index.ImportUnit{Context: ctx, Source: []string{source}, Target: []string{target}, State: state}
}

// AppUnits are the German strings of the demo app; sourceOnly gives the
// source translation's units instead.
func AppUnits(sourceOnly bool) []index.ImportUnit {
	units := []index.ImportUnit{
		Unit("hello", "Hello", "Hallo", index.StateApproved),
		Unit("bye", "Good bye", "Tschüss", index.StateFuzzy),
		Unit("open", "Open file", "Datei öffnen", index.StateTranslated),
		Unit("save", "Save all files", "", index.StateEmpty),
		Unit("quit", "Quit", "", index.StateEmpty),
		Unit("about", "About this app", "", index.StateEmpty),
	}
	if sourceOnly {
		for i := range units {
			units[i].Target, units[i].State = units[i].Source, index.StateReadOnly
		}
	}
	return units
}

// demoGerman is the German app file as SeedDemo's second import leaves
// it: "Open file" translated "Datei öffnen…", whose ellipsis the source
// lacks (the end_ellipsis check fails on it).
func demoGerman() []index.ImportUnit {
	units := AppUnits(false)
	units[2].Target = []string{"Datei öffnen…"}
	return units
}

// SeedDemo fills db with project "demo": a monolingual JSON component
// "app" (English source, German with every state) and a TBX glossary.
// The German app file is imported twice, the second time with one target
// changed, so its changes hold a unit-less update and a unit change.
func SeedDemo(tb testing.TB, db *sqlstore.DB) {
	tb.Helper()
	p := MustProject(tb, db, index.Project{Name: "Demo", Slug: "demo", Web: "https://example.com/",
		SetLanguageTeam: true, EnableHooks: true})

	app := index.DefaultComponent()
	app.ProjectID, app.Name, app.Slug = p.ID, "App", "app"
	app.Repo, app.Branch, app.Filemask, app.Template = "file:///srv/repos/app.git", "main", "locales/*.json", "locales/en.json"
	app.License = "MIT"
	app = MustComponent(tb, db, app)
	src := MustImport(tb, db, index.TranslationImport{ComponentID: app.ID, LanguageCode: "en",
		Filename: "locales/en.json", Revision: "a1,a1", IsSource: true, IsTemplate: true, Monolingual: true,
		Units: AppUnits(true)})
	de := index.TranslationImport{ComponentID: app.ID, LanguageCode: "de", Filename: "locales/de.json",
		Revision: "b1,a1", Monolingual: true, SourceTranslationID: src, Units: AppUnits(false)}
	MustImport(tb, db, de)
	de.Revision = "b2,a1"
	de.Units = demoGerman()
	MustImport(tb, db, de)

	g := index.DefaultComponent()
	g.ProjectID, g.Name, g.Slug, g.IsGlossary = p.ID, "Glossary", "glossary", true
	g.Repo, g.Branch, g.Filemask, g.FileFormat = "file:///srv/repos/glossary.git", "main", "glossary/*.tbx", "tbx"
	g = MustComponent(tb, db, g)
	gsrc := MustImport(tb, db, index.TranslationImport{ComponentID: g.ID, LanguageCode: "en",
		Filename: "glossary/en.tbx", Revision: "g1", IsSource: true, Units: []index.ImportUnit{
			Unit("", "apple", "apple", index.StateReadOnly), Unit("", "pear tree", "pear tree", index.StateReadOnly),
			Unit("", "plum", "plum", index.StateReadOnly)}})
	MustImport(tb, db, index.TranslationImport{ComponentID: g.ID, LanguageCode: "de",
		Filename: "glossary/de.tbx", Revision: "g2", SourceTranslationID: gsrc, Units: []index.ImportUnit{
			Unit("", "apple", "Apfel", index.StateTranslated), Unit("", "pear tree", "Birnbaum", index.StateTranslated),
			Unit("", "plum", "", index.StateEmpty)}})
}

// SeedBig adds project "big" whose component "strings" has n units. The
// German file is imported empty, then fully translated, so its change
// list holds n unit changes between two updates.
func SeedBig(tb testing.TB, db *sqlstore.DB, n int) {
	tb.Helper()
	p := MustProject(tb, db, index.Project{Name: "Big", Slug: "big"})
	c := index.DefaultComponent()
	c.ProjectID, c.Name, c.Slug, c.Filemask, c.Template = p.ID, "Strings", "strings", "*.json", "en.json"
	c = MustComponent(tb, db, c)
	source := make([]index.ImportUnit, n)
	empty := make([]index.ImportUnit, n)
	full := make([]index.ImportUnit, n)
	for i := range n {
		key, text := fmt.Sprintf("key.%04d", i), fmt.Sprintf("String number %d", i)
		source[i] = Unit(key, text, text, index.StateReadOnly)
		empty[i] = Unit(key, text, "", index.StateEmpty)
		full[i] = Unit(key, text, "Zeichenkette "+fmt.Sprint(i), index.StateTranslated)
	}
	src := MustImport(tb, db, index.TranslationImport{ComponentID: c.ID, LanguageCode: "en",
		Filename: "en.json", Revision: "s", IsSource: true, IsTemplate: true, Monolingual: true, Units: source})
	de := index.TranslationImport{ComponentID: c.ID, LanguageCode: "de", Filename: "de.json",
		Revision: "d1", Monolingual: true, SourceTranslationID: src, Units: empty}
	MustImport(tb, db, de)
	de.Units, de.Revision = full, "d2"
	MustImport(tb, db, de)
}

// MustUser creates a user with the given grants (roles by name, in the
// project with the given slug or, for "", site-wide) and returns an
// "Authorization" header value carrying a fresh token for it.
func MustUser(tb testing.TB, db *sqlstore.DB, username string, superuser bool, grants ...[2]string) string {
	tb.Helper()
	return MustScopedUser(tb, db, username, superuser, index.Token{Scope: index.ScopeAdmin}, grants...)
}

// MustScopedUser is mustUser with a token narrowed as tok says (Scope,
// ProjectID, Expires).
func MustScopedUser(tb testing.TB, db *sqlstore.DB, username string, superuser bool, tok index.Token, grants ...[2]string) string {
	tb.Helper()
	ctx := context.Background()
	u, err := db.SaveUser(ctx, index.User{Username: username, FullName: username + " Example",
		Email: username + "@example.com", IsActive: true, IsSuperuser: superuser})
	if err != nil {
		tb.Fatal(err)
	}
	for _, g := range grants {
		grant := index.Grant{UserID: u.ID, Role: g[0]}
		if g[1] != "" {
			p, err := db.FindProject(ctx, g[1])
			if err != nil {
				tb.Fatal(err)
			}
			grant.ProjectID = p.ID
		}
		if err := db.AddGrant(ctx, grant); err != nil {
			tb.Fatal(err)
		}
	}
	secret := index.NewToken(index.UserTokenPrefix)
	tok.UserID, tok.Hash, tok.Prefix = u.ID, index.HashToken(secret), index.UserTokenPrefix
	if _, err := db.CreateToken(ctx, tok); err != nil {
		tb.Fatal(err)
	}
	return "Token " + secret
}

// DemoUnits are the units of each demo translation, as seeded.
var DemoUnits = map[string][]index.ImportUnit{
	"app/en": AppUnits(true), "app/de": demoGerman(),
	"glossary/en": glossaryUnits(true), "glossary/de": glossaryUnits(false),
}

// ExpectStats computes the statistics of the given units from the seed
// alone, as the reference counts them: words and characters of the
// source, states 20 and up translated, 10 fuzzy, 30 approved, 100
// read-only, percentages truncated to one decimal. The one quality check
// the demo's strings fail is end_ellipsis (a translated target ending in
// "…" whose source does not; glossaries run no target checks), so that is
// what failing counts.
func ExpectStats(groups ...[]index.ImportUnit) map[string]any {
	var total, words, chars, tr, trWords, trChars, fuzzy, approved, readonly, failing int
	for _, g := range groups {
		for _, u := range g {
			w, c := len(strings.Fields(u.Source[0])), utf8.RuneCountInString(u.Source[0])
			total, words, chars = total+1, words+w, chars+c
			if u.State >= 20 {
				tr, trWords, trChars = tr+1, trWords+w, trChars+c
			}
			if u.State > 0 && u.State < 100 &&
				strings.HasSuffix(u.Target[0], "…") != strings.HasSuffix(u.Source[0], "…") {
				failing++
			}
			switch u.State {
			case 10:
				fuzzy++
			case 30:
				approved++
			case 100:
				readonly++
			}
		}
	}
	pct := func(part, of int) string {
		if of == 0 {
			return "0.0"
		}
		return fmt.Sprintf("%.1f", float64(part*1000/of)/10)
	}
	return map[string]any{
		"total": strconv.Itoa(total), "total_words": strconv.Itoa(words), "total_chars": strconv.Itoa(chars),
		"translated": strconv.Itoa(tr), "translated_words": strconv.Itoa(trWords),
		"translated_chars": strconv.Itoa(trChars), "translated_percent": pct(tr, total),
		"translated_words_percent": pct(trWords, words), "translated_chars_percent": pct(trChars, chars),
		"fuzzy": strconv.Itoa(fuzzy), "fuzzy_percent": pct(fuzzy, total),
		"approved": strconv.Itoa(approved), "approved_percent": pct(approved, total),
		"readonly": strconv.Itoa(readonly), "readonly_percent": pct(readonly, total),
		"failing": strconv.Itoa(failing), "failing_percent": pct(failing, total), "suggestions": "0", "comments": "0",
	}
}

// glossaryUnits are the glossary's units as seedDemo imports them.
func glossaryUnits(sourceOnly bool) []index.ImportUnit {
	if sourceOnly {
		return []index.ImportUnit{Unit("", "apple", "apple", index.StateReadOnly),
			Unit("", "pear tree", "pear tree", index.StateReadOnly), Unit("", "plum", "plum", index.StateReadOnly)}
	}
	return []index.ImportUnit{Unit("", "apple", "Apfel", index.StateTranslated),
		Unit("", "pear tree", "Birnbaum", index.StateTranslated), Unit("", "plum", "", index.StateEmpty)}
}
