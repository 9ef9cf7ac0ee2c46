package index

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// QueryTerm is one condition of a unit search. Terms of a query all have
// to hold.
type QueryTerm struct {
	// Field is "state", "context", "source", "target", "note", "id",
	// "check" (a failing check's id), "dismissed_check", "has" (Value
	// "check", "dismissed-check", "suggestion", "comment") or "text"
	// (plain words: source, target or context).
	Field string
	// Op compares states and ids: "=", ">", ">=", "<", "<="; "fuzzy"
	// matches every needs-editing state (10 to 19).
	Op    string
	Value string
	State State
}

// ParseUnitQuery parses the part of the reference's search syntax that
// Tolk answers (../shared/reference/weblate-core.md; Weblate's "Searching"
// documentation):
//
//   - plain words, matched in source, target and context; all of them
//     have to match, and "AND" between terms changes nothing;
//   - `field:value` with fields source, target, context (alias key), note,
//     state and id, values in double or single quotes when they hold
//     spaces;
//   - comparison operators for state and id (`state:>=translated`);
//   - `is:` shorthands for states (translated, untranslated, approved,
//     needs-editing/fuzzy, read-only/readonly, empty);
//   - quality checks: `check:<id>` (failing, not dismissed),
//     `dismissed_check:<id>`, `has:check` (alias has:failing-check),
//     `has:dismissed-check`; also `has:suggestion`, `has:comment`.
//
// Text matches ignore case and match substrings. What the reference
// accepts but Tolk cannot answer (OR, NOT, parentheses, regular
// expressions, exact matches, other fields) is rejected rather than
// silently widened, as is malformed input: each is an ErrInvalid
// *FieldError on "q".
//
// A query longer than MaxQueryLength characters or with more than
// MaxQueryTerms terms is refused too, as is a NUL byte, with the messages
// of the reference's framework where it has one.
func ParseUnitQuery(q string) ([]QueryTerm, error) {
	if n := utf8.RuneCountInString(q); n > MaxQueryLength {
		return nil, &FieldError{Fields: map[string]FieldProblem{"q": {Code: "max_length",
			Detail: fmt.Sprintf("Ensure this value has at most %d characters (it has %d).", MaxQueryLength, n)}}}
	}
	if strings.IndexByte(q, 0) >= 0 {
		// Django's forms refuse NUL in every text field; SQLite would
		// end the pattern there.
		return nil, &FieldError{Fields: map[string]FieldProblem{"q": {Code: "null_characters_not_allowed",
			Detail: "Null characters are not allowed."}}}
	}
	tokens, err := splitQuery(q)
	if err != nil {
		return nil, err
	}
	var terms []QueryTerm
	for _, tok := range tokens {
		term, skip, err := parseTerm(tok)
		if err != nil {
			return nil, err
		}
		if !skip {
			terms = append(terms, term)
		}
	}
	if len(terms) > MaxQueryTerms {
		return nil, queryError("The query has %d terms; at most %d are allowed.", len(terms), MaxQueryTerms)
	}
	return terms, nil
}

// The bounds of a unit search. Each term is a condition of the engine's
// query, and SQLite refuses expressions deeper than 1,000 and LIKE
// patterns longer than 50,000 bytes; the bounds stay well inside both and
// far above what a person or a script searching for strings types.
const (
	MaxQueryLength = 10000 // characters; 4 bytes each at most, escaped % and _ 2
	MaxQueryTerms  = 100
)

