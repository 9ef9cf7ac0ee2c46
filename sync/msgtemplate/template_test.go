package msgtemplate_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tolk-project/tolk/sync/msgtemplate"
)

// czech are the values sync gives a commit of a Czech translation at
// 50.5 %, as far as these tests read them; linked adds two linked
// components.
var czech, linked = func() (map[string]any, map[string]any) {
	czech := map[string]any{
		"language_name": "Czech", "language_code": "cs", "author": "Jane Doe <jane@example.com>",
		"stats":                   &msgtemplate.Object{Attrs: map[string]any{"all": 200, "translated": 101, "translated_percent": 50.5}},
		"component_linked_childs": []any{},
	}
	linked := make(map[string]any, len(czech))
	for k, v := range czech {
		linked[k] = v
	}
	linked["component_linked_childs"] = []any{child("Hello", "Docs", "https://t/docs/"), child("Other", "Web", "https://t/web/")}
	return czech, linked
}()

// child is a linked component as sync gives it.
func child(project, name, url string) *msgtemplate.Object {
	return &msgtemplate.Object{
		Attrs: map[string]any{"project_name": project, "name": name, "url": url},
		Text:  project + "/" + name,
	}
}

// mustParse parses tmpl or fails the test.
func mustParse(tb testing.TB, tmpl string) *msgtemplate.Template {
	tb.Helper()
	t, err := msgtemplate.Parse(tmpl)
	if err != nil {
		tb.Fatalf("Parse(%q) = %v", tmpl, err)
	}
	return t
}

