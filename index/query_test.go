package index

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// queryNow is the clock of the parser tests: Wednesday 2026-11-25 15:30 UTC.
var queryNow = time.Date(2026, 11, 25, 15, 30, 0, 0, time.UTC)

func TestParseUnitQuery(t *testing.T) {
	for _, tc := range []struct{ q, want string }{
		{"", "ALL"},
		{"   ", "ALL"},
		{"hello", `text:"hello"`},
		{`"two words"`, `text:"two words"`},
		{`'two words'`, `text:"two words"`},
		{`don't`, `text:"don't"`},
		{`"a:b"`, `text:"a:b"`},
		{`"say \"hi\"" 'it\'s' "back\\slash" "tab\there" "keep\d"`,
			`AND(text:"say \"hi\"", text:"it's", text:"back\\slash", text:"tab\there", text:"keep\\d")`},
		{"http://example.com/x", `text:"http://example.com/x"`},
		{"mailto:me", `text:"mailto:me"`},
		{"f(x)", `text:"f(x)"`},
		// Booleans, precedence NOT > AND > OR, implicit AND.
		{"hello world", `AND(text:"hello", text:"world")`},
		{"hello AND world", `AND(text:"hello", text:"world")`},
		{"a && b || c", `OR(AND(text:"a", text:"b"), text:"c")`},
		{"a OR b AND c", `OR(text:"a", AND(text:"b", text:"c"))`},
		{"a b OR c", `OR(AND(text:"a", text:"b"), text:"c")`},
		{"a or b", `OR(text:"a", text:"b")`},
		{"NOT a b", `AND(NOT(text:"a"), text:"b")`},
		{"not a OR b", `OR(NOT(text:"a"), text:"b")`},
		{"NOT NOT a", `NOT(NOT(text:"a"))`},
		{"NOT (a OR b) c", `AND(NOT(OR(text:"a", text:"b")), text:"c")`},
		{"(a OR b) AND (c OR d)", `AND(OR(text:"a", text:"b"), OR(text:"c", text:"d"))`},
		{"((a))", `text:"a"`},
		{"(f(x)) OR y", `OR(text:"f(x)", text:"y")`}, // a trailing ")" closes an open group
		{"(a f(x))", `AND(text:"a", text:"f(x)")`},
		{"a b)", `AND(text:"a", text:"b)")`},
		{`"AND" 'or'`, `AND(text:"AND", text:"or")`},
		// Text fields.
		{"source:hello", `source:"hello"`},
		{`Source:"Good bye"  target:Tschüss`, `AND(source:"Good bye", target:"Tschüss")`},
		{"key:menu context:x", `AND(context:"menu", context:"x")`},
		{`note:'a b' location:main.go explanation:why`, `AND(note:"a b", location:"main.go", explanation:"why")`},
		{`source:="Hello world" target:=Hallo`, `AND(source:="Hello world", target:="Hallo")`},
		{`source:r"^H\d+" target:r"[2-5]"`, `AND(source:r"^H\\d+", target:r"[2-5]")`},
		{`r"^Save"`, `text:r"^Save"`},
		{"source:>x", `source:">x"`}, // the reference reads it as text
		{`target:""`, `target:""`},
		{"comment:fix resolved_comment:ok source_comment:a resolved_source_comment:b suggestion:hi",
			`AND(comment:"fix", resolved_comment:"ok", source_comment:"a", resolved_source_comment:"b", suggestion:"hi")`},
		// Numbers and states.
		{"id:12", "id=12"},
		{"id:>12 position:<=10 priority:>=100 labels_count:<2", "AND(id>12, position<=10, priority>=100, labels_count<2)"},
		{"id:1,2,3", "id:in[1 2 3]"},
		{"position:[10 to 100]", "position:[10..100]"},
		{"priority:[ 1 TO 5 ]", "priority:[1..5]"},
		{"state:translated", "state=20"},
		{"State:Approved", "state=30"},
		{"state:>=translated", "state>=20"},
		{"state:<translated", "state<20"},
		{"state:empty state:untranslated", "AND(state=0, state=0)"},
		{"state:needs-editing state:fuzzy", "AND(state=10, state=10)"},
		{"state:needs-rewriting state:needs-checking", "AND(state=11, state=12)"},
		{"state:read-only state:readonly", "AND(state=100, state=100)"},
		{"state:[needs-editing to translated]", "state:[10..20]"},
		{"state:20", "state=20"},
		{"source_state:>=translated", "source_state>=20"},
		{"pending:true pending:no", "AND(pending=true, pending=false)"},
		// is: and has:.
		{"is:translated is:untranslated is:approved is:fuzzy is:needs-editing is:read-only is:readonly is:pending is:empty",
			`AND(is:"translated", is:"untranslated", is:"approved", is:"needs-editing", is:"needs-editing", is:"read-only", is:"read-only", is:"pending", is:"empty")`},
		{"is:automatically-translated is:Automatically_Translated", `AND(is:"automatically-translated", is:"automatically-translated")`},
		{"has:check has:failing-check HAS:Dismissed-Check has:ignored_check has:comment",
			`AND(has:"check", has:"check", has:"dismissed-check", has:"dismissed-check", has:"comment")`},
		{"has:plural has:context has:suggestion has:resolved-comment has:source-comment has:resolved-source-comment",
			`AND(has:"plural", has:"context", has:"suggestion", has:"resolved-comment", has:"source-comment", has:"resolved-source-comment")`},
		{"has:translation has:variant has:screenshot has:flags has:explanation has:glossary has:note has:label has:location",
			`AND(has:"translation", has:"variant", has:"screenshot", has:"flags", has:"explanation", has:"glossary", has:"note", has:"label", has:"location")`},
		// Names.
		{"project:demo component:app language:de", `AND(project:"demo", component:"app", language:"de")`},
		{`language:"German" component:="App strings" path:demo/app/de`, `AND(language:"German", component:="App strings", path:"demo/app/de")`},
		{"check:same dismissed_check:=end_stop label:urgent screenshot:home", `AND(check:"same", dismissed_check:="end_stop", label:"urgent", screenshot:"home")`},
		{`changed_by:admin changed_by:"" comment_author:a source_comment_author:b suggestion_author:c`,
			`AND(changed_by:"admin", changed_by:"", comment_author:"a", source_comment_author:"b", suggestion_author:"c")`},
		{`label:r"^ur"`, `label:r"^ur"`},
		// Change actions by name, slug or code.
		{`change_action:"Marked for edit"`, "change_action=37"},
		{`change_action:marked-for-edit change_action:37`, "AND(change_action=37, change_action=37)"},
		// Dates: whole periods, comparisons, ranges, relative to queryNow.
		{"changed:2019", "changed=[2019-01-01,2020-01-01)"},
		{"changed:2019-03", "changed=[2019-03-01,2019-04-01)"},
		{"added:2019-03-01", "added=[2019-03-01,2019-03-02)"},
		{"changed:>2019", "changed>[2019-01-01,2020-01-01)"},
		{"changed:<2024-01-01", "changed<[2024-01-01,2024-01-02)"},
		{"changed:2019-03-01T10:00:00", "changed=[2019-03-01T10:00:00,2019-03-01T10:00:00.000001)"},
		{"changed:>=yesterday", "changed>=[2026-11-24,2026-11-25)"},
		{"change_time:today", "change_time=[2026-11-25,2026-11-26)"},
		{`changed:>="2 weeks ago"`, "changed>=[2026-11-11,2026-11-12)"},
		{"last_changed:<=20_days_ago", "last_changed<=[2026-11-05,2026-11-06)"},
		{`source_changed:"3 hours ago"`, "source_changed=[2026-11-25T12:30:00,2026-11-25T12:30:00.000001)"},
		{"changed:[2019-03-01 to 2019-04-01]", "changed:[2019-03-01,2019-04-02)"},
		{"changed:[20_days_ago to yesterday]", "changed:[2026-11-05,2026-11-25)"},
		{`changed:["1 month ago" to today]`, "changed:[2026-10-25,2026-11-26)"},
		// The predefined queries of the reference (weblate/trans/filter.py).
		{"state:<translated AND NOT has:suggestion", `AND(state<20, NOT(has:"suggestion"))`},
		{"has:check AND state:>=translated", `AND(has:"check", state>=20)`},
		{"state:approved AND has:suggestion", `AND(state=30, has:"suggestion")`},
		{"NOT has:label", `NOT(has:"label")`},
	} {
		got, err := ParseUnitQueryAt(tc.q, queryNow)
		if err != nil {
			t.Errorf("ParseUnitQuery(%q): %v", tc.q, err)
			continue
		}
		if s := got.String(); s != tc.want {
			t.Errorf("ParseUnitQuery(%q)\n got %s\nwant %s", tc.q, s, tc.want)
		}
	}
}

