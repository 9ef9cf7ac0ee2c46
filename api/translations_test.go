package api_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/internal/servertest"
)

// Shapes of the spec's objects ("Resources and their fields").
var (
	languageShape = servertest.Shape{
		"code": "string", "name": "string", "plural": "object", "aliases": "strings",
		"direction": "string", "population": "int", "web_url": "url", "url": "url", "statistics_url": "url",
	}
	pluralShape  = servertest.Shape{"id": "int", "source": "int", "number": "int", "formula": "string", "type": "int"}
	projectShape = servertest.Shape{
		"name": "string", "slug": "string", "id": "int", "web": "string", "web_url": "url", "url": "url",
		"components_list_url": "url", "repository_url": "url", "statistics_url": "url", "categories_url": "url",
		"changes_list_url": "url", "languages_url": "url", "labels_url": "url", "credits_url": "url", "translation_review": "bool",
		"source_review": "bool", "set_language_team": "bool", "instructions": "string",
		"enable_hooks": "bool", "language_aliases": "string",
		"use_shared_tm": "bool", "contribute_shared_tm": "bool",
	}
	componentShape = servertest.Shape{
		"name": "string", "slug": "string", "id": "int", "source_language": "object", "project": "object",
		"category": "url|null", "vcs": "string", "repo": "string", "git_export": "url", "branch": "string", "push_branch": "string",
		"filemask": "string", "template": "string", "edit_template": "bool", "intermediate": "string",
		"new_base": "string", "file_format": "string", "license": "string", "license_url": "url|null",
		"agreement": "string", "web_url": "url", "url": "url", "repository_url": "url",
		"translations_url": "url", "statistics_url": "url", "lock_url": "url", "links_url": "url",
		"changes_list_url": "url", "task_url": "null", "credits_url": "url", "new_lang": "string",
		"language_code_style": "string", "push": "string", "check_flags": "string", "priority": "int",
		"enforced_checks": "strings", "restricted": "bool", "repoweb": "string",
		"report_source_bugs": "string", "merge_style": "string", "commit_message": "string",
		"add_message": "string", "delete_message": "string", "merge_message": "string",
		"addon_message": "string", "pull_message": "string", "allow_translation_propagation": "bool",
		"manage_units": "bool", "enable_suggestions": "bool", "suggestion_voting": "bool",
		"suggestion_autoaccept": "int", "push_on_commit": "bool", "commit_pending_age": "int",
		"auto_lock_error": "bool", "language_regex": "string", "variant_regex": "string",
		"addons": "strings", "is_glossary": "bool", "glossary_color": "string", "linked_component": "url|null",
		// Tolk's own (README, "Import errors").
		"import_error": "string|null", "skipped_files": "array",
	}
	translationShape = servertest.Shape{
		"language": "object", "component": "object", "language_code": "string", "id": "int",
		"filename": "string", "revision": "string", "web_url": "url", "share_url": "url",
		"translate_url": "url", "url": "url", "is_template": "bool", "is_source": "bool",
		"total": "int", "total_words": "int", "translated": "int", "translated_words": "int",
		"translated_percent": "number", "fuzzy": "int", "fuzzy_words": "int", "fuzzy_percent": "number",
		"failing_checks": "int", "failing_checks_words": "int", "failing_checks_percent": "number",
		"have_suggestion": "int", "have_comment": "int", "last_change": "timestamp|null",
		"last_author": "string|null", "repository_url": "url", "file_url": "url",
		"statistics_url": "url", "changes_list_url": "url", "units_list_url": "url",
		// Tolk's own (README, "Import errors").
		"import_error": "string|null",
	}
)

