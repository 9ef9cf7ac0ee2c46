package index

import (
	"fmt"
	"strings"
)

// QueryTerm is one condition of a unit search. Terms of a query all have
// to hold.
type QueryTerm struct {
	// Field is "state", "context", "source", "target", "note", "id" or
	// "text" (plain words: source, target or context).
	Field string
	// Op compares states and ids: "=", ">", ">=", "<", "<=".
	Op    string
	Value string
	State State
}

// ParseUnitQuery parses the reference's basic search syntax: plain words
// (matched in source, target and context), `field:value` with fields
// state, key/context, source, target, note and id, values quoted with
// double quotes when they hold spaces, and comparison operators for
// state (`state:>=translated`). Text matches ignore case and match
// substrings. An unknown field or state is an ErrInvalid *FieldError on
// "q".
func ParseUnitQuery(q string) ([]QueryTerm, error) {
	tokens, err := splitQuery(q)
	if err != nil {
		return nil, err
	}
	var terms []QueryTerm
	for _, tok := range tokens {
		field, value, ok := strings.Cut(tok, ":")
		if !ok || field == "" {
			terms = append(terms, QueryTerm{Field: "text", Op: "=", Value: unquote(tok)})
			continue
		}
		field = strings.ToLower(field)
		if field == "key" {
			field = "context"
		}
		term := QueryTerm{Field: field, Op: "="}
		switch field {
		case "state", "id":
			for _, op := range []string{">=", "<=", ">", "<", "="} {
				if strings.HasPrefix(value, op) {
					term.Op, value = op, value[len(op):]
					break
				}
			}
		case "context", "source", "target", "note":
		default:
			return nil, queryError("Unknown search field %q.", field)
		}
		term.Value = unquote(value)
		if field == "state" {
			s, ok := ParseState(strings.ToLower(term.Value))
			if !ok {
				return nil, queryError("Unknown state %q.", term.Value)
			}
			term.State = s
		}
		terms = append(terms, term)
	}
	return terms, nil
}

func queryError(format string, args ...any) error {
	return &FieldError{Fields: map[string]FieldProblem{"q": {Code: "invalid", Detail: fmt.Sprintf(format, args...)}}}
}

// splitQuery splits on white space outside double quotes.
func splitQuery(q string) ([]string, error) {
	var out []string
	var cur strings.Builder
	quoted := false
	for _, r := range q {
		switch {
		case r == '"':
			quoted = !quoted
			cur.WriteRune(r)
		case !quoted && (r == ' ' || r == '\t' || r == '\n'):
			if cur.Len() > 0 {
				out = append(out, cur.String())
				cur.Reset()
			}
		default:
			cur.WriteRune(r)
		}
	}
	if quoted {
		return nil, queryError("Unterminated quote.")
	}
	if cur.Len() > 0 {
		out = append(out, cur.String())
	}
	return out, nil
}

func unquote(s string) string {
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		return s[1 : len(s)-1]
	}
	return s
}