func TestParseUnitQueryRejects(t *testing.T) {
	for bad, detail := range map[string]string{
		"colour:red":            `unknown search field "colour" at character 1.`,
		"hello colour:red":      `unknown search field "colour" at character 7.`,
		"state:shiny":           `unknown state "shiny" at character 1.`,
		`"open`:                 "unterminated quote at character 1.",
		`a source:'open`:        "unterminated quote at character 10.",
		`source:"a"b`:           `expected a space after the closing quote of source:"a" at character 11.`,
		"a OR":                  "missing term at character 5.",
		"OR a":                  `unexpected operator "OR" at character 1.`,
		"a AND AND b":           `unexpected operator "AND" at character 7.`,
		"NOT":                   "missing term at character 4.",
		"(a b":                  `unclosed "(" at character 1.`,
		"a )":                   `unexpected ")" at character 3.`,
		"()":                    "empty parentheses at character 2.",
		`source:r"(unclosed"`:   "invalid regular expression \"(unclosed\" (error parsing regexp: missing closing ): `(unclosed`) at character 1.",
		`source:r"(?=look)"`:    "invalid regular expression \"(?=look)\" (error parsing regexp: invalid or unsupported Perl syntax: `(?=`) at character 1.",
		"id:abc":                `invalid number "abc" for "id" at character 1.`,
		"id:1,x":                `invalid id "x" at character 1.`,
		"id:>=":                 `missing value for "id" at character 1.`,
		"target:":               `missing value for "target" at character 1.`,
		"check:":                `missing value for "check" at character 1.`,
		"is:shiny":              "unsupported condition is:shiny at character 1.",
		"hello has:shiny":       "unsupported condition has:shiny at character 7.",
		"pending:maybe":         `invalid boolean "maybe" for "pending" at character 1.`,
		"changed:someday":       `invalid date "someday" at character 1.`,
		"changed:[2019 2020]":   `expected "to" in a range at character 15.`,
		"changed:[2019 to 2020": `unclosed range "[" at character 9.`,
		"changed:[x to 2020]":   `invalid date range changed:[x to 2020] at character 1.`,
		"source:[a to b]":       `a range is not supported for "source" at character 1.`,
		"project:>demo":         `the operator ":>" is not supported for "project" at character 1.`,
		`state:r"2"`:            `a regular expression is not supported for "state" at character 1.`,
		"change_action:dance":   `unknown change action "dance" at character 1.`,
	} {
		_, err := ParseUnitQueryAt(bad, queryNow)
		var fe *FieldError
		if !errors.Is(err, ErrInvalid) || !errors.As(err, &fe) {
			t.Errorf("ParseUnitQuery(%q) err = %v, want a field error on q", bad, err)
			continue
		}
		want := "Could not parse query string: " + detail
		if p := fe.Fields["q"]; p.Detail != want || p.Code != "invalid" || len(fe.Fields) != 1 {
			t.Errorf("ParseUnitQuery(%q)\n got %q\nwant %q", bad, fe.Fields["q"].Detail, want)
		}
		if !strings.HasPrefix(err.Error(), "invalid q: ") {
			t.Errorf("ParseUnitQuery(%q) error text = %q", bad, err)
		}
	}
}