// renderCases are templates and what they render with vars.
var renderCases = []struct {
	name, tmpl string
	vars       map[string]any
	want       string
}{
	{"no spaces", "{{language_code}}/{{stats.all}}", czech, "cs/200"},
	{"extra spaces", "{{   author   }}", czech, "Jane Doe <jane@example.com>"},
	{"no autoescape", "{{ author }} & co", czech, "Jane Doe <jane@example.com> & co"},
	{"unknown variable", "[{{ nothing }}][{{ stats.nothing.deeper }}][{{ language_name.x }}]", czech, "[][][]"},
	{"literals", `{{ "a" }}{{ 'b' }}{{ 3 }}{{ 2.5 }}{{ "q\"q" }}`, czech, `ab32.5q"q`},
	{"comment", "a{# not {{ rendered }} #}b", czech, "ab"},
	{"block comment", "a{% comment %}{% if %}{{ x }}{% endcomment %}b", czech, "ab"},
	{"if true", "{% if language_code %}yes{% endif %}", czech, "yes"},
	{"if missing", "{% if nothing %}yes{% else %}no{% endif %}", czech, "no"},
	{"if empty list", "{% if component_linked_childs %}yes{% else %}none{% endif %}", czech, "none"},
	{"if list", "{% if component_linked_childs %}yes{% else %}none{% endif %}", linked, "yes"},
	{"if zero", "{% if stats.nothing or 0 %}yes{% else %}no{% endif %}", czech, "no"},
	{"elif", `{% if language_code == "de" %}de{% elif language_code == "cs" %}cs{% else %}?{% endif %}`, czech, "cs"},
	{"not equal", `{% if language_code != 'cs' %}x{% else %}y{% endif %}`, czech, "y"},
	{"not and or", `{% if not nothing and language_code or x %}t{% endif %}`, czech, "t"},
	{"precedence", `{% if 0 and 0 or 1 %}t{% else %}f{% endif %}`, czech, "t"},
	{"not not", `{% if not not language_code %}t{% endif %}`, czech, "t"},
	{"numbers", `{% if stats.translated_percent > 50 and stats.all >= 200 and stats.translated < 101.5 %}t{% endif %}`, czech, "t"},
	{"int equals float", `{% if stats.all == 200.0 %}t{% endif %}`, czech, "t"},
	{"string is not number", `{% if stats.all == "200" %}t{% else %}f{% endif %}`, czech, "f"},
	{"mixed order is false", `{% if stats.all > "a" %}t{% else %}f{% endif %}`, czech, "f"},
	{"in string", `{% if "Doe" in author %}t{% endif %}{% if "zz" not in author %}u{% endif %}`, czech, "tu"},
	{"is None", `{% if nothing is None %}t{% endif %}{% if language_code is not None %}u{% endif %}`, czech, "tu"},
	{"for", "{% for c in component_linked_childs %}{{ c.project_name }}/{{ c.name }} {{ c.url }}{% if not forloop.last %}, {% endif %}{% endfor %}",
		linked, "Hello/Docs https://t/docs/, Other/Web https://t/web/"},
	{"for counters", "{% for c in component_linked_childs %}{{ forloop.counter }}{{ forloop.counter0 }}{{ forloop.revcounter }}{{ forloop.first }}|{% endfor %}",
		linked, "102True|211False|"},
	{"for reversed", "{% for c in component_linked_childs reversed %}{{ c }};{% endfor %}", linked, "Other/Web;Hello/Docs;"},
	{"for empty", "{% for c in component_linked_childs %}{{ c }}{% empty %}alone{% endfor %}", czech, "alone"},
	{"for over string", "{% for ch in language_code %}[{{ ch }}]{% endfor %}", czech, "[c][s]"},
	{"for over number", "{% for x in stats.all %}x{% endfor %}.", czech, "."},
	{"nested parentloop", "{% for a in component_linked_childs %}{% for b in component_linked_childs %}{{ forloop.parentloop.counter }}{{ forloop.counter }} {% endfor %}{% endfor %}",
		linked, "11 12 21 22 "},
	{"loop variable shadows", "{% for author in component_linked_childs %}{% endfor %}{{ author }}", linked, "Jane Doe <jane@example.com>"},
	{"list index", "{{ component_linked_childs.1.name }}", linked, "Web"},
	{"list renders", `{{ component_linked_childs }}`, linked, "[Hello/Docs, Other/Web]"},
	{"default", `{{ nothing|default:"none" }} {{ language_code|default:"none" }}`, czech, "none cs"},
	{"default_if_none", `{{ nothing|default_if_none:"none" }}`, czech, "none"},
	{"case filters", `{{ language_name|lower }} {{ language_name|upper }} {{ "they're 1st"|title }} {{ "hello"|capfirst }}`, czech, "czech CZECH They're 1st Hello"},
	{"spaces around filters", `{{ language_name | lower }}`, czech, "czech"},
	{"filter chain", `{{ nothing|default:"ABC"|lower|length }}`, czech, "3"},
	{"join", `{{ component_linked_childs|join:", " }}`, linked, "Hello/Docs, Other/Web"},
	{"first last", `{{ component_linked_childs|first }} {{ component_linked_childs|last }} {{ language_code|last }}`, linked, "Hello/Docs Other/Web s"},
	{"length", `{{ component_linked_childs|length }}`, linked, "2"},
	{"floatformat", `{{ stats.translated_percent|floatformat }} {{ stats.translated_percent|floatformat:0 }} {{ stats.all|floatformat }} {{ 0.125|floatformat:2 }} {{ 9.96|floatformat:1 }} {{ stats.all|floatformat:"-2" }} {{ -0.04|floatformat:1 }}`,
		czech, "50.5 51 200 0.13 10.0 200 0.0"},
	{"add", `{{ stats.all|add:1 }} {{ "a"|add:"b" }} {{ "a"|add:1 }}`, czech, "201 ab "},
	{"yesno", `{{ language_code|yesno }} {{ nothing|yesno:"on,off,unknown" }} {{ ""|yesno:"on,off" }}`, czech, "yes unknown off"},
	{"cut escape safe", `{{ "a-b-c"|cut:"-" }} {{ "<b>"|escape }} {{ "<b>"|safe }}`, czech, "abc &lt;b&gt; <b>"},
	{"filter argument variable", `{{ nothing|default:language_name }}`, czech, "Czech"},
	{"filter in condition", `{% if stats.translated_percent|floatformat:0 == "51" %}t{% endif %}`, czech, "t"},
	{"stray closers are text", "a }} b %} c #} d { e", czech, "a }} b %} c #} d { e"},
	{"tabs in tags", "{%\tif\tlanguage_code\t%}t{%\tendif\t%}", czech, "t"},
	{"multi-line", "{% if language_code %}\n- {{ language_name }}\n{% endif %}\n", czech, "\n- Czech\n\n"},
	{"whole float", `{{ 2.0 }}`, czech, "2.0"},
}

func TestRender(t *testing.T) {
	for _, tc := range renderCases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := mustParse(t, tc.tmpl).Render(tc.vars)
			if err != nil || got != tc.want {
				t.Errorf("Render(%q)\n got %q, %v\nwant %q", tc.tmpl, got, err, tc.want)
			}
		})
	}
}

// errorCase is a template that Parse refuses, or that Check refuses with
// linked as the sample ("undefined variable"), with the line and part of
// the message.
type errorCase struct {
	name, tmpl string
	line       int
	want       string // part of the message
}

