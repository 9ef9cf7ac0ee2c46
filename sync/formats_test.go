package sync_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/formats"
	"github.com/tolk-project/tolk/formats/codecs"
	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/internal/corpusspec"
	tolksync "github.com/tolk-project/tolk/sync"
	"github.com/tolk-project/tolk/vcs"
)

// formatCase is one corpus component the end-to-end format test runs
// through the real service and store.
type formatCase struct {
	folder   string // under shared/corpus
	name     string // the subtest's name when folder/format is not unique
	mask     string
	template string // "" for a bilingual format
	newBase  string // new_base, "" for none
	format   string // file_format
	source   string // source language
	// langs are the translations imported (language_regex keeps the
	// import to them, so the test stays fast); the first is edited.
	langs []string
	// segments are what the filemask's `*` stands for in the files of
	// langs and add, for language_regex when they differ from the codes
	// (Android's pt-rBR); nil means the codes.
	segments []string
	// style is the language_code_style; "" is the format's default.
	style string
	// total is each imported translation's unit count, from the
	// folder's SOURCE.md (keys in the template; entries in the POT).
	total int
	// value is the edit's text: hostile but valid in the format.
	value string
	// add is a language no file has, added as a new translation; "" for
	// a format that cannot start a file.
	add string
	// sparse says a new file holds only translated units (Android's
	// Emptied writes no untranslated strings), not every template key.
	sparse bool
}

// hostile is an edit's text with what formats must escape: quotes, an
// apostrophe, an ampersand, angle brackets and a line break.
const hostile = "Tolk \"quoted\" l'apostrophe & <angle> brackets\nsecond line"

// hostileXML is hostile as an XLIFF unit holds it: XML text, whose
// markup characters are escaped (the "xml-text" flag).
const hostileXML = "Tolk \"quoted\" l'apostrophe &amp; &lt;angle&gt; brackets\nsecond line"

