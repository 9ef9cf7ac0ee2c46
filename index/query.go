package index

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// Query is a parsed unit search (../shared/reference/weblate-workspace.md
// §8; Weblate's weblate/utils/search.py): a tree of And, Or and Not nodes
// over terms. The empty query (Kind QueryAll) matches every unit.
// ParseUnitQuery builds it; index/sqlstore compiles it to SQL. A Query is
// not modified after parsing and is safe for concurrent reads.
type Query struct {
	Kind QueryKind
	// Kids are the operands of And and Or (two or more) and of Not (one).
	Kids []*Query
	// Term is the condition of a QueryTerm node.
	Term *QueryTerm
}

// QueryKind says what a Query node is.
type QueryKind uint8

// The kinds of query nodes.
const (
	QueryAll QueryKind = iota // the empty query: every unit
	QueryTermNode
	QueryAnd
	QueryOr
	QueryNot
)

// QueryOp is how a term compares its field with its value.
type QueryOp uint8

// The comparisons of a term. Text fields use Contains, Exact and Regex;
// numbers, states and dates also Eq, the four orderings and Range; id
// also In.
const (
	OpContains QueryOp = iota // field:value, case-insensitive substring (or the field's own default)
	OpExact                   // field:=value
	OpRegex                   // field:r"pattern"
	OpEq                      // a number or state equals; a date lies in the period
	OpLT
	OpLE
	OpGT
	OpGE
	OpRange // field:[a to b], both ends included
	OpIn    // id:1,2,3
)

// QueryTerm is one condition of a search.
type QueryTerm struct {
	// Pos is the offset, in characters from 0, where the term starts in
	// the query; errors found after parsing name it.
	Pos int
	// Field is the canonical field name ("key" is "context"); "" for a
	// bare word or phrase, matched in source, target and context.
	Field string
	Op    QueryOp
	// Text is the value of a text or name field, the condition of is:
	// and has: (canonical, lower case, dashes), or the pattern of a
	// regular expression (Op OpRegex, valid RE2).
	Text string
	// Num and NumHi are the value of a number or state field; a range is
	// Num to NumHi inclusive. Nums are the ids of OpIn.
	Num, NumHi int64
	Nums       []int64
	// From and To bound a date term: the period the value names, From
	// included and To excluded (a day, a month, a year; a point in time is
	// one microsecond long). Comparisons use the period: changed:>2019
	// is from 2020 on, changed:>=2019 from 2019 on.
	From, To time.Time
	// Bool is the value of pending:.
	Bool bool
	// Relative says a date was relative to now (today, "2 weeks ago"):
	// the same query means another period tomorrow.
	Relative bool
}

// The bounds of a unit search. Each term is a condition of the engine's
// query, and SQLite refuses expressions deeper than 1,000 and LIKE
// patterns longer than 50,000 bytes; the bounds stay well inside both and
// far above what a person or a script searching for strings types.
const (
	MaxQueryLength = 10000 // characters; 4 bytes each at most, escaped % and _ 2
	MaxQueryTerms  = 100
	// MaxQueryDepth bounds the nesting of parentheses and NOT, so the
	// parser's recursion and the SQL's nesting stay shallow.
	MaxQueryDepth = 20
	// MaxQueryRegex bounds the length of one regular expression: RE2
	// runs in time linear in the text, with a factor that grows with the
	// compiled program.
	MaxQueryRegex = 1000
)

// ParseUnitQuery parses a unit search, evaluating relative dates
// ("yesterday", "2 weeks ago") against the current time.
func ParseUnitQuery(q string) (*Query, error) {
	return ParseUnitQueryAt(q, time.Now())
}