func TestParseUnitQueryBounds(t *testing.T) {
	detail := func(q string) string {
		_, err := ParseUnitQueryAt(q, queryNow)
		var fe *FieldError
		if !errors.As(err, &fe) {
			return "no field error: " + err.Error()
		}
		return fe.Fields["q"].Code + ": " + fe.Fields["q"].Detail
	}
	if got, want := detail(strings.Repeat("a", MaxQueryLength+1)), "max_length: Ensure this value has at most 10000 characters (it has 10001)."; got != want {
		t.Errorf("long query: %s", got)
	}
	if got := detail("a\x00b"); got != "null_characters_not_allowed: Null characters are not allowed." {
		t.Errorf("NUL: %s", got)
	}
	if got := detail("a\xffb"); got != "invalid: Could not parse query string: The query is not valid UTF-8." {
		t.Errorf("invalid UTF-8: %s", got)
	}
	if got := detail(strings.Repeat("a ", MaxQueryTerms+1)); got != "invalid: Could not parse query string: The query has 101 terms; at most 100 are allowed." {
		t.Errorf("terms: %s", got)
	}
	if _, err := ParseUnitQueryAt(strings.Repeat("a ", MaxQueryTerms), queryNow); err != nil {
		t.Errorf("%d terms: %v", MaxQueryTerms, err)
	}
	deep := strings.Repeat("(", MaxQueryDepth+1) + "a" + strings.Repeat(")", MaxQueryDepth+1)
	if got := detail(deep); got != "invalid: Could not parse query string: the query is nested deeper than 20 levels at character 21." {
		t.Errorf("depth: %s", got)
	}
	if got := detail(strings.Repeat("NOT ", MaxQueryDepth+1) + "a"); got != "invalid: Could not parse query string: the query is nested deeper than 20 levels at character 81." {
		t.Errorf("NOT depth: %s", got)
	}
	ok := strings.Repeat("(", MaxQueryDepth) + "a" + strings.Repeat(")", MaxQueryDepth)
	if _, err := ParseUnitQueryAt(ok, queryNow); err != nil {
		t.Errorf("depth %d: %v", MaxQueryDepth, err)
	}
	if got := detail(`source:r"` + strings.Repeat("a", MaxQueryRegex+1) + `"`); !strings.Contains(got, "at most 1000 are allowed") {
		t.Errorf("long regex: %s", got)
	}
}

// FuzzParseQuery: no input panics, every error is a field error on q,
// and parsing stays fast.
func FuzzParseQuery(f *testing.F) {
	for _, s := range []string{"", "hello", `source:r"^H\d"`, "NOT (a OR b) c", "changed:[2019 to yesterday]",
		`"a \" b"`, "id:1,2,3", "state:>=translated", "((((a))))", "has:check AND NOT is:approved", "f(x)", `'x\'`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		start := time.Now()
		got, err := ParseUnitQueryAt(q, queryNow)
		if d := time.Since(start); d > time.Second {
			t.Fatalf("ParseUnitQuery(%q) took %v", q, d)
		}
		if err != nil {
			var fe *FieldError
			if !errors.As(err, &fe) || len(fe.Fields) != 1 || fe.Fields["q"].Detail == "" {
				t.Fatalf("ParseUnitQuery(%q) = %v, want a field error on q", q, err)
			}
			return
		}
		_ = got.String()
	})
}