// formatCases lists one component per format. Adding a format to sync
// is adding its row here: a corpus folder, its filemask, template,
// file_format and source language (SOURCE.md's component settings), a
// translation or two and a language to add.
var formatCases = []formatCase{
	{folder: "jellyfin-web", mask: "src/strings/*.json", template: "src/strings/en-us.json", format: "json",
		source: "en-us", langs: []string{"de", "fr"}, add: "is", style: "posix", total: 1946, value: hostile},
	{folder: "kavita", mask: "UI/Web/src/assets/langs/*.json", template: "UI/Web/src/assets/langs/en.json",
		format: "json", source: "en", langs: []string{"de", "fr"}, add: "is", style: "posix", total: 2063, value: hostile},
	{folder: "tbx/slicer", mask: "glossary/*.tbx", format: "tbx", source: "en", langs: []string{"de", "fr"},
		add: "is", style: "posix", value: hostile},
	// Bilingual PO: the POT is new_base (the reference refuses it as a
	// template of a bilingual format); msgids are the source.
	{folder: "kooha", mask: "po/*.po", newBase: "po/kooha.pot", format: "po", source: "en",
		langs: []string{"de", "pt_BR"}, add: "is", style: "posix", total: 103, value: hostile},
	// The template values/ is outside values-*/; qualifiers name the
	// languages.
	{folder: "newpipe", mask: "app/src/main/res/values-*/strings.xml", template: "app/src/main/res/values/strings.xml",
		format: "aresource", source: "en", langs: []string{"de", "pt_BR"}, segments: []string{"de", "pt-rBR", "b+sr+Latn"},
		add: "sr_Latn", total: 765, value: hostile, sparse: true},
	{folder: "kimai", name: "kimai/messages", mask: "translations/messages.*.xlf", template: "translations/messages.en.xlf", format: "xliff",
		source: "en", langs: []string{"de", "pt_BR"}, add: "is", style: "posix", total: 532, value: hostileXML},
	{folder: "kimai", name: "kimai/validators", mask: "translations/validators.*.xlf", template: "translations/validators.en.xlf", format: "xliff",
		source: "en", langs: []string{"de", "fr"}, add: "is", style: "posix", total: 44, value: hostileXML},
	{folder: "pkspot", mask: "src/locale/messages.*.xlf", template: "src/locale/messages.xlf", format: "xliff2",
		source: "en", langs: []string{"de_CH", "fr"}, segments: []string{"de-CH", "fr", "is"}, add: "is", style: "bcp",
		total: 1604, value: hostileXML},
	// Base.lproj is the template and no language; en.lproj is English
	// beside it, left out like every other file of the source language.
	{folder: "mastodon-ios", mask: "MastodonSDK/Sources/MastodonLocalization/Resources/*.lproj/Localizable.strings",
		template: "MastodonSDK/Sources/MastodonLocalization/Resources/Base.lproj/Localizable.strings",
		format:   "strings-utf8", source: "en", langs: []string{"de", "zh_Hans"}, segments: []string{"de", "zh-Hans", "pt-BR"},
		add: "pt_BR", total: 626, value: hostile},
	// 30 keys: a unit for each format string and one per plural
	// variable (31).
	{folder: "mastodon-ios", mask: "MastodonSDK/Sources/MastodonLocalization/Resources/*.lproj/Localizable.stringsdict",
		template: "MastodonSDK/Sources/MastodonLocalization/Resources/Base.lproj/Localizable.stringsdict",
		format:   "stringsdict", source: "en", langs: []string{"de", "fr"}, segments: []string{"de", "fr", "pt-BR"}, add: "pt_BR", total: 61, value: hostile},
	// Root keys are spelled as the file names are (pt-BR.yml has
	// "pt-BR:"), which a new bcp-style file follows.
	{folder: "diaspora", mask: "config/locales/diaspora/*.yml", template: "config/locales/diaspora/en.yml",
		format: "ruby-yaml", source: "en", langs: []string{"de", "pt_BR"}, segments: []string{"de", "pt-BR", "sr-Latn"},
		add: "sr_Latn", style: "bcp", total: 925, value: hostile},
	{folder: "fluffychat", mask: "lib/l10n/intl_*.arb", template: "lib/l10n/intl_en.arb", format: "arb",
		source: "en", langs: []string{"de", "pt_BR"}, add: "is", style: "posix", total: 768, value: hostile},
	{folder: "jitsi", mask: "modules/plugin/defaultresourcepack/src/main/resources/resources/languages/resources_*.properties",
		template: "modules/plugin/defaultresourcepack/src/main/resources/resources/languages/resources.properties",
		format:   "properties-utf8", source: "en", langs: []string{"de", "pt_BR"}, add: "is", style: "posix", total: 1478,
		value: hostile},
	{folder: "portfolio-performance", mask: "name.abuchen.portfolio.ui/src/name/abuchen/portfolio/ui/messages_*.properties",
		template: "name.abuchen.portfolio.ui/src/name/abuchen/portfolio/ui/messages.properties",
		format:   "properties", source: "en", langs: []string{"de", "fr"}, add: "is", style: "posix", total: 1078,
		value: hostile},
	// One file holds every language (formats.Format.OneFile): the
	// filemask is its path, language_regex reads the file's spellings,
	// and a new language is added to the same file. 733 keys, 19
	// device variations (4 entries) and 91 substitutions: 751 units.
	{folder: "icecubesapp", mask: "IceCubesApp/Resources/Localization/Localizable.xcstrings", format: "xcstrings",
		source: "en", langs: []string{"de", "pt_BR"}, segments: []string{"de", "pt-BR", "is"}, add: "is", value: hostile},
}