func TestTranslationFields(t *testing.T) {
	srv, _ := servertest.DemoServer(t)
	base := srv.URL
	tr := servertest.GetObject(t, base+"/api/translations/demo/app/de/")
	servertest.CheckShape(t, "translation", tr, translationShape)
	lang := servertest.Obj(t, tr["language"])
	servertest.CheckShape(t, "translation.language", lang, languageShape)
	servertest.CheckShape(t, "translation.language.plural", servertest.Obj(t, lang["plural"]), pluralShape)
	comp := servertest.Obj(t, tr["component"])
	servertest.CheckShape(t, "translation.component", comp, componentShape)
	src := servertest.Obj(t, comp["source_language"])
	servertest.CheckShape(t, "component.source_language", src, languageShape)
	servertest.CheckShape(t, "component.project", servertest.Obj(t, comp["project"]), projectShape)

	want := map[string]any{
		"language_code":          "de",
		"filename":               "locales/de.json",
		"revision":               "b2,a1",
		"url":                    base + "/api/translations/demo/app/de/",
		"web_url":                base + "/projects/demo/app/de/",
		"share_url":              base + "/engage/demo/-/de/",
		"translate_url":          base + "/translate/demo/app/de/",
		"repository_url":         base + "/api/translations/demo/app/de/repository/",
		"file_url":               base + "/api/translations/demo/app/de/file/",
		"statistics_url":         base + "/api/translations/demo/app/de/statistics/",
		"changes_list_url":       base + "/api/translations/demo/app/de/changes/",
		"units_list_url":         base + "/api/translations/demo/app/de/units/",
		"is_template":            false,
		"is_source":              false,
		"total":                  "6",
		"total_words":            "12",
		"translated":             "2",
		"translated_words":       "3",
		"translated_percent":     "33.3",
		"fuzzy":                  "1",
		"fuzzy_words":            "2",
		"fuzzy_percent":          "16.6",
		"failing_checks":         "1", // "Datei öffnen…" fails end_ellipsis
		"failing_checks_words":   "2",
		"failing_checks_percent": "16.6",
		"have_suggestion":        "0",
		"have_comment":           "0",
		"last_author":            nil, // imports have no author
		// The sixth write: languages, project, app, en, de, de again.
		"last_change": "2026-11-23T01:02:08.123456Z",
	}
	checkValues(t, "translation", tr, want)
	checkValues(t, "language", lang, map[string]any{
		"code": "de", "name": "German", "direction": "ltr",
		"url": base + "/api/languages/de/", "web_url": base + "/languages/de/",
		"statistics_url": base + "/api/languages/de/statistics/",
	})
	checkValues(t, "source_language", src, map[string]any{"code": "en", "name": "English"})
	checkValues(t, "component", comp, map[string]any{
		"name": "App", "slug": "app", "vcs": "git", "repo": "file:///srv/repos/app.git", "branch": "main",
		"filemask": "locales/*.json", "template": "locales/en.json", "file_format": "json",
		"license": "MIT", "license_url": "https://spdx.org/licenses/MIT.html",
		"git_export":       base + "/git/demo/app/",
		"web_url":          base + "/projects/demo/app/",
		"url":              base + "/api/components/demo/app/",
		"repository_url":   base + "/api/components/demo/app/repository/",
		"translations_url": base + "/api/components/demo/app/translations/",
		"statistics_url":   base + "/api/components/demo/app/statistics/",
		"lock_url":         base + "/api/components/demo/app/lock/",
		"links_url":        base + "/api/components/demo/app/links/",
		"changes_list_url": base + "/api/components/demo/app/changes/",
		"task_url":         nil, "priority": "100", "merge_style": "rebase", "new_lang": "add",
		"language_code_style": "posix_long", "commit_pending_age": "24", "suggestion_autoaccept": "0",
		"glossary_color": "silver", "language_regex": "^[^.]+$", "is_glossary": false,
	})
	if addons := comp["addons"].([]any); len(addons) != 0 {
		t.Errorf("addons = %v, want []", addons)
	}
	checkValues(t, "project", servertest.Obj(t, comp["project"]), map[string]any{
		"name": "Demo", "slug": "demo", "web": "https://example.com/",
		"web_url":             base + "/projects/demo/",
		"url":                 base + "/api/projects/demo/",
		"components_list_url": base + "/api/projects/demo/components/",
		"repository_url":      base + "/api/projects/demo/repository/",
		"statistics_url":      base + "/api/projects/demo/statistics/",
		"changes_list_url":    base + "/api/projects/demo/changes/",
		"languages_url":       base + "/api/projects/demo/languages/",
		"set_language_team":   true, "enable_hooks": true, "translation_review": false,
	})
}

