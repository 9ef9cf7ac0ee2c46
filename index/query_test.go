package index

import (
	"errors"
	"reflect"
	"testing"
)

func TestParseUnitQuery(t *testing.T) {
	cases := []struct {
		q    string
		want []QueryTerm
	}{
		{"", nil},
		{"hello", []QueryTerm{{Field: "text", Op: "=", Value: "hello"}}},
		{`"two words"`, []QueryTerm{{Field: "text", Op: "=", Value: "two words"}}},
		{"state:translated", []QueryTerm{{Field: "state", Op: "=", Value: "translated", State: StateTranslated}}},
		{"state:>=translated key:menu", []QueryTerm{
			{Field: "state", Op: ">=", Value: "translated", State: StateTranslated},
			{Field: "context", Op: "=", Value: "menu"}}},
		{`source:"Good bye"  target:Tschüss`, []QueryTerm{
			{Field: "source", Op: "=", Value: "Good bye"}, {Field: "target", Op: "=", Value: "Tschüss"}}},
		{"state:<translated", []QueryTerm{{Field: "state", Op: "<", Value: "translated", State: StateTranslated}}},
		{"state:empty", []QueryTerm{{Field: "state", Op: "=", Value: "empty", State: StateEmpty}}},
	}
	for _, tc := range cases {
		got, err := ParseUnitQuery(tc.q)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ParseUnitQuery(%q) = %+v, %v; want %+v", tc.q, got, err, tc.want)
		}
	}
	for _, bad := range []string{"colour:red", "state:shiny", `"open`} {
		_, err := ParseUnitQuery(bad)
		var fe *FieldError
		if !errors.Is(err, ErrInvalid) || !errors.As(err, &fe) || fe.Fields["q"].Detail == "" {
			t.Errorf("ParseUnitQuery(%q) err = %v, want a field error on q", bad, err)
		}
	}
}