// TestFormatCasesMatchCorpusSpec keeps formatCases and
// internal/corpusspec, which tolk-bench reads the corpus with, saying
// the same of every corpus component: a component in one is in the
// other with the same template, new_base, format and source language.
func TestFormatCasesMatchCorpusSpec(t *testing.T) {
	seen := map[string]bool{}
	for _, tc := range formatCases {
		i := slices.IndexFunc(corpusspec.Components, func(c corpusspec.Component) bool {
			return c.Folder == tc.folder && c.Filemask == tc.mask
		})
		if i < 0 {
			t.Errorf("%s %s: not in corpusspec.Components", tc.folder, tc.mask)
			continue
		}
		c := corpusspec.Components[i]
		seen[c.Name] = true
		if c.Template != tc.template || c.NewBase != tc.newBase || c.Format != tc.format || c.Source != tc.source {
			t.Errorf("%s: corpusspec says template %q, new_base %q, format %q, source %q; formatCases %q, %q, %q, %q",
				c.Name, c.Template, c.NewBase, c.Format, c.Source, tc.template, tc.newBase, tc.format, tc.source)
		}
	}
	for _, c := range corpusspec.Components {
		if !seen[c.Name] {
			t.Errorf("corpusspec's %s has no formatCases row", c.Name)
		}
	}
}

