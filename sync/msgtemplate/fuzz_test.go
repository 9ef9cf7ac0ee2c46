package msgtemplate_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tolk-project/tolk/sync/msgtemplate"
)

// maxFuzzOutput bounds what a template may render: the render limit of
// 1 MiB, plus the last node written before the limit is looked at.
const maxFuzzOutput = 2 << 20

// addSeeds seeds f with every template the tests use, the default
// commit, add and pull messages (index's, copied: this package does not
// import index) and a few that reach the corners of the syntax.
func addSeeds(f *testing.F) {
	for _, tc := range renderCases {
		f.Add(tc.tmpl)
	}
	for _, tc := range errorCases {
		f.Add(tc.tmpl)
	}
	for _, s := range checkAccepts {
		f.Add(s)
	}
	for _, s := range []string{
		"Translated using Tolk ({{ language_name }})\n\n" +
			"Currently translated at {{ stats.translated_percent }}% ({{ stats.translated }} of {{ stats.all }} strings)\n\n" +
			"Translation: {{ project_name }}/{{ component_name }}\nTranslate-URL: {{ url }}",
		"Added translation using Tolk ({{ language_name }})\n\n",
		"Translations update from {{ site_title }}\n\n" +
			"Translations update from [{{ site_title }}]({{ site_url }}) for " +
			"[{{ project_name }}/{{ component_name }}]({{url}}).\n\n",
		"{% if a and not b or c == 'x' %}{{ a|default:'z'|floatformat:2 }}{% elif d in e %}{% else %}{% endif %}",
		"{% for c in component_linked_childs reversed %}{{ forloop.parentloop.counter }}{% empty %}{% endfor %}",
		"{% comment %}{{ {% endcomment %}{# x #}", "{{ 1.5.2 }}{{ -3 }}{{ 'a\\'b' }}",
	} {
		f.Add(s)
	}
}

// FuzzParse: Parse never panics, refuses only with a *msgtemplate.Error
// on one of the template's lines, and what it accepts renders without
// variables within the limits.
func FuzzParse(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, src string) {
		tmpl, err := msgtemplate.Parse(src)
		if err != nil {
			var te *msgtemplate.Error
			if !errors.As(err, &te) || te.Line < 1 || te.Line > strings.Count(src, "\n")+1 {
				t.Fatalf("Parse(%q) = %v, want a *msgtemplate.Error on one of its lines", src, err)
			}
			return
		}
		out, err := tmpl.Render(nil)
		if err != nil && !errors.Is(err, msgtemplate.ErrRenderLimit) {
			t.Errorf("Render(%q) without variables = %v", src, err)
		}
		if len(out) > maxFuzzOutput {
			t.Errorf("Render(%q) without variables: %d bytes", src, len(out))
		}
	})
}

// FuzzRender: a template that parses renders with real values in bounded
// time and output, failing only on the render limit, so that a commit
// never fails on its message otherwise; Check says why or accepts.
func FuzzRender(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, src string) {
		start := time.Now()
		tmpl, err := msgtemplate.Parse(src)
		if err != nil {
			return
		}
		for _, vars := range []map[string]any{czech, linked} {
			out, err := tmpl.Render(vars)
			if err != nil && !errors.Is(err, msgtemplate.ErrRenderLimit) {
				t.Errorf("Render(%q) = %v, want nil or the render limit", src, err)
			}
			if len(out) > maxFuzzOutput {
				t.Errorf("Render(%q): %d bytes", src, len(out))
			}
		}
		var te *msgtemplate.Error
		if err := tmpl.Check(linked); err != nil && !errors.As(err, &te) && !errors.Is(err, msgtemplate.ErrRenderLimit) {
			t.Errorf("Check(%q) = %v, want nil, a *msgtemplate.Error or the render limit", src, err)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("took %v on %q", d, src)
		}
	})
}