// ParseUnitQueryAt parses the reference's search language
// (weblate-workspace.md §8):
//
//   - bare words and quoted phrases ("…" or '…', with \" \' \\ and \t \n
//     \r \f escapes as the reference's RawQuotedString), matched in source,
//     target or context;
//   - field:value, field:=value (exact), field:r"…" (a regular expression:
//     Go's RE2, so matching time is linear in the text), field:>value and
//     >=, <, <= on numbers, states and dates, field:[a to b] ranges;
//   - AND, OR, NOT (any case; also && and ||) and parentheses, with the
//     precedence NOT > AND > OR; terms side by side are ANDed;
//   - dates: 2019, 2019-03, 2019-03-01 (the whole year, month or day),
//     2019-03-01T10:00, today, yesterday, "2 weeks ago", 20_days_ago,
//     evaluated against now (in UTC).
//
// Where the reference's parser is weaker, Tolk does better on purpose: an
// apostrophe inside a word (don't) stays literal, a ")" ends a word only
// inside parentheses, so f(x) is a word, and "a b OR c" is (a AND b) OR c
// as in the reference since its implicit AND.
//
// Errors are ErrInvalid *FieldErrors on "q" whose detail names the place
// ("at character 12") and the token. A query longer than MaxQueryLength
// characters, with more than MaxQueryTerms terms, nested deeper than
// MaxQueryDepth, or holding NUL is refused.
func ParseUnitQueryAt(q string, now time.Time) (*Query, error) {
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
	if !utf8.ValidString(q) {
		return nil, queryError("The query is not valid UTF-8.")
	}
	toks, err := lexQuery([]rune(q))
	if err != nil {
		return nil, err
	}
	terms := 0
	for _, t := range toks {
		if t.kind == tokTerm {
			terms++
		}
	}
	if terms > MaxQueryTerms {
		return nil, queryError("The query has %d terms; at most %d are allowed.", terms, MaxQueryTerms)
	}
	p := &queryParser{toks: toks, now: now.UTC()}
	if len(toks) == 0 {
		return &Query{Kind: QueryAll}, nil
	}
	node, err := p.parseOr(0)
	if err != nil {
		return nil, err
	}
	if p.i < len(p.toks) {
		t := p.toks[p.i]
		return nil, queryErrorAt(t.pos, "unexpected %s", t.describe())
	}
	return node, nil
}

// queryError is the reference's answer to a query it cannot parse.
func queryError(format string, args ...any) error {
	return &FieldError{Fields: map[string]FieldProblem{"q": {Code: "invalid",
		Detail: "Could not parse query string: " + fmt.Sprintf(format, args...)}}}
}

// queryErrorAt is a parse error at a character offset (from 0), shown
// from 1 as editors count.
func queryErrorAt(pos int, format string, args ...any) error {
	return queryError("%s at character %d.", fmt.Sprintf(format, args...), pos+1)
}

type tokKind uint8

const (
	tokTerm tokKind = iota
	tokAnd
	tokOr
	tokNot
	tokOpen
	tokClose
)

// token is one lexeme; a term token holds its raw parts.
type token struct {
	kind tokKind
	pos  int
	text string // the source text, for messages
	// A term: field ("" for a bare value), op (":", ":=", ":<", …),
	// value, and how it was written.
	field, op, value string
	quoted, regex    bool
	rng              bool
	lo, hi           string
}

func (t token) describe() string {
	switch t.kind {
	case tokOpen:
		return `"("`
	case tokClose:
		return `")"`
	case tokTerm:
		return fmt.Sprintf("term %q", t.text)
	}
	return fmt.Sprintf("operator %q", t.text)
}

// queryParser is a recursive-descent parser over the tokens:
//
//	or   = and { ["OR"] and }   (OR optional: terms side by side are ANDed)
//	and  = not { "AND" not }
//	not  = "NOT" not | atom
//	atom = "(" or ")" | term
//
// Side by side operands bind like AND (see parseAnd).
type queryParser struct {
	toks []token
	i    int
	now  time.Time
}

func (p *queryParser) peek() (token, bool) {
	if p.i < len(p.toks) {
		return p.toks[p.i], true
	}
	return token{}, false
}

func (p *queryParser) endPos() int {
	if len(p.toks) == 0 {
		return 0
	}
	t := p.toks[len(p.toks)-1]
	return t.pos + utf8.RuneCountInString(t.text)
}