func TestTranslationSourceAndGlossary(t *testing.T) {
	srv, _ := servertest.DemoServer(t)
	en := servertest.GetObject(t, srv.URL+"/api/translations/demo/app/en/")
	servertest.CheckShape(t, "source translation", en, translationShape)
	checkValues(t, "source translation", en, map[string]any{
		"is_source": true, "is_template": true, "total": "6", "translated": "6", "translated_percent": "100.0",
	})

	g := servertest.GetObject(t, srv.URL+"/api/translations/demo/glossary/de/")
	servertest.CheckShape(t, "glossary translation", g, translationShape)
	checkValues(t, "glossary translation", g, map[string]any{"total": "3", "translated": "2", "translated_percent": "66.6"})
	comp := servertest.Obj(t, g["component"])
	servertest.CheckShape(t, "glossary component", comp, componentShape)
	checkValues(t, "glossary component", comp, map[string]any{
		"is_glossary": true, "file_format": "tbx", "license": "", "license_url": nil, "template": "",
	})
}

func TestTranslationNotFound(t *testing.T) {
	srv, _ := servertest.DemoServer(t)
	const notFound = `{"type":"client_error","errors":[{"code":"not_found","detail":"Not found.","attr":null}]}`
	for _, path := range []string{
		"/api/translations/nope/app/de/",
		"/api/translations/demo/nope/de/",
		"/api/translations/demo/app/xx/",
		"/api/translations/demo/app/xx/units/",
		"/api/translations/demo/app/xx/changes/",
		"/api/translations/demo/app/xx/statistics/",
		"/api/languages/xx/",
		"/api/languages/xx/statistics/",
	} {
		t.Run(strings.Trim(path, "/"), func(t *testing.T) {
			r := servertest.Do(t, "GET", srv.URL+path, nil)
			if r.Status != 404 || string(r.Body) != notFound {
				t.Errorf("GET %s = %d %s, want 404 %s", path, r.Status, r.Body, notFound)
			}
			if ct := r.Header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type = %q", ct)
			}
		})
	}
}

// checkValues compares fields with expected values: strings compare as
// strings, numbers by their JSON text (given as strings), bools and nil
// as themselves.
func checkValues(t *testing.T, what string, obj map[string]any, want map[string]any) {
	t.Helper()
	for k, w := range want {
		got, ok := obj[k]
		if !ok {
			t.Errorf("%s.%s missing", what, k)
			continue
		}
		if _, isNum := got.(interface{ Int64() (int64, error) }); isNum {
			got = servertest.Num(got)
		}
		if got != w {
			t.Errorf("%s.%s = %#v, want %#v", what, k, got, w)
		}
	}
}

func TestTranslationList(t *testing.T) {
	db := servertest.MustOpenDB(t)
	servertest.SeedDemo(t, db)
	seedExtra(t, db)
	srv := servertest.Serve(t, db, servertest.Options{})
	base := srv.URL
	l := servertest.GetObject(t, base+"/api/translations/")
	var got []string
	for _, tr := range servertest.Results(t, l) {
		servertest.CheckShape(t, "translation", tr, translationShape)
		servertest.CheckShape(t, "translation.component", servertest.Obj(t, tr["component"]), componentShape)
		servertest.CheckShape(t, "translation.language", servertest.Obj(t, tr["language"]), languageShape)
		got = append(got, strings.TrimPrefix(tr["url"].(string), base+"/api/translations/"))
	}
	want := "demo/app/en/,demo/app/de/,demo/glossary/en/,demo/glossary/de/,zulu/strings/en/,beta/strings/en/,mike/strings/en/"
	if servertest.Num(l["count"]) != "7" || strings.Join(got, ",") != want || l["next"] != nil || l["previous"] != nil {
		t.Errorf("translations = %v (count %v, next %v), want %s", got, l["count"], l["next"], want)
	}
	// Each item carries the instance's statistics.
	de := servertest.Results(t, l)[1]
	checkValues(t, "app/de in the list", de, map[string]any{
		"total": "6", "translated": "2", "translated_percent": "33.3", "fuzzy": "1",
		"last_change": "2026-11-23T01:02:08.123456Z", "revision": "b2,a1",
	})
}