// TestFormatsEndToEnd imports each corpus component through sync and the
// store, checks every translation's unit counts against SOURCE.md and a
// parse of its file, edits one unit with hostile text and commits: git's
// diff must be one hunk, that entry's (PO's header fields aside), and
// the file must read back with the edit and every other unit as it was.
// Then it adds a translation, whose new file (from new_base or the
// template, emptied, or empty) must parse and hold an edit.
func TestFormatsEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("corpus import in -short mode")
	}
	for _, tc := range formatCases {
		name := tc.name
		if name == "" {
			name = tc.folder + "/" + tc.format
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			codec, ok := codecs.Lookup(tc.format)
			if !ok {
				t.Fatalf("no codec for %q", tc.format)
			}
			url := mustCorpusRepo(t, tc.folder)
			e := mustEnvWith(t, tolksync.Options{Committer: vcs.Signature{Name: "Tolk Bot", Email: "bot@tolk.example"}})
			c := index.DefaultComponent()
			c.Name, c.Slug, c.Repo, c.Filemask, c.Template = "corpus", "corpus", url, tc.mask, tc.template
			c.FileFormat, c.SourceLanguage, c.IsGlossary, c.NewBase = tc.format, tc.source, tc.format == "tbx", tc.newBase
			segments := tc.segments
			if segments == nil {
				segments = append([]string{tc.add}, tc.langs...)
			}
			// The source language's own file (en.lproj beside Base) is
			// imported and ignored; the regex keeps the rest out.
			quoted := []string{regexp.QuoteMeta(tc.source)}
			for _, seg := range segments {
				quoted = append(quoted, regexp.QuoteMeta(seg))
			}
			c.LanguageRegex = "^(" + strings.Join(quoted, "|") + ")$"
			c.LanguageCode = tc.style
			c = e.reconcile(t, c)[0]
			ce := commitEnv{env: e, c: c, bare: strings.TrimPrefix(url, "file://"),
				ann: mustUser(t, e.db, "ann", "Ann Example")}

			for _, lang := range tc.langs {
				tr := mustTranslation(t, e, "corpus", lang)
				total, translated := fileCounts(t, ce, codec, tr)
				if tr.LoadError != "" || tr.Stats.Total != total || tr.Stats.Translated != translated {
					t.Errorf("%s: total %d, translated %d (load error %q); the file says %d, %d",
						lang, tr.Stats.Total, tr.Stats.Translated, tr.LoadError, total, translated)
				}
				if tc.total != 0 && tr.Stats.Total != tc.total {
					t.Errorf("%s: total %d, SOURCE.md says %d", lang, tr.Stats.Total, tc.total)
				}
				sameHashes(t, ce, tr)
			}

			// One edit, one entry's lines.
			tr := mustTranslation(t, e, "corpus", tc.langs[0])
			u := editableUnit(t, ce, tr)
			before := gitShow(t, ce.bare, tr.Filename)
			ce.editUnit(t, u, tc.value)
			if err := e.svc.Push(context.Background(), c, &ce.ann); err != nil {
				t.Fatal(err)
			}
			after := gitShow(t, ce.bare, tr.Filename)
			diff := git(t, ce.bare, "diff", "--unified=0", "main~1", "main")
			if !strings.Contains(diff, "b/"+tr.Filename) || strings.Count(diff, "diff --git") != 1 {
				t.Fatalf("editing %q of %s changed other files:\n%s", u.Context, tr.Filename, diff)
			}
			if hunks := entryHunks(t, diff, before, tc.format == "po"); hunks != 1 {
				t.Errorf("editing %q of %s changed %d places, want its entry's lines:\n%s", u.Context, tr.Filename, hunks, diff)
			}
			sameButEdit(t, codec, fileOf(tc, tr.Language), before, after, u, tc.value)
			if tc.format == "po" {
				msgfmtCheck(t, after)
			}

			// A new translation: its file, from new_base or the template
			// when the codec is a Templater, holds the edit and parses.
			if tc.add == "" {
				return
			}
			name, ok := e.svc.TranslationFilename(c, tc.add)
			if !ok {
				t.Fatalf("no file name for %s", tc.add)
			}
			if want := strings.Replace(tc.mask, "*", segments[len(segments)-1], 1); tc.segments != nil && name != want {
				t.Errorf("new file for %s is %s, want %s", tc.add, name, want)
			}
			ctx := context.Background()
			if _, err := e.db.CreateTranslation(ctx, c.ID, tc.add, name, index.UserActor(&ce.ann)); err != nil {
				t.Fatal(err)
			}
			added := mustTranslation(t, e, "corpus", tc.add)
			nu := editableUnit(t, ce, added)
			ce.editUnit(t, nu, tc.value)
			if err := e.svc.Push(ctx, c, &ce.ann); err != nil {
				t.Fatal(err)
			}
			data := gitShow(t, ce.bare, name)
			units, err := codec.Decode(data, fileOf(tc, added.Language))
			if err != nil {
				t.Fatalf("new file %s does not parse: %v\n%s", name, err, data)
			}
			found := false
			for _, fu := range units {
				if fu.Context == nu.Context && (tc.template != "" || firstForm(fu.Source) == firstForm(nu.Source)) && len(fu.Target) > 0 && fu.Target[0] == tc.value {
					found = true
				}
			}
			if !found {
				t.Errorf("new file %s lacks the edit of %q", name, nu.Context)
			}
			if tc.format == "po" {
				msgfmtCheck(t, data)
			}
			if seg := segments[len(segments)-1]; tc.format == "ruby-yaml" &&
				!strings.HasPrefix(string(data), seg+":") && !strings.Contains(string(data), "\n"+seg+":") {
				t.Errorf("new file %s lacks the root key %s:\n%s", name, seg, data)
			}
			base := tc.template
			if tc.newBase != "" {
				base = tc.newBase
			}
			if _, ok := codec.(formats.Templater); ok && base != "" && !tc.sparse {
				tmpl, err := codec.Decode(gitShow(t, ce.bare, base), fileOf(tc, added.Language))
				if err != nil {
					t.Fatal(err)
				}
				if len(units) != len(tmpl) {
					t.Errorf("new file %s has %d units, its base %d", name, len(units), len(tmpl))
				}
			}
			// The file reads back as the translation the index holds.
			if got := mustTranslation(t, e, "corpus", tc.add); got.Filename != name {
				t.Errorf("translation %s has file %s, want %s", tc.add, got.Filename, name)
			}
		})
	}
}

// entryHunks counts the places git's diff (--unified=0) changes: hunks
// at most two unchanged lines apart are one place (an XLIFF unit's
// approved attribute and its target, its source between them); a PO
// header's fields (lines before its first blank line) do not count when
// po is set.
func entryHunks(tb testing.TB, diff string, before []byte, po bool) int {
	tb.Helper()
	header := 0
	if po {
		header = len(strings.Split(strings.SplitN(string(before), "\n\n", 2)[0], "\n"))
	}
	n, end := 0, -10
	for _, l := range strings.Split(diff, "\n") {
		if !strings.HasPrefix(l, "@@ -") {
			continue
		}
		old, _, _ := strings.Cut(strings.TrimPrefix(l, "@@ -"), " ")
		startText, countText, hasCount := strings.Cut(old, ",")
		start, err := strconv.Atoi(startText)
		count := 1
		if err == nil && hasCount {
			count, err = strconv.Atoi(countText)
		}
		if err != nil {
			tb.Fatalf("hunk header %q: %v", l, err)
		}
		if po && start <= header {
			continue
		}
		if start-end > 3 {
			n++
		}
		end = start + max(count, 1) - 1
	}
	return n
}