func (p *queryParser) parseOr(depth int) (*Query, error) {
	left, err := p.parseAnd(depth)
	if err != nil {
		return nil, err
	}
	kids := []*Query{left}
	for {
		t, ok := p.peek()
		if !ok || t.kind != tokOr {
			break
		}
		p.i++
		right, err := p.parseAnd(depth)
		if err != nil {
			return nil, err
		}
		kids = append(kids, right)
	}
	return join(QueryOr, kids), nil
}

// parseAnd reads operands joined by AND or by nothing: the reference
// ANDs terms written side by side (weblate/utils/search.py, "Implicit
// AND").
func (p *queryParser) parseAnd(depth int) (*Query, error) {
	left, err := p.parseNot(depth)
	if err != nil {
		return nil, err
	}
	kids := []*Query{left}
	for {
		t, ok := p.peek()
		if !ok || t.kind == tokOr || t.kind == tokClose {
			break
		}
		if t.kind == tokAnd {
			p.i++
		}
		right, err := p.parseNot(depth)
		if err != nil {
			return nil, err
		}
		kids = append(kids, right)
	}
	return join(QueryAnd, kids), nil
}

func (p *queryParser) parseNot(depth int) (*Query, error) {
	t, ok := p.peek()
	if !ok {
		return nil, queryErrorAt(p.endPos(), "missing term")
	}
	switch t.kind {
	case tokNot:
		if depth >= MaxQueryDepth {
			return nil, queryErrorAt(t.pos, "the query is nested deeper than %d levels", MaxQueryDepth)
		}
		p.i++
		kid, err := p.parseNot(depth + 1)
		if err != nil {
			return nil, err
		}
		return &Query{Kind: QueryNot, Kids: []*Query{kid}}, nil
	case tokOpen:
		if depth >= MaxQueryDepth {
			return nil, queryErrorAt(t.pos, "the query is nested deeper than %d levels", MaxQueryDepth)
		}
		p.i++
		if c, ok := p.peek(); ok && c.kind == tokClose {
			return nil, queryErrorAt(c.pos, "empty parentheses")
		}
		inner, err := p.parseOr(depth + 1)
		if err != nil {
			return nil, err
		}
		c, ok := p.peek()
		if !ok || c.kind != tokClose {
			return nil, queryErrorAt(t.pos, `unclosed "("`)
		}
		p.i++
		return inner, nil
	case tokTerm:
		p.i++
		term, err := buildTerm(t, p.now)
		if err != nil {
			return nil, err
		}
		return &Query{Kind: QueryTermNode, Term: term}, nil
	}
	return nil, queryErrorAt(t.pos, "unexpected %s", t.describe())
}

// join makes an And or Or node, flattening one operand to itself and
// nested nodes of the same kind into one.
func join(kind QueryKind, kids []*Query) *Query {
	if len(kids) == 1 {
		return kids[0]
	}
	var flat []*Query
	for _, k := range kids {
		if k.Kind == kind {
			flat = append(flat, k.Kids...)
		} else {
			flat = append(flat, k)
		}
	}
	return &Query{Kind: kind, Kids: flat}
}

// lexQuery splits a query into tokens.
func lexQuery(r []rune) ([]token, error) {
	var out []token
	depth := 0
	i := 0
	for i < len(r) {
		c := r[i]
		switch {
		case isQuerySpace(c):
			i++
			continue
		case c == '(':
			out = append(out, token{kind: tokOpen, pos: i, text: "("})
			depth++
			i++
			continue
		case c == ')':
			// A ")" outside parentheses is a stray one: an error rather
			// than a word, as the reference.
			out = append(out, token{kind: tokClose, pos: i, text: ")"})
			depth--
			i++
			continue
		}
		t, next, err := lexTerm(r, i, depth)
		if err != nil {
			return nil, err
		}
		if t.field == "" && !t.quoted && !t.regex {
			switch strings.ToUpper(t.value) {
			case "AND", "&&":
				t.kind = tokAnd
			case "OR", "||":
				t.kind = tokOr
			case "NOT":
				t.kind = tokNot
			}
		}
		out = append(out, t)
		i = next
	}
	return out, nil
}

