package main

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/index"
	tolksync "github.com/tolk-project/tolk/sync"
)

// parseConfig decodes a setup file's bytes and applies its projects
// over existing, as loadConfig and Open do.
func parseConfig(name string, data []byte, resolve func(string) (index.Language, bool), existing existingIndex) ([]tolksync.ProjectSpec, error) {
	_, setup, err := decodeSetupFile(name, data)
	if err != nil {
		return nil, err
	}
	return setup.specs(resolve, existing)
}

// withSetupFile is cfg with the setup file at path laid over it: the
// settings the file gives win over cfg's, and its projects are Setup.
func withSetupFile(tb testing.TB, cfg Config, path string) Config {
	tb.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	file, setup, err := decodeSetupFile(path, data)
	if err != nil {
		tb.Fatal(err)
	}
	cfg, _ = settle(cfg, file)
	cfg.Setup = setup
	return cfg
}

// noEnv is an empty environment, for loadConfig.
func noEnv(string) string { return "" }

func resolveTest(code string) (index.Language, bool) {
	switch code {
	case "en", "de":
		return index.Language{Code: code}, true
	case "en-us", "en_US":
		return index.Language{Code: "en_US"}, true
	}
	return index.Language{}, false
}

func TestParseConfigDefaults(t *testing.T) {
	specs, err := parseConfig("tolk.yaml", []byte(`
projects:
  - name: Demo
    slug: demo
    web: https://example.com/
    components:
      - name: App
        slug: app
        repo: file:///srv/repos/app.git
        branch: main
        filemask: locales/*.json
        template: locales/en.json
        source_language: en-us
        commit_pending_age: 72
      - name: Glossary
        slug: glossary
        vcs: local
        filemask: "*.tbx"
        file_format: tbx
        is_glossary: true
`), resolveTest, existingIndex{})
	if err != nil {
		t.Fatal(err)
	}
	if len(specs) != 1 || len(specs[0].Components) != 2 {
		t.Fatalf("specs = %+v", specs)
	}
	app, glossary := specs[0].Components[0], specs[0].Components[1]
	if app.CommitPendingAge != 72 || app.SourceLanguage != "en_US" || app.VCS != "git" || app.FileFormat != "json" {
		t.Errorf("app = %+v", app)
	}
	// Keys left out keep the reference defaults.
	def := index.DefaultComponent()
	if app.LanguageRegex != def.LanguageRegex || app.MergeStyle != "rebase" || app.Priority != 100 ||
		!app.EnableSuggestions || app.GlossaryColor != "silver" || app.NewLang != "add" {
		t.Errorf("defaults not applied: %+v", app)
	}
	if glossary.Repo != "local:" || glossary.CommitPendingAge != 24 || !glossary.IsGlossary || glossary.SourceLanguage != "en" {
		t.Errorf("glossary = %+v", glossary)
	}
	if !specs[0].Project.SetLanguageTeam || specs[0].Project.Web != "https://example.com/" ||
		specs[0].Project.AccessControl != index.AccessPublic {
		t.Errorf("project = %+v", specs[0].Project)
	}
	private, err := parseConfig("tolk.yaml", []byte("projects:\n  - name: P\n    slug: p\n    access_control: 100\n"), resolveTest, existingIndex{})
	if err != nil || private[0].Project.AccessControl != index.AccessPrivate {
		t.Errorf("access_control 100 = %+v, %v", private, err)
	}
}

// fileLine is the start of a problem of a setup file: its name and line.
var fileLine = regexp.MustCompile(`^tolk\.yaml:[1-9][0-9]*: `)