// sameButEdit checks that after reads back as before with u's target
// set to value and nothing else changed.
func sameButEdit(tb testing.TB, codec formats.Codec, f formats.File, before, after []byte, u index.Unit, value string) {
	tb.Helper()
	old, err := codec.Decode(before, f)
	if err != nil {
		tb.Fatal(err)
	}
	now, err := codec.Decode(after, f)
	if err != nil {
		tb.Fatalf("the edited file does not parse: %v", err)
	}
	key := func(x formats.Unit) string { return fmt.Sprintf("%q %q", x.Context, firstForm(x.Source)) }
	want := map[string][]string{}
	for _, x := range old {
		want[key(x)] = x.Target
	}
	edited := key(formats.Unit{Context: u.Context, Source: u.Source})
	if _, ok := want[edited]; !ok && u.Context != "" {
		// A monolingual unit's file key is its context alone.
		edited = key(formats.Unit{Context: u.Context})
	}
	want[edited] = []string{value}
	got := map[string][]string{}
	for _, x := range now {
		got[key(x)] = x.Target
	}
	for k, w := range want {
		if g := got[k]; !slices.Equal(g, w) && !(index.IsBlank(g) && index.IsBlank(w)) {
			tb.Errorf("unit %s reads back %q, want %q", k, g, w)
		}
	}
	if len(got) != len(want) {
		tb.Errorf("%d units read back, want %d", len(got), len(want))
	}
}

// msgfmtCheck runs msgfmt -c on a PO file; without msgfmt it skips,
// unless CI=true, where a missing msgfmt is a failure.
func msgfmtCheck(tb testing.TB, data []byte) {
	tb.Helper()
	if _, err := exec.LookPath("msgfmt"); err != nil {
		if os.Getenv("CI") == "true" {
			tb.Fatal("msgfmt not installed (CI=true)")
		}
		tb.Log("msgfmt not installed: check skipped")
		return
	}
	file := filepath.Join(tb.TempDir(), "t.po")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		tb.Fatal(err)
	}
	if out, err := exec.Command("msgfmt", "-c", "-o", os.DevNull, file).CombinedOutput(); err != nil {
		tb.Errorf("msgfmt -c: %v\n%s", err, out)
	}
}

// fileOf is what the codec is told of a file of tc in lang.
func fileOf(tc formatCase, lang index.Language) formats.File {
	return formats.File{Source: formats.Language{Code: tc.source, Plurals: []string{"one", "other"}},
		Target: formats.Language{Code: lang.Code, Plurals: lang.PluralCategories()}}
}

// fileCounts parses translation tr's file at the bare repository's main
// and returns how many units and translated units the index should
// hold: every template key for a monolingual component, translated
// where the file has a value; each distinct (source, context) of the
// file for a bilingual one, as the first of duplicates says.
func fileCounts(tb testing.TB, ce commitEnv, codec formats.Codec, tr index.Translation) (total, translated int) {
	tb.Helper()
	tc := formatCase{source: ce.c.SourceLanguage}
	decode := func(file string) []formats.Unit {
		units, err := codec.Decode(gitShow(tb, ce.bare, file), fileOf(tc, tr.Language))
		if err != nil {
			tb.Fatalf("%s: %v", file, err)
		}
		return units
	}
	units := decode(tr.Filename)
	if ce.c.Template != "" {
		have := map[string]bool{}
		for _, u := range units {
			if !index.IsBlank(u.Target) && !u.Fuzzy {
				have[u.Context] = true
			}
		}
		tmpl := decode(ce.c.Template)
		for _, u := range tmpl {
			if have[u.Context] {
				translated++
			}
		}
		return len(tmpl), translated
	}
	seen := map[string]bool{}
	for _, u := range units {
		k := fmt.Sprintf("%q %q", u.Source, u.Context)
		if seen[k] {
			continue
		}
		seen[k] = true
		total++
		if !index.IsBlank(u.Target) && !u.Fuzzy {
			translated++
		}
	}
	return total, translated
}