func isQuerySpace(c rune) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

// lexTerm reads one term at r[i:]: [field op] (range | r"regex" | quoted
// | word). depth is the number of open groups: as many trailing ")" of
// a word close them, the others belong to the word (f(x)).
func lexTerm(r []rune, i int, depth int) (token, int, error) {
	start := i
	t := token{kind: tokTerm, pos: start}
	// A field is letters and underscores followed by an operator; URLs
	// (http:, https:, ftp:, mailto:) are words, as in the reference.
	j := i
	for j < len(r) && (r[j] == '_' || r[j] >= 'a' && r[j] <= 'z' || r[j] >= 'A' && r[j] <= 'Z') {
		j++
	}
	if j > i && j < len(r) && r[j] == ':' && !isURLScheme(string(r[i:j])) {
		t.field = string(r[i:j])
		op := ":"
		for _, cand := range []string{":<=", ":>=", ":=", ":<", ":>"} {
			if hasRunesPrefix(r[j:], cand) {
				op = cand
				break
			}
		}
		t.op = op
		i = j + utf8.RuneCountInString(op)
		if i < len(r) && r[i] == '[' {
			lo, hi, next, err := lexRange(r, i)
			if err != nil {
				return token{}, 0, err
			}
			t.rng, t.lo, t.hi = true, lo, hi
			t.text = string(r[start:next])
			return t, next, nil
		}
	} else {
		t.op = ":"
	}
	switch {
	case i+1 < len(r) && r[i] == 'r' && r[i+1] == '"':
		v, next, err := lexQuoted(r, i+1)
		if err != nil {
			return token{}, 0, err
		}
		t.value, t.regex = v, true
		i = next
	case i < len(r) && (r[i] == '"' || r[i] == '\''):
		v, next, err := lexQuoted(r, i)
		if err != nil {
			return token{}, 0, err
		}
		t.value, t.quoted = v, true
		i = next
	default:
		j := i
		for j < len(r) && !isQuerySpace(r[j]) {
			j++
		}
		end := j
		// Trailing ")" close open groups: "(a OR b)".
		for n := 0; n < depth && end > i && r[end-1] == ')'; n++ {
			end--
		}
		t.value = string(r[i:end])
		i = end
	}
	t.text = string(r[start:i])
	if t.field != "" && t.value == "" && !t.quoted && !t.regex {
		return token{}, 0, queryErrorAt(start, "missing value for %q", t.field)
	}
	if i < len(r) && !isQuerySpace(r[i]) && r[i] != ')' && (t.quoted || t.regex) {
		return token{}, 0, queryErrorAt(i, "expected a space after the closing quote of %s", t.text)
	}
	return t, i, nil
}

func isURLScheme(s string) bool {
	s = strings.ToLower(s)
	return strings.HasPrefix(s, "http") || strings.HasPrefix(s, "ftp") || strings.HasPrefix(s, "mailto")
}

func hasRunesPrefix(r []rune, p string) bool {
	for _, c := range p {
		if len(r) == 0 || r[0] != c {
			return false
		}
		r = r[1:]
	}
	return true
}

// lexQuoted reads a quoted string at r[i] (the quote). Like the
// reference's RawQuotedString, a backslash escapes only the quote and
// itself, and \t \n \r \f stand for white space; any other backslash
// stays, so r"\d" is the pattern \d.
func lexQuoted(r []rune, i int) (string, int, error) {
	q := r[i]
	var b strings.Builder
	for j := i + 1; j < len(r); j++ {
		c := r[j]
		switch {
		case c == q:
			return b.String(), j + 1, nil
		case c == '\\' && j+1 < len(r):
			switch n := r[j+1]; n {
			case q, '\\':
				b.WriteRune(n)
				j++
			case 't':
				b.WriteByte('\t')
				j++
			case 'n':
				b.WriteByte('\n')
				j++
			case 'r':
				b.WriteByte('\r')
				j++
			case 'f':
				b.WriteByte('\f')
				j++
			default:
				b.WriteRune(c)
			}
		default:
			b.WriteRune(c)
		}
	}
	return "", 0, queryErrorAt(i, "unterminated quote")
}