// TestListPagination walks every paged list of this change: first,
// middle and last pages, the links between them (the link to page 1
// drops page, every other parameter stays), and a page past the end.
func TestListPagination(t *testing.T) {
	db := servertest.MustOpenDB(t)
	servertest.SeedDemo(t, db)
	seedExtra(t, db)
	srv := servertest.Serve(t, db, servertest.Options{})
	base := srv.URL
	cases := []struct {
		path  string
		size  int
		field string     // what names an item
		pages [][]string // the field's value without the base URL
	}{
		{"/api/projects/", 1, "url", [][]string{{"/api/projects/demo/"}, {"/api/projects/zulu/"},
			{"/api/projects/beta/"}, {"/api/projects/mike/"}}},
		{"/api/components/", 2, "url", [][]string{{"/api/components/demo/app/", "/api/components/demo/glossary/"},
			{"/api/components/zulu/strings/", "/api/components/beta/strings/"}, {"/api/components/mike/strings/"}}},
		{"/api/translations/", 3, "url", [][]string{
			{"/api/translations/demo/app/en/", "/api/translations/demo/app/de/", "/api/translations/demo/glossary/en/"},
			{"/api/translations/demo/glossary/de/", "/api/translations/zulu/strings/en/", "/api/translations/beta/strings/en/"},
			{"/api/translations/mike/strings/en/"}}},
		{"/api/projects/demo/components/", 1, "url", [][]string{{"/api/components/demo/app/"}, {"/api/components/demo/glossary/"}}},
		{"/api/components/demo/app/translations/", 1, "url", [][]string{{"/api/translations/demo/app/en/"},
			{"/api/translations/demo/app/de/"}}},
		{"/api/components/demo/app/statistics/", 1, "url", [][]string{{"/projects/demo/app/en/"}, {"/projects/demo/app/de/"}}},
	}
	for _, tc := range cases {
		t.Run(tc.path, func(t *testing.T) {
			size := fmt.Sprint(tc.size)
			link := func(page int, format string) any {
				q := "?page=" + fmt.Sprint(page) + "&page_size=" + size
				if page == 1 {
					q = "?page_size=" + size
				}
				return base + tc.path + q + format
			}
			count := 0
			for _, p := range tc.pages {
				count += len(p)
			}
			n := len(tc.pages)
			for page := 1; page <= n; page++ {
				for _, format := range []string{"", "&format=api"} {
					url := link(page, format).(string)
					l := servertest.GetObject(t, url)
					var got []string
					for _, r := range servertest.Results(t, l) {
						got = append(got, strings.TrimSuffix(strings.TrimPrefix(r[tc.field].(string), base), "?format=api"))
					}
					var next, prev any
					if page < n {
						next = link(page+1, format)
					}
					if page > 1 {
						prev = link(page-1, format)
					}
					if servertest.Num(l["count"]) != fmt.Sprint(count) || fmt.Sprint(got) != fmt.Sprint(tc.pages[page-1]) ||
						l["next"] != next || l["previous"] != prev {
						t.Errorf("GET %s: count %v results %v next %v previous %v; want %d %v %v %v",
							url, l["count"], got, l["next"], l["previous"], count, tc.pages[page-1], next, prev)
					}
				}
			}
			r := servertest.Do(t, "GET", link(n+1, "").(string), nil)
			const invalid = `{"type":"client_error","errors":[{"code":"not_found","detail":"Invalid page.","attr":null}]}`
			if r.Status != http.StatusNotFound || string(r.Body) != invalid {
				t.Errorf("page %d = %d %s, want 404 %s", n+1, r.Status, r.Body, invalid)
			}
			// With the default page size every list here fits one page.
			l := servertest.GetObject(t, base+tc.path)
			if l["next"] != nil || l["previous"] != nil || len(servertest.Results(t, l)) != count {
				t.Errorf("default page: %v", l)
			}
		})
	}
}