// editableUnit returns a unit of tr a translator can edit: one form, not
// read-only, translated when tr has such a unit (so the edit changes an
// existing value's line).
func editableUnit(tb testing.TB, ce commitEnv, tr index.Translation) index.Unit {
	tb.Helper()
	units, _, err := ce.db.FindUnits(context.Background(), index.UnitFilter{TranslationID: tr.ID,
		Page: index.Page{Number: 1, Size: 200}})
	if err != nil {
		tb.Fatal(err)
	}
	var pick *index.Unit
	for i := range units {
		u := &units[i]
		if u.State == index.StateReadOnly || len(u.Source) != 1 {
			continue
		}
		if pick == nil || pick.State == index.StateEmpty && u.State == index.StateTranslated {
			pick = u
		}
	}
	if pick == nil {
		tb.Fatalf("%s has no editable unit", tr.Filename)
	}
	return *pick
}

// sameHashes checks that every unit of tr holds the id_hash and
// content_hash that index.IDHash and ContentHash give its source and
// context, and that IDHashJoined gives the same from the source joined
// (the peers' lookups, sharedHash, hash through it; the import,
// prepareUnits, through it for monolingual files and through ContentHash's
// parts otherwise) — on every format's real units.
func sameHashes(tb testing.TB, ce commitEnv, tr index.Translation) {
	tb.Helper()
	mono := ce.c.IsMonolingual()
	seen := 0
	for page := 1; ; page++ {
		units, _, err := ce.db.FindUnits(context.Background(), index.UnitFilter{TranslationID: tr.ID,
			Page: index.Page{Number: page, Size: 1000}})
		if err != nil {
			tb.Fatal(err)
		}
		for _, u := range units {
			want := index.IDHash(mono, u.Source, u.Context)
			if u.IDHash != want || index.IDHashJoined(mono, index.JoinPlural(u.Source), u.Context) != want {
				tb.Fatalf("%s: unit %q (%q) has id_hash %d, IDHash %d, IDHashJoined %d", tr.Filename, u.Context,
					u.Source, u.IDHash, want, index.IDHashJoined(mono, index.JoinPlural(u.Source), u.Context))
			}
			if want := index.ContentHash(u.Source, u.Context); u.ContentHash != want {
				tb.Fatalf("%s: unit %q has content_hash %d, ContentHash %d", tr.Filename, u.Context, u.ContentHash, want)
			}
		}
		seen += len(units)
		if len(units) < 1000 {
			break
		}
	}
	if seen != tr.Stats.Total {
		tb.Fatalf("%s: %d units read, %d in its statistics", tr.Filename, seen, tr.Stats.Total)
	}
}

// editUnit sets u's target as Ann.
func (e commitEnv) editUnit(tb testing.TB, u index.Unit, target string) {
	tb.Helper()
	if _, err := e.db.UpdateUnit(context.Background(), u.ID, index.UserActor(&e.ann), func(index.Unit, index.Translation) (index.UnitUpdate, error) {
		return index.UnitUpdate{Edit: &index.UnitEdit{Target: []string{target}, State: index.StateTranslated}}, nil
	}); err != nil {
		tb.Fatal(err)
	}
}

// gitShow returns a file at the bare repository's main, byte for byte.
func gitShow(tb testing.TB, bare, file string) []byte {
	tb.Helper()
	out, err := exec.Command("git", "-C", bare, "show", "main:"+file).Output()
	if err != nil {
		tb.Fatalf("git show main:%s: %v", file, err)
	}
	return out
}

// firstForm is a unit's first form, "" for none.
func firstForm(forms []string) string {
	if len(forms) == 0 {
		return ""
	}
	return forms[0]
}