func TestParseConfigRejects(t *testing.T) {
	base := func(component string) string {
		return "projects:\n  - name: P\n    slug: p\n    components:\n      - name: C\n        slug: c\n" +
			"        repo: file:///x\n        filemask: l/*.json\n        template: l/en.json\n" + component
	}
	cases := []struct {
		name, yaml, want string
	}{
		{"unknown project key", "projects:\n  - name: P\n    slug: p\n    colour: red\n", "projects[0].colour: unknown key"},
		{"unknown component key", base("        fiel_format: json\n"), "projects[0].components[0].fiel_format: unknown key"},
		{"unknown top key", "projekts: []\n", "projekts: unknown key"},
		{"bad format", base("        file_format: pofile\n"), `projects[0].components[0].file_format: unsupported value "pofile"`},
		{"template for a bilingual format", base("        file_format: po\n"), `projects[0].components[0].template: must be empty for file_format po (bilingual)`},
		{"one-file format with a *", "projects:\n  - name: P\n    slug: p\n    components:\n      - name: C\n        slug: c\n" +
			"        repo: file:///x\n        filemask: l/*.xcstrings\n        file_format: xcstrings\n",
			`projects[0].components[0].filemask: filemask "l/*.xcstrings" must be the path of the one file holding every language (file_format xcstrings), without '*'`},
		{"bad vcs", base("        vcs: svn\n"), `projects[0].components[0].vcs: unsupported value "svn"`},
		{"bad conflict policy", base("        conflict_policy: mine\n"),
			`projects[0].components[0].conflict_policy: unsupported value "mine" (want translator or upstream)`},
		{"bad regex", base("        language_regex: \"(\"\n"), "projects[0].components[0].language_regex"},
		{"bad language", base("        source_language: xx-nope\n"), `source_language: unknown language "xx-nope"`},
		{"bad type", base("        commit_pending_age: soon\n"),
			`tolk.yaml:10: projects[0].components[0].commit_pending_age: want an integer, got "soon"`},
		{"bad project type", "projects:\n  - name: P\n    slug: p\n    translation_review: maybe\n",
			`tolk.yaml:4: projects[0].translation_review: want true or false, got "maybe"`},
		{"bad list type", base("        enforced_checks: same\n"),
			`tolk.yaml:10: projects[0].components[0].enforced_checks: want a list of strings, got "same"`},
		{"duplicate slug", "projects:\n  - name: P\n    slug: p\n  - name: Q\n    slug: p\n", `projects[1].slug: "p" is used twice`},
		{"bad slug", "projects:\n  - name: P\n    slug: a/b\n", "projects[0].slug"},
		{"missing repo", "projects:\n  - name: P\n    slug: p\n    components:\n      - name: C\n        slug: c\n        filemask: l/*.json\n        template: l/en.json\n", "repo: required when vcs is git"},
		{"not yaml", "projects: [\n", "tolk.yaml:1: not valid YAML: did not find expected node content"},
		{"bad commit message", base("        commit_message: \"Translated\\n{% for c in component_linked_childs %}\"\n"),
			"tolk.yaml:10: projects[0].components[0].commit_message: template does not render: line 2: {% for %} is not closed"},
		{"empty add message", base("        add_message: \"\"\n"), "projects[0].components[0].add_message: must not be empty"},
		{"undefined in a message", base("        delete_message: \"{{ langauge_name }}\"\n"),
			`projects[0].components[0].delete_message: template does not render: line 1: undefined variable "langauge_name"`},
		{"bad pull message", base("        pull_message: \"{{ site_title|shout }}\"\n"),
			`projects[0].components[0].pull_message: template does not render: line 1: unknown filter "shout"`},
		{"bad merge style", base("        merge_style: squash\n"),
			`tolk.yaml:10: projects[0].components[0].merge_style: unsupported value "squash" (want rebase or merge)`},
		{"a key left out is named at its component's line", "projects:\n  - name: P\n    slug: p\n    components:\n" +
			"      - name: C\n        slug: c\n        filemask: l/*.json\n        template: l/en.json\n",
			"tolk.yaml:5: projects[0].components[0].repo: required when vcs is git"},
		{"custom access", "projects:\n  - name: P\n    slug: p\n    access_control: 200\n", "projects[0].access_control: 200: want 0"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseConfig("tolk.yaml", []byte(tc.yaml), resolveTest, existingIndex{})
			if err == nil {
				t.Fatal("accepted")
			}
			if !strings.Contains(err.Error(), tc.want) || !fileLine.MatchString(err.Error()) {
				t.Errorf("error %q does not name the file, the line and %q", err, tc.want)
			}
		})
	}
}

// TestParseConfigStoredMessages: a message template the index holds and
// the file leaves out is not the file's to answer for, and does not stop
// the server; one the file gives is checked.
func TestParseConfigStoredMessages(t *testing.T) {
	stored := index.DefaultComponent()
	stored.Name, stored.Slug, stored.Repo, stored.Filemask, stored.Template = "C", "c", "file:///x", "l/*.json", "l/en.json"
	stored.CommitMessage, stored.AddMessage = "{% if %}", ""
	existing := existingIndex{component: func(project, slug string) (index.Component, bool) {
		return stored, project == "p" && slug == "c"
	}}
	file := "projects:\n  - name: P\n    slug: p\n    components:\n      - name: C\n        slug: c\n" +
		"        repo: file:///x\n        filemask: l/*.json\n        template: l/en.json\n"
	specs, err := parseConfig("tolk.yaml", []byte(file), resolveTest, existing)
	if err != nil || specs[0].Components[0].CommitMessage != "{% if %}" {
		t.Fatalf("stored templates left out = %v, %v", specs, err)
	}
	_, err = parseConfig("tolk.yaml", []byte(file+"        commit_message: \"{% if %}\"\n"), resolveTest, existing)
	if err == nil || !strings.Contains(err.Error(), "projects[0].components[0].commit_message: template does not render: line 1: {% if %} needs a condition") {
		t.Errorf("bad template given = %v", err)
	}
}