// parseTerm parses one token; skip reports a token that adds no
// condition (the explicit AND).
func parseTerm(tok string) (term QueryTerm, skip bool, err error) {
	switch strings.ToUpper(tok) {
	case "AND", "&&":
		return QueryTerm{}, true, nil
	case "OR", "||", "NOT":
		return QueryTerm{}, false, queryError("%s is not supported.", strings.ToUpper(tok))
	}
	if strings.HasPrefix(tok, "(") || (strings.HasSuffix(tok, ")") && !isQuoted(tok)) {
		return QueryTerm{}, false, queryError("Parentheses are not supported.")
	}
	if isRegex(tok) {
		return QueryTerm{}, false, queryError("Regular expressions are not supported.")
	}
	field, value, ok := strings.Cut(tok, ":")
	if !ok || field == "" || isQuoted(tok) {
		return QueryTerm{Field: "text", Op: "=", Value: unquote(tok)}, false, nil
	}
	field = strings.ToLower(field)
	switch field {
	case "key":
		field = "context"
	case "is":
		return parseIs(value)
	}
	term = QueryTerm{Field: field, Op: "="}
	switch field {
	case "state", "id":
		term.Op, value = cutOperator(value)
	case "check", "dismissed_check", "has":
	case "context", "source", "target", "note":
		if strings.HasPrefix(value, "=") {
			return QueryTerm{}, false, queryError("Exact match (%s:=) is not supported.", field)
		}
		if isRegex(value) {
			return QueryTerm{}, false, queryError("Regular expressions are not supported.")
		}
	default:
		return QueryTerm{}, false, queryError("Unsupported search field %q.", field)
	}
	term.Value = unquote(value)
	if term.Value == "" && !isQuoted(value) {
		return QueryTerm{}, false, queryError("Missing value for %q.", field)
	}
	switch field {
	case "state":
		s, ok := ParseState(strings.ToLower(term.Value))
		if !ok {
			return QueryTerm{}, false, queryError("Unknown state %q.", term.Value)
		}
		term.State = s
		if s == StateFuzzy && term.Op == "=" {
			term.Op = "fuzzy"
		}
	case "id":
		if _, err := strconv.ParseInt(term.Value, 10, 64); err != nil {
			return QueryTerm{}, false, queryError("Invalid id %q.", term.Value)
		}
	case "has":
		v := strings.ToLower(term.Value)
		switch v {
		case "failing-check":
			v = "check"
		case "check", "dismissed-check", "suggestion", "comment":
		default:
			return QueryTerm{}, false, queryError("Unsupported condition has:%s.", term.Value)
		}
		term.Value = v
	}
	return term, false, nil
}

// parseIs maps the reference's `is:` conditions on states to state terms.
func parseIs(value string) (QueryTerm, bool, error) {
	v := strings.ToLower(unquote(value))
	st := func(op string, s State) (QueryTerm, bool, error) {
		return QueryTerm{Field: "state", Op: op, Value: v, State: s}, false, nil
	}
	switch v {
	case "translated":
		return st(">=", StateTranslated)
	case "untranslated":
		return st("<", StateTranslated)
	case "approved":
		return st("=", StateApproved)
	case "needs-editing", "fuzzy":
		return st("fuzzy", StateFuzzy)
	case "read-only", "readonly":
		return st("=", StateReadOnly)
	case "empty":
		return st("=", StateEmpty)
	}
	return QueryTerm{}, false, queryError("Unsupported condition is:%s.", v)
}

// cutOperator splits a leading comparison operator from a value.
func cutOperator(value string) (op, rest string) {
	for _, op := range []string{">=", "<=", ">", "<", "="} {
		if strings.HasPrefix(value, op) {
			return op, value[len(op):]
		}
	}
	return "=", value
}

// queryError is the reference's answer to a query it cannot parse.
func queryError(format string, args ...any) error {
	return &FieldError{Fields: map[string]FieldProblem{"q": {Code: "invalid",
		Detail: "Could not parse query string: " + fmt.Sprintf(format, args...)}}}
}

// splitQuery splits on white space outside quotes. A quote opens only at
// the start of a token or right after "field:" (or an operator), so an
// apostrophe inside a word (don't) stays literal.
func splitQuery(q string) ([]string, error) {
	var out []string
	var cur []rune
	var quote rune
	for _, r := range q {
		switch {
		case quote != 0:
			cur = append(cur, r)
			if r == quote {
				quote = 0
			}
		case (r == '"' || r == '\'') && opensQuote(cur):
			quote = r
			cur = append(cur, r)
		case r == ' ' || r == '\t' || r == '\n' || r == '\r':
			if len(cur) > 0 {
				out = append(out, string(cur))
				cur = cur[:0]
			}
		default:
			cur = append(cur, r)
		}
	}
	if quote != 0 {
		return nil, queryError("Unterminated quote.")
	}
	if len(cur) > 0 {
		out = append(out, string(cur))
	}
	return out, nil
}

// opensQuote reports whether a quote following the token so far starts a
// quoted value.
func opensQuote(cur []rune) bool {
	if len(cur) == 0 {
		return true
	}
	switch cur[len(cur)-1] {
	case ':', '=', '>', '<':
		return true
	case 'r': // a regular expression, r"...": rejected later, but whole
		return len(cur) == 1 || cur[len(cur)-2] == ':'
	}
	return false
}

func isQuoted(s string) bool {
	return len(s) >= 2 && (s[0] == '"' || s[0] == '\'') && s[len(s)-1] == s[0]
}

func isRegex(s string) bool {
	return len(s) >= 3 && s[0] == 'r' && isQuoted(s[1:])
}

func unquote(s string) string {
	if isQuoted(s) {
		return s[1 : len(s)-1]
	}
	return s
}
