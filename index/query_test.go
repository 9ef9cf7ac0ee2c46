package index

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParseUnitQuery(t *testing.T) {
	cases := []struct {
		q    string
		want []QueryTerm
	}{
		{"", nil},
		{"   ", nil},
		{"hello", []QueryTerm{{Field: "text", Op: "=", Value: "hello"}}},
		{`"two words"`, []QueryTerm{{Field: "text", Op: "=", Value: "two words"}}},
		{`'two words'`, []QueryTerm{{Field: "text", Op: "=", Value: "two words"}}},
		{`don't`, []QueryTerm{{Field: "text", Op: "=", Value: "don't"}}},
		{`"a:b"`, []QueryTerm{{Field: "text", Op: "=", Value: "a:b"}}},
		{"hello AND world", []QueryTerm{{Field: "text", Op: "=", Value: "hello"},
			{Field: "text", Op: "=", Value: "world"}}},
		{"state:translated", []QueryTerm{{Field: "state", Op: "=", Value: "translated", State: StateTranslated}}},
		{"State:Approved", []QueryTerm{{Field: "state", Op: "=", Value: "Approved", State: StateApproved}}},
		{"state:>=translated key:menu", []QueryTerm{
			{Field: "state", Op: ">=", Value: "translated", State: StateTranslated},
			{Field: "context", Op: "=", Value: "menu"}}},
		{`source:"Good bye"  target:Tschüss`, []QueryTerm{
			{Field: "source", Op: "=", Value: "Good bye"}, {Field: "target", Op: "=", Value: "Tschüss"}}},
		{`note:'a b' context:x`, []QueryTerm{
			{Field: "note", Op: "=", Value: "a b"}, {Field: "context", Op: "=", Value: "x"}}},
		{"state:<translated", []QueryTerm{{Field: "state", Op: "<", Value: "translated", State: StateTranslated}}},
		{"state:empty", []QueryTerm{{Field: "state", Op: "=", Value: "empty", State: StateEmpty}}},
		{"state:read-only", []QueryTerm{{Field: "state", Op: "=", Value: "read-only", State: StateReadOnly}}},
		{"id:>12", []QueryTerm{{Field: "id", Op: ">", Value: "12"}}},
		{"is:translated", []QueryTerm{{Field: "state", Op: ">=", Value: "translated", State: StateTranslated}}},
		{"is:untranslated", []QueryTerm{{Field: "state", Op: "<", Value: "untranslated", State: StateTranslated}}},
		{"is:fuzzy", []QueryTerm{{Field: "state", Op: "fuzzy", Value: "fuzzy", State: StateFuzzy}}},
		{"state:needs-editing", []QueryTerm{{Field: "state", Op: "fuzzy", Value: "needs-editing", State: StateFuzzy}}},
		{"state:>=needs-editing", []QueryTerm{{Field: "state", Op: ">=", Value: "needs-editing", State: StateFuzzy}}},
		{"check:end_stop AND dismissed_check:same", []QueryTerm{
			{Field: "check", Op: "=", Value: "end_stop"}, {Field: "dismissed_check", Op: "=", Value: "same"}}},
		{"has:check has:failing-check HAS:Dismissed-Check has:comment", []QueryTerm{
			{Field: "has", Op: "=", Value: "check"}, {Field: "has", Op: "=", Value: "check"},
			{Field: "has", Op: "=", Value: "dismissed-check"}, {Field: "has", Op: "=", Value: "comment"}}},
		{"is:readonly", []QueryTerm{{Field: "state", Op: "=", Value: "readonly", State: StateReadOnly}}},
	}
	for _, tc := range cases {
		got, err := ParseUnitQuery(tc.q)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ParseUnitQuery(%q) = %+v, %v; want %+v", tc.q, got, err, tc.want)
		}
	}
}

func TestParseUnitQueryRejects(t *testing.T) {
	for bad, detail := range map[string]string{
		"colour:red":       `Unsupported search field "colour".`,
		"location:main.go": `Unsupported search field "location".`,
		"state:shiny":      `Unknown state "shiny".`,
		`"open`:            "Unterminated quote.",
		`source:'open`:     "Unterminated quote.",
		"a OR b":           "OR is not supported.",
		"NOT a":            "NOT is not supported.",
		"(a b)":            "Parentheses are not supported.",
		`source:="Hello"`:  "Exact match (source:=) is not supported.",
		`source:r"^H"`:     "Regular expressions are not supported.",
		`r"^H"`:            "Regular expressions are not supported.",
		"id:abc":           `Invalid id "abc".`,
		"id:>=":            `Missing value for "id".`,
		"target:":          `Missing value for "target".`,
		"is:pending":       "Unsupported condition is:pending.",
		"hello has:shiny":  "Unsupported condition has:shiny.",
		"check:":           `Missing value for "check".`,
	} {
		_, err := ParseUnitQuery(bad)
		var fe *FieldError
		if !errors.Is(err, ErrInvalid) || !errors.As(err, &fe) {
			t.Errorf("ParseUnitQuery(%q) err = %v, want a field error on q", bad, err)
			continue
		}
		want := "Could not parse query string: " + detail
		if p := fe.Fields["q"]; p.Detail != want || p.Code != "invalid" || len(fe.Fields) != 1 {
			t.Errorf("ParseUnitQuery(%q) = %+v, want q: %q", bad, fe.Fields, want)
		}
		if !strings.HasPrefix(err.Error(), "invalid q: ") {
			t.Errorf("ParseUnitQuery(%q) error text = %q", bad, err)
		}
	}
}
