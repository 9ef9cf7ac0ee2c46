package sync_test

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/formats"
	"github.com/tolk-project/tolk/formats/codecs"
	"github.com/tolk-project/tolk/index"
	tolksync "github.com/tolk-project/tolk/sync"
	"github.com/tolk-project/tolk/vcs"
)

// formatCase is one corpus component the end-to-end format test runs
// through the real service and store.
type formatCase struct {
	folder   string // under shared/corpus
	mask     string
	template string // "" for a bilingual format
	format   string // file_format
	source   string // source language
	// langs are the translations imported (language_regex keeps the
	// import to them, so the test stays fast); the first is edited.
	langs []string
	// add is a language no file has, added as a new translation; "" for
	// a format that cannot start a file.
	add string
}

// formatCases lists one component per format. Adding a format to sync
// is adding its row here: a corpus folder, its filemask, template,
// file_format and source language, a translation or two and a language
// to add.
var formatCases = []formatCase{
	{folder: "jellyfin-web", mask: "src/strings/*.json", template: "src/strings/en-us.json", format: "json",
		source: "en-us", langs: []string{"de", "fr"}, add: "is"},
	{folder: "kavita", mask: "UI/Web/src/assets/langs/*.json", template: "UI/Web/src/assets/langs/en.json",
		format: "json", source: "en", langs: []string{"de", "fr"}, add: "is"},
	{folder: "tbx/slicer", mask: "glossary/*.tbx", format: "tbx", source: "en", langs: []string{"de", "fr"},
		add: "is"},
}

// TestFormatsEndToEnd imports each corpus component through sync and the
// store, checks every translation's unit counts against a parse of its
// file, edits one unit and commits: git's diff must be that value's line
// and nothing else. Then it adds a translation, whose new file (from the
// template, or empty) must parse and hold the edit.
func TestFormatsEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("corpus import in -short mode")
	}
	for _, tc := range formatCases {
		t.Run(tc.folder, func(t *testing.T) {
			t.Parallel()
			codec, ok := codecs.Lookup(tc.format)
			if !ok {
				t.Fatalf("no codec for %q", tc.format)
			}
			url := mustCorpusRepo(t, tc.folder)
			e := mustEnvWith(t, tolksync.Options{Committer: vcs.Signature{Name: "Tolk Bot", Email: "bot@tolk.example"}})
			c := index.DefaultComponent()
			c.Name, c.Slug, c.Repo, c.Filemask, c.Template = "corpus", "corpus", url, tc.mask, tc.template
			c.FileFormat, c.SourceLanguage, c.IsGlossary = tc.format, tc.source, tc.template == ""
			codes := append([]string{tc.source, tc.add}, tc.langs...)
			// The new translation's file is named by its plain code (the
			// default style would write is_IS, which the regex leaves out).
			c.LanguageRegex, c.LanguageCode = "^("+strings.Join(codes, "|")+")$", "posix"
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
			}

			// One edit, one changed line.
			tr := mustTranslation(t, e, "corpus", tc.langs[0])
			u := editableUnit(t, ce, tr)
			const value = "Tolk end-to-end value"
			ce.editUnit(t, u, value)
			if err := e.svc.Push(context.Background(), c, &ce.ann); err != nil {
				t.Fatal(err)
			}
			diff := git(t, ce.bare, "diff", "--unified=0", "main~1", "main")
			var changed []string
			for _, l := range strings.Split(diff, "\n") {
				if (strings.HasPrefix(l, "+") || strings.HasPrefix(l, "-")) &&
					!strings.HasPrefix(l, "+++") && !strings.HasPrefix(l, "---") {
					changed = append(changed, l)
				}
			}
			if len(changed) != 2 || !strings.HasPrefix(changed[0], "-") || !strings.HasPrefix(changed[1], "+") ||
				!strings.Contains(changed[1], value) || !strings.Contains(diff, "b/"+tr.Filename) {
				t.Fatalf("editing %q of %s changed more than its line:\n%s", u.Context, tr.Filename, diff)
			}

			// A new translation: its file, from the template when the
			// codec is a Templater, holds the edit and parses.
			if tc.add == "" {
				return
			}
			name, ok := e.svc.TranslationFilename(c, tc.add)
			if !ok {
				t.Fatalf("no file name for %s", tc.add)
			}
			ctx := context.Background()
			if _, err := e.db.CreateTranslation(ctx, c.ID, tc.add, name, index.UserActor(&ce.ann)); err != nil {
				t.Fatal(err)
			}
			added := mustTranslation(t, e, "corpus", tc.add)
			nu := editableUnit(t, ce, added)
			ce.editUnit(t, nu, value)
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
				if fu.Context == nu.Context && len(fu.Target) > 0 && fu.Target[0] == value {
					found = true
				}
			}
			if !found {
				t.Errorf("new file %s lacks the edit of %q", name, nu.Context)
			}
			if _, ok := codec.(formats.Templater); ok && tc.template != "" {
				tmpl, err := codec.Decode(gitShow(t, ce.bare, tc.template), fileOf(tc, added.Language))
				if err != nil {
					t.Fatal(err)
				}
				if len(units) != len(tmpl) {
					t.Errorf("new file %s has %d units, the template %d", name, len(units), len(tmpl))
				}
			}
		})
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
			if !index.IsBlank(u.Target) {
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
		if !index.IsBlank(u.Target) {
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