// lexRange reads "[a to b]" at r[i]; the ends are words or quoted.
func lexRange(r []rune, i int) (lo, hi string, next int, err error) {
	start := i
	i++
	end := func(i int) (string, int, error) {
		for i < len(r) && isQuerySpace(r[i]) {
			i++
		}
		if i < len(r) && (r[i] == '"' || r[i] == '\'') {
			return lexQuoted(r, i)
		}
		j := i
		for j < len(r) && !isQuerySpace(r[j]) && r[j] != ']' {
			j++
		}
		if j == i {
			return "", 0, queryErrorAt(i, `a range is "[a to b]"`)
		}
		return string(r[i:j]), j, nil
	}
	if lo, i, err = end(i); err != nil {
		return "", "", 0, err
	}
	for i < len(r) && isQuerySpace(r[i]) {
		i++
	}
	if !hasRunesPrefix(r[i:], "to") && !hasRunesPrefix(r[i:], "TO") {
		return "", "", 0, queryErrorAt(i, `expected "to" in a range`)
	}
	if hi, i, err = end(i + 2); err != nil {
		return "", "", 0, err
	}
	for i < len(r) && isQuerySpace(r[i]) {
		i++
	}
	if i >= len(r) || r[i] != ']' {
		return "", "", 0, queryErrorAt(start, `unclosed range "["`)
	}
	return lo, hi, i + 1, nil
}

// String renders the query as a tree, for tests and logs: AND(…), OR(…),
// NOT(…) over terms such as text:"hello", source:="Hi", state>=20,
// id:in[1 2], changed>=[2019-01-01,2020-01-01).
func (q *Query) String() string {
	switch q.Kind {
	case QueryAll:
		return "ALL"
	case QueryTermNode:
		return q.Term.String()
	}
	name := map[QueryKind]string{QueryAnd: "AND", QueryOr: "OR", QueryNot: "NOT"}[q.Kind]
	parts := make([]string, len(q.Kids))
	for i, k := range q.Kids {
		parts[i] = k.String()
	}
	return name + "(" + strings.Join(parts, ", ") + ")"
}

var opSymbols = map[QueryOp]string{OpEq: "=", OpLT: "<", OpLE: "<=", OpGT: ">", OpGE: ">="}

// String renders a term (see Query.String).
func (t *QueryTerm) String() string {
	f := t.Field
	if f == "" {
		f = "text"
	}
	switch t.Op {
	case OpContains:
		return fmt.Sprintf("%s:%q", f, t.Text)
	case OpExact:
		return fmt.Sprintf("%s:=%q", f, t.Text)
	case OpRegex:
		return fmt.Sprintf("%s:r%q", f, t.Text)
	case OpIn:
		return fmt.Sprintf("%s:in%v", f, t.Nums)
	}
	if !t.From.IsZero() || !t.To.IsZero() {
		sym := opSymbols[t.Op]
		if t.Op == OpRange {
			sym = ":"
		}
		return fmt.Sprintf("%s%s[%s,%s)", f, sym, fmtQueryTime(t.From), fmtQueryTime(t.To))
	}
	switch f {
	case "pending":
		return fmt.Sprintf("%s=%v", f, t.Bool)
	}
	if t.Op == OpRange {
		return fmt.Sprintf("%s:[%d..%d]", f, t.Num, t.NumHi)
	}
	return fmt.Sprintf("%s%s%d", f, opSymbols[t.Op], t.Num)
}

func fmtQueryTime(t time.Time) string {
	if t.Hour() == 0 && t.Minute() == 0 && t.Second() == 0 && t.Nanosecond() == 0 {
		return t.Format("2006-01-02")
	}
	return t.Format("2006-01-02T15:04:05.999999")
}
