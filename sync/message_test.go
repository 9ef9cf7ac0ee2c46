package sync_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/index"
	tolksync "github.com/tolk-project/tolk/sync"
	"github.com/tolk-project/tolk/sync/msgtemplate"
)

// czech are the variables of a Czech translation at 50.5 %.
var czech = tolksync.MessageVars{
	LanguageName: "Czech", LanguageCode: "cs", Author: "Jane Doe <jane@example.com>",
	ComponentRemoteBranch: "main", SiteTitle: "Tolk", SiteURL: "https://tolk.example.com",
	ProjectName: "Hello", ProjectSlug: "hello", ComponentName: "App", ComponentSlug: "app",
	URL: "https://tolk.example.com/projects/hello/app/cs/", AddonName: "Squash Git commits",
	Stats: index.Stats{Total: 200, Translated: 101},
}

func TestRenderMessageDefaults(t *testing.T) {
	whole := czech
	whole.Stats = index.Stats{Total: 200, Translated: 200}
	cases := []struct {
		name, tmpl string
		vars       tolksync.MessageVars
		want       string
	}{
		{"commit", index.DefaultCommitMessage, czech, "Translated using Tolk (Czech)\n\n" +
			"Currently translated at 50.5% (101 of 200 strings)\n\n" +
			"Translation: Hello/App\nTranslate-URL: https://tolk.example.com/projects/hello/app/cs/"},
		// Python renders a whole float with ".0", and so does the reference.
		{"commit complete", index.DefaultCommitMessage, whole, "Translated using Tolk (Czech)\n\n" +
			"Currently translated at 100.0% (200 of 200 strings)\n\n" +
			"Translation: Hello/App\nTranslate-URL: https://tolk.example.com/projects/hello/app/cs/"},
		{"add", index.DefaultAddMessage, czech, "Added translation using Tolk (Czech)\n\n"},
		{"delete", index.DefaultDeleteMessage, czech, "Deleted translation using Tolk (Czech)\n\n"},
		{"merge", index.DefaultMergeMessage, czech, "Merge branch 'main' into Tolk.\n\n"},
		{"addon", index.DefaultAddonMessage, czech, "Update translation files\n\n" +
			"Updated by \"Squash Git commits\" add-on in Tolk.\n\n" +
			"Translation: Hello/App\nTranslate-URL: https://tolk.example.com/projects/hello/app/cs/"},
		{"pull", index.DefaultPullMessage, czech, "Translations update from Tolk\n\n" +
			"Translations update from [Tolk](https://tolk.example.com) for " +
			"[Hello/App](https://tolk.example.com/projects/hello/app/cs/).\n\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tolksync.RenderMessage(tc.tmpl, tc.vars)
			if err != nil || got != tc.want {
				t.Errorf("RenderMessage(%q)\n got %q, %v\nwant %q", tc.tmpl, got, err, tc.want)
			}
			if err := tolksync.CheckMessage(tc.tmpl); err != nil {
				t.Errorf("CheckMessage: %v", err)
			}
		})
	}
}

// TestCheckMessageErrors: what msgtemplate refuses comes through with
// its line, and names are checked against what MessageVars gives
// (msgtemplate's tests hold the full list).
func TestCheckMessageErrors(t *testing.T) {
	cases := []struct {
		name, tmpl string
		line       int
		want       string // part of the message
	}{
		{"unclosed variable", "ok\n{{ language_name", 2, "{{ is not closed by }}"},
		{"undefined variable", "Translated {{ langauge_name }}", 1, `undefined variable "langauge_name"`},
		{"undefined in a branch not taken", "{% if nothing %}\n{{ stats.nope }}{% endif %}", 2, `undefined variable "stats.nope"`},
		{"undefined child attribute", "{% for c in component_linked_childs %}{{ c.nme }}{% endfor %}", 1, `undefined variable "c.nme"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tolksync.CheckMessage(tc.tmpl)
			var te *msgtemplate.Error
			if !errors.As(err, &te) {
				t.Fatalf("CheckMessage(%q) = %v, want a *msgtemplate.Error", tc.tmpl, err)
			}
			if te.Line != tc.line || !strings.Contains(te.Msg, tc.want) {
				t.Errorf("CheckMessage(%q) = line %d %q, want line %d containing %q", tc.tmpl, te.Line, te.Msg, tc.line, tc.want)
			}
			// A commit renders an undefined name as "" rather than fail;
			// a template that does not parse cannot render at all.
			_, err = tolksync.RenderMessage(tc.tmpl, czech)
			if undefined := strings.HasPrefix(tc.want, "undefined variable"); undefined != (err == nil) {
				t.Errorf("RenderMessage(%q) = %v", tc.tmpl, err)
			}
		})
	}
}

// TestCheckMessageAccepts: names MessageVars gives, in any branch
// (msgtemplate's tests hold the undefined names Django's conditions and
// loops allow).
func TestCheckMessageAccepts(t *testing.T) {
	for _, tmpl := range []string{
		"{{ hook_name }} {{ stats.fuzzy_percent }} {{ stats.translated_words }} {{ filename }} {{ project_slug }}",
		"{% for c in component_linked_childs %}{{ c.name }}{{ c.project_name }}{{ c.url }}{{ c }}" +
			"{% for d in component_linked_childs %}{{ forloop.parentloop.counter }}{{ d.name }}{% endfor %}{% endfor %}",
		"{{ component_linked_childs.0.url }} {{ component_linked_childs|first }}",
	} {
		if err := tolksync.CheckMessage(tmpl); err != nil {
			t.Errorf("CheckMessage(%q) = %v", tmpl, err)
		}
	}
}

// TestRenderMessageStats: stats reads the translation's counts under the
// reference's names, with percentages as the API gives them.
func TestRenderMessageStats(t *testing.T) {
	v := czech
	v.Stats = index.Stats{Total: 6, Translated: 1, TotalWords: 10, TranslatedWords: 4, Fuzzy: 2, Approved: 1, Failing: 3, Suggestions: 5}
	got, err := tolksync.RenderMessage("{{ stats.translated_percent }} {{ stats.translated_words_percent }} {{ stats.fuzzy }} "+
		"{{ stats.fuzzy_percent }} {{ stats.approved }} {{ stats.allchecks }} {{ stats.suggestions }} {{ stats.all_words }}", v)
	if want := "16.6 40.0 2 33.3 1 3 5 10"; err != nil || got != want {
		t.Errorf("stats = %q, %v; want %q", got, err, want)
	}
}

// ExampleRenderMessage renders a commit message the way a commit of
// Czech edits by one author does.
func ExampleRenderMessage() {
	vars := tolksync.MessageVars{
		LanguageName: "Czech", LanguageCode: "cs", Author: "Jane Doe <jane@example.com>",
		ProjectName: "Hello", ComponentName: "App", URL: "https://tolk.example.com/projects/hello/app/cs/",
		Stats:          index.Stats{Total: 6, Translated: 1},
		LinkedChildren: []tolksync.LinkedChild{{ProjectName: "Hello", Name: "Docs"}},
	}
	msg, err := tolksync.RenderMessage(index.DefaultCommitMessage+
		"{% for c in component_linked_childs %}\nAlso: {{ c.project_name }}/{{ c.name }}{% endfor %}", vars)
	if err != nil {
		fmt.Println(err)
	}
	fmt.Println(msg)
	// Output:
	// Translated using Tolk (Czech)
	//
	// Currently translated at 16.6% (1 of 6 strings)
	//
	// Translation: Hello/App
	// Translate-URL: https://tolk.example.com/projects/hello/app/cs/
	// Also: Hello/Docs
}