// tooDeep nests blocks deeper than Parse allows.
var tooDeep = strings.Repeat("{% if a %}", 40) + strings.Repeat("{% endif %}", 40)

var errorCases = []errorCase{
	{"unclosed variable", "ok\n{{ language_name", 2, "{{ is not closed by }}"},
	{"variable across lines", "{{ language_name\n}}", 1, "on the same line"},
	{"unclosed block tag", "{% if a ", 1, "{% is not closed by %}"},
	{"unclosed comment", "x {# note", 1, "{# is not closed by #}"},
	{"empty variable", "{{ }}", 1, "empty variable tag"},
	{"empty tag", "{%  %}", 1, "empty block tag"},
	{"unclosed if", "a\n{% if language_code %}\nb", 2, "{% if %} is not closed: expected {% elif %} or {% else %} or {% endif %}"},
	{"unclosed for", "{% for c in component_linked_childs %}", 1, "{% for %} is not closed"},
	{"unclosed elif", "{% if a %}{% elif b %}", 1, "{% if %} is not closed"},
	{"unclosed else", "{% if a %}{% else %}", 1, "expected {% endif %}"},
	{"unclosed comment block", "{% comment %}", 1, "{% comment %} is not closed"},
	{"stray endif", "a\n\n{% endif %}", 3, "{% endif %} without an opening tag"},
	{"wrong end", "{% if a %}\n{% endfor %}", 2, "unexpected {% endfor %}: expected {% elif %} or {% else %} or {% endif %} (block opened on line 1)"},
	{"unknown tag", "{% load i18n %}", 1, "unknown tag {% load %}"},
	{"endif with argument", "{% if a %}{% endif a %}", 1, "{% endif %} takes no arguments"},
	{"else with argument", "{% if a %}{% else b %}{% endif %}", 1, "{% else %} takes no arguments"},
	{"if without condition", "{% if %}{% endif %}", 1, "needs a condition"},
	{"elif without condition", "{% if a %}{% elif %}{% endif %}", 1, "needs a condition"},
	{"dangling and", "{% if a and %}{% endif %}", 1, "expected a variable or a literal at the end"},
	{"keyword operand", "{% if and %}{% endif %}", 1, `unexpected "and"`},
	{"single equals", "{% if a = 'b' %}{% endif %}", 1, "comparisons are == and !="},
	{"two variables", "{{ a b }}", 1, `unexpected "b"`},
	{"unknown filter", "{{ a|shout }}", 1, `unknown filter "shout"`},
	{"missing filter argument", "{{ a|default }}", 1, `filter "default" requires an argument`},
	{"unwanted filter argument", "{{ a|lower:1 }}", 1, `filter "lower" takes no argument`},
	{"filter name missing", "{{ a| }}", 1, "expected a filter name"},
	{"underscore", "{{ a._secret }}", 1, "may not begin with underscores"},
	{"empty part", "{{ a..b }}", 1, "malformed variable name"},
	{"unterminated string", `{{ "abc }}`, 1, "unterminated string literal"},
	{"bad character", "{{ a + b }}", 1, `unexpected character "+"`},
	{"empty with argument", "{% for a in x %}{% empty a %}{% endfor %}", 1, "{% empty %} takes no arguments"},
	{"non-ASCII name", "{{ název }}", 1, `unexpected character "á"`},
	{"for syntax", "{% for in x %}{% endfor %}", 1, "expected {% for name in list %}"},
	{"for unpacking", "{% for a, b in x %}{% endfor %}", 1, "unpacking several names"},
	{"for dotted name", "{% for a.b in x %}{% endfor %}", 1, "expected {% for name in list %}"},
	{"too deep", tooDeep, 1, "nested deeper than 32"},
	{"undefined variable", "Translated {{ langauge_name }}", 1, `undefined variable "langauge_name"`},
	{"undefined in a branch not taken", "{% if nothing %}\n{{ stats.nope }}{% endif %}", 2, `undefined variable "stats.nope"`},
	{"undefined in an else", "{% if language_code %}{% else %}{{ nope }}{% endif %}", 1, `undefined variable "nope"`},
	{"undefined child attribute", "{% for c in component_linked_childs %}{{ c.nme }}{% endfor %}", 1, `undefined variable "c.nme"`},
	{"undefined in empty", "{% for c in component_linked_childs %}{% empty %}{{ c }}{% endfor %}", 1, `undefined variable "c"`},
	{"attribute of a string", "{{ language_name.x }}", 1, `undefined variable "language_name.x"`},
	{"undefined with a default", `{{ nope|default:"x" }}`, 1, `undefined variable "nope"`},
	{"undefined filter argument", `{{ language_name|default:nope }}`, 1, `undefined variable "nope"`},
	{"loop variable out of its loop", "{% for c in component_linked_childs %}{% endfor %}{{ c.name }}", 1, `undefined variable "c.name"`},
}

func TestErrors(t *testing.T) {
	for _, tc := range errorCases {
		t.Run(tc.name, func(t *testing.T) {
			tmpl, err := msgtemplate.Parse(tc.tmpl)
			if err == nil {
				err = tmpl.Check(linked)
			}
			var te *msgtemplate.Error
			if !errors.As(err, &te) {
				t.Fatalf("Parse and Check(%q) = %v, want a *msgtemplate.Error", tc.tmpl, err)
			}
			if te.Line != tc.line || !strings.Contains(te.Msg, tc.want) {
				t.Errorf("Parse and Check(%q) = line %d %q, want line %d containing %q", tc.tmpl, te.Line, te.Msg, tc.line, tc.want)
			}
			// A commit renders an undefined name as "" rather than fail;
			// a template that does not parse cannot render at all.
			if undefined := strings.HasPrefix(tc.want, "undefined variable"); undefined != (tmpl != nil) {
				t.Fatalf("Parse(%q) = %v", tc.tmpl, tmpl)
			}
			if tmpl != nil {
				if _, err := tmpl.Render(czech); err != nil {
					t.Errorf("Render(%q) = %v", tc.tmpl, err)
				}
			}
		})
	}
}

// checkAccepts are templates Check accepts with linked as the sample:
// undefined names where Django's conditions and loops allow them.
var checkAccepts = []string{
	"{% if typo %}{{ language_name }}{% endif %}{% for x in typo %}{{ x.anything }}{% endfor %}",
	"{% for c in component_linked_childs %}{{ c.name }}{{ c.project_name }}{{ c.url }}{{ c }}" +
		"{% for d in component_linked_childs %}{{ forloop.parentloop.counter }}{{ d.name }}{% endfor %}{% endfor %}",
	"{{ component_linked_childs.0.url }} {{ component_linked_childs|first }}",
	"{% for ch in \"ab\" %}{{ ch.anything }}{% endfor %}{% for author in component_linked_childs %}{{ author.name }}{% endfor %}{{ author }}",
}

func TestCheckAccepts(t *testing.T) {
	for _, tmpl := range checkAccepts {
		if err := mustParse(t, tmpl).Check(linked); err != nil {
			t.Errorf("Check(%q) = %v", tmpl, err)
		}
	}
}

// TestCheckRenderLimit: loops nested to the limit over the sample list
// would render for ever; the check refuses them in bounded time.
func TestCheckRenderLimit(t *testing.T) {
	tmpl := strings.Repeat("{% for c in component_linked_childs %}", 30) + "{{ c.url }}" + strings.Repeat("{% endfor %}", 30)
	start := time.Now()
	err := mustParse(t, tmpl).Check(linked)
	if !errors.Is(err, msgtemplate.ErrRenderLimit) || !strings.Contains(err.Error(), "renders too much") {
		t.Errorf("Check(30 nested loops) = %v, want the render limit", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Check took %v", d)
	}
	long := `"` + strings.Repeat("x", 5000) + `"`
	empty := strings.Repeat("{% for c in "+long+" %}", 3) + strings.Repeat("{% endfor %}", 3)
	if err := mustParse(t, empty).Check(linked); !errors.Is(err, msgtemplate.ErrRenderLimit) || !strings.Contains(err.Error(), "renders too much") {
		t.Errorf("Check(empty loops over long literals) = %v, want the render limit", err)
	}
}

// Example renders a message about a translation and its linked
// components.
func Example() {
	tmpl, err := msgtemplate.Parse("Translated using Tolk ({{ language_name }})\n" +
		"{% for c in component_linked_childs %}\nAlso: {{ c.project_name }}/{{ c.name }}{% endfor %}")
	if err != nil {
		fmt.Println(err)
		return
	}
	msg, err := tmpl.Render(map[string]any{
		"language_name":           "Czech",
		"component_linked_childs": []any{&msgtemplate.Object{Attrs: map[string]any{"project_name": "Hello", "name": "Docs"}}},
	})
	if err != nil {
		fmt.Println(err)
	}
	fmt.Println(msg)
	// Output:
	// Translated using Tolk (Czech)
	//
	// Also: Hello/Docs
}
