package msgtemplate

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// This file parses templates (the subset doc.go lists). Parsing is
// complete before anything renders, so every syntax error surfaces when a
// template is saved.

// maxDepth bounds the nesting of {% if %} and {% for %} blocks,
// so that a hostile template can neither exhaust the parser's stack nor
// nest loops deep enough to render for ever.
const maxDepth = 32

// tmplToken is one piece of a template: text, a {{ variable }} or a
// {% tag %}, with the line it starts on.
type tmplToken struct {
	kind byte // 't' text, 'v' variable, 'b' block tag
	text string
	line int
}

// tagClosers are the closing delimiters of the three tag kinds.
var tagClosers = map[byte]string{'{': "}}", '%': "%}", '#': "#}"}

// lexTemplate splits src into tokens, dropping {# comments #}. A tag
// must close on the line it opens, as Django's lexer requires; Django
// renders an unclosed one as text, Tolk refuses it, since it is a typo.
func lexTemplate(src string) ([]tmplToken, error) {
	var toks []tmplToken
	line := 1
	for src != "" {
		i := nextTagStart(src)
		if i < 0 {
			toks = append(toks, tmplToken{'t', src, line})
			break
		}
		if i > 0 {
			toks = append(toks, tmplToken{'t', src[:i], line})
			line += strings.Count(src[:i], "\n")
			src = src[i:]
		}
		closer := tagClosers[src[1]]
		j := strings.Index(src[2:], closer)
		if nl := strings.IndexByte(src[2:], '\n'); j < 0 || (nl >= 0 && nl < j) {
			return nil, &Error{line, fmt.Sprintf("%s is not closed by %s on the same line", src[:2], closer)}
		}
		content := strings.TrimSpace(src[2 : 2+j])
		switch src[1] {
		case '{':
			if content == "" {
				return nil, &Error{line, "empty variable tag {{ }}"}
			}
			toks = append(toks, tmplToken{'v', content, line})
		case '%':
			if content == "" {
				return nil, &Error{line, "empty block tag {% %}"}
			}
			toks = append(toks, tmplToken{'b', content, line})
		}
		src = src[2+j+2:]
	}
	return toks, nil
}

// nextTagStart returns the index of the first "{{", "{%" or "{#" in s,
// or -1.
func nextTagStart(s string) int {
	off := 0
	for {
		i := strings.IndexByte(s[off:], '{')
		if i < 0 || off+i+1 >= len(s) {
			return -1
		}
		off += i
		if c := s[off+1]; c == '{' || c == '%' || c == '#' {
			return off
		}
		off++
	}
}

// The template's syntax tree.
type (
	node interface{ isNode() }

	textNode struct{ text string }

	varNode struct {
		expr *filterExpr
		line int
	}

	// ifNode holds {% if %} and its {% elif %}s as parallel conds and
	// bodies, and the {% else %} body.
	ifNode struct {
		conds  []*condExpr
		bodies [][]node
		els    []node
	}

	forNode struct {
		name     string
		seq      *filterExpr
		reversed bool
		body     []node
		empty    []node // {% empty %}: rendered when seq has no items
	}
)

func (textNode) isNode() {}
func (varNode) isNode()  {}
func (ifNode) isNode()   {}
func (forNode) isNode()  {}

// operand is a literal (a string or a number) or a variable's dotted
// path.
type operand struct {
	lit   any
	path  []string
	isLit bool
}

// filterExpr is an operand passed through filters: value|f1|f2:arg.
type filterExpr struct {
	base    operand
	filters []filterCall
}

type filterCall struct {
	name string
	fn   filterFunc
	arg  *operand
}

// condExpr is an {% if %} condition: a leaf operand, "not" with a, or a
// binary op ("or", "and", "==", "in", "not in", "is", …) of a and b.
type condExpr struct {
	op   string
	a, b *condExpr
	leaf *filterExpr
}

// parser turns tokens into nodes.
type parser struct {
	toks  []tmplToken
	pos   int
	depth int
}

// parse parses a whole template into its nodes.
func parse(src string) ([]node, error) {
	toks, err := lexTemplate(src)
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks}
	nodes, _, err := p.parseNodes(nil)
	return nodes, err
}

// endTags are the tags that close or divide a block; found where the
// enclosing block does not expect them, they are errors.
var endTags = []string{"elif", "else", "endif", "empty", "endfor", "endcomment"}

// parseNodes parses nodes up to one of the tags in ends, which it
// consumes and returns (nil at the end of the template, which is an
// error when open, the tag that started the block, is not nil).
func (p *parser) parseNodes(open *tmplToken, ends ...string) ([]node, *tmplToken, error) {
	var nodes []node
	for p.pos < len(p.toks) {
		tok := &p.toks[p.pos]
		p.pos++
		switch tok.kind {
		case 't':
			nodes = append(nodes, textNode{tok.text})
			continue
		case 'v':
			e, err := parseFilterExpr(tok.text)
			if err != nil {
				return nil, nil, &Error{tok.line, err.Error()}
			}
			nodes = append(nodes, varNode{e, tok.line})
			continue
		}
		name, _ := splitTag(tok.text)
		if slices.Contains(ends, name) {
			return nodes, tok, nil
		}
		var n node
		var err error
		switch name {
		case "if":
			n, err = p.parseIf(tok)
		case "for":
			n, err = p.parseFor(tok)
		case "comment":
			err = p.skipComment(tok)
		default:
			err = p.unexpected(tok, name, open, ends)
		}
		if err != nil {
			return nil, nil, err
		}
		if n != nil {
			nodes = append(nodes, n)
		}
	}
	if open != nil {
		name, _ := splitTag(open.text)
		return nil, nil, &Error{open.line, fmt.Sprintf("{%% %s %%} is not closed: expected %s", name, tagList(ends))}
	}
	return nodes, nil, nil
}

// splitTag splits a block tag's content into its name and arguments.
func splitTag(text string) (name, args string) {
	if i := strings.IndexAny(text, " \t"); i >= 0 {
		return text[:i], text[i+1:]
	}
	return text, ""
}

// unexpected says why tag name cannot stand where it is.
func (p *parser) unexpected(tok *tmplToken, name string, open *tmplToken, ends []string) error {
	if !slices.Contains(endTags, name) {
		return &Error{tok.line, fmt.Sprintf("unknown tag {%% %s %%}: message templates support if, elif, else, endif, for, empty, endfor and comment", name)}
	}
	if open == nil {
		return &Error{tok.line, fmt.Sprintf("{%% %s %%} without an opening tag", name)}
	}
	return &Error{tok.line, fmt.Sprintf("unexpected {%% %s %%}: expected %s (block opened on line %d)", name, tagList(ends), open.line)}
}

func tagList(tags []string) string {
	s := make([]string, len(tags))
	for i, t := range tags {
		s[i] = "{% " + t + " %}"
	}
	return strings.Join(s, " or ")
}

// enter counts one more level of block nesting, refusing too many.
func (p *parser) enter(tok *tmplToken) error {
	p.depth++
	if p.depth > maxDepth {
		return &Error{tok.line, fmt.Sprintf("blocks nested deeper than %d levels", maxDepth)}
	}
	return nil
}

// bareTag checks that a dividing or closing tag has no arguments.
func bareTag(tok *tmplToken, name string) error {
	if tok.text != name {
		return &Error{tok.line, fmt.Sprintf("{%% %s %%} takes no arguments", name)}
	}
	return nil
}

func (p *parser) parseIf(tok *tmplToken) (node, error) {
	if err := p.enter(tok); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	n := ifNode{}
	head := tok
	for {
		_, args := splitTag(head.text)
		cond, err := parseCond(args)
		if err != nil {
			return nil, &Error{head.line, err.Error()}
		}
		body, end, err := p.parseNodes(tok, "elif", "else", "endif")
		if err != nil {
			return nil, err
		}
		n.conds, n.bodies = append(n.conds, cond), append(n.bodies, body)
		name, _ := splitTag(end.text)
		switch name {
		case "elif":
			head = end
			continue
		case "else":
			if err := bareTag(end, "else"); err != nil {
				return nil, err
			}
			if n.els, end, err = p.parseNodes(tok, "endif"); err != nil {
				return nil, err
			}
		}
		return n, bareTag(end, "endif")
	}
}

func (p *parser) parseFor(tok *tmplToken) (node, error) {
	if err := p.enter(tok); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	n := forNode{}
	if err := parseForHead(tok.text, &n); err != nil {
		return nil, &Error{tok.line, err.Error()}
	}
	body, end, err := p.parseNodes(tok, "empty", "endfor")
	if err != nil {
		return nil, err
	}
	n.body = body
	if name, _ := splitTag(end.text); name == "empty" {
		if err := bareTag(end, "empty"); err != nil {
			return nil, err
		}
		if n.empty, end, err = p.parseNodes(tok, "endfor"); err != nil {
			return nil, err
		}
	}
	return n, bareTag(end, "endfor")
}

// parseForHead reads "for x in seq" with an optional trailing
// "reversed". Unpacking several names is Django's, not Tolk's: no
// message variable is a list of pairs.
func parseForHead(text string, n *forNode) error {
	_, args := splitTag(text)
	toks, err := lexExpr(args)
	if err != nil {
		return err
	}
	const usage = "expected {% for name in list %}"
	if len(toks) > 0 && toks[len(toks)-1].is("reversed") {
		n.reversed, toks = true, toks[:len(toks)-1]
	}
	if len(toks) >= 2 && toks[1].kind == ',' {
		return fmt.Errorf("unpacking several names in {%% for %%} is not supported: %s", usage)
	}
	if len(toks) < 3 || toks[0].kind != 'n' || len(toks[0].path) != 1 || !toks[1].is("in") {
		return fmt.Errorf("%s", usage)
	}
	n.name = toks[0].path[0]
	ep := exprParser{toks: toks[2:]}
	seq, err := ep.filterExpr()
	if err != nil {
		return err
	}
	if err := ep.done(); err != nil {
		return err
	}
	n.seq = seq
	return nil
}

// skipComment skips to {% endcomment %}, parsing nothing in between, as
// Django does.
func (p *parser) skipComment(tok *tmplToken) error {
	for p.pos < len(p.toks) {
		t := p.toks[p.pos]
		p.pos++
		if t.kind == 'b' && t.text == "endcomment" {
			return nil
		}
	}
	return &Error{tok.line, "{% comment %} is not closed: expected {% endcomment %}"}
}

// exprTok is a token of a variable or tag's expression: 'n' a name
// (dotted path), 'l' a literal, or an operator ('|', ':', ',', 'o' for
// comparisons with text holding it).
type exprTok struct {
	kind byte
	text string
	path []string
	lit  any
}

// is reports whether t is the bare word w (a keyword).
func (t exprTok) is(w string) bool { return t.kind == 'n' && t.text == w }

// lexExpr splits an expression into tokens.
func lexExpr(s string) ([]exprTok, error) {
	var toks []exprTok
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r':
			i++
		case c == '"' || c == '\'':
			lit, n, err := lexString(s[i:])
			if err != nil {
				return nil, err
			}
			toks = append(toks, exprTok{kind: 'l', lit: lit, text: s[i : i+n]})
			i += n
		case isDigit(c) || (c == '-' && i+1 < len(s) && isDigit(s[i+1])):
			j := i + 1
			for j < len(s) && (isDigit(s[j]) || s[j] == '.') {
				j++
			}
			lit, err := parseNumber(s[i:j])
			if err != nil {
				return nil, err
			}
			toks = append(toks, exprTok{kind: 'l', lit: lit, text: s[i:j]})
			i = j
		case isNameStart(c):
			j := i + 1
			for j < len(s) && (isNameStart(s[j]) || isDigit(s[j]) || s[j] == '.') {
				j++
			}
			t, err := nameToken(s[i:j])
			if err != nil {
				return nil, err
			}
			toks = append(toks, t)
			i = j
		case c == '|' || c == ':' || c == ',':
			toks = append(toks, exprTok{kind: c, text: string(c)})
			i++
		case c == '=' || c == '!' || c == '<' || c == '>':
			op := string(c)
			if i+1 < len(s) && s[i+1] == '=' {
				op += "="
			}
			if op == "=" || op == "!" {
				return nil, fmt.Errorf("unexpected %q: comparisons are == and !=", op)
			}
			toks = append(toks, exprTok{kind: 'o', text: op})
			i += len(op)
		default:
			r, _ := utf8.DecodeRuneInString(s[i:])
			return nil, fmt.Errorf("unexpected character %q", string(r))
		}
	}
	return toks, nil
}

func isDigit(c byte) bool     { return c >= '0' && c <= '9' }
func isNameStart(c byte) bool { return c == '_' || (c|0x20 >= 'a' && c|0x20 <= 'z') }

// nameToken checks a dotted name: no empty part, and no part starting
// with an underscore, which Django refuses.
func nameToken(name string) (exprTok, error) {
	path := strings.Split(name, ".")
	for _, part := range path {
		switch {
		case part == "":
			return exprTok{}, fmt.Errorf("malformed variable name %q", name)
		case part[0] == '_':
			return exprTok{}, fmt.Errorf("variables and attributes may not begin with underscores: %q", name)
		}
	}
	switch name {
	case "True":
		return exprTok{kind: 'l', lit: true, text: name}, nil
	case "False":
		return exprTok{kind: 'l', lit: false, text: name}, nil
	case "None":
		return exprTok{kind: 'l', lit: nil, text: name}, nil
	}
	return exprTok{kind: 'n', text: name, path: path}, nil
}

// lexString reads a quoted literal at the start of s, with backslash
// escapes as Django's unescape_string_literal reads them; it returns the
// value and the bytes read.
func lexString(s string) (string, int, error) {
	q := s[0]
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case q:
			return b.String(), i + 1, nil
		case '\\':
			if i+1 < len(s) {
				i++
			}
		}
		b.WriteByte(s[i])
	}
	return "", 0, fmt.Errorf("unterminated string literal %s", s)
}

func parseNumber(s string) (any, error) {
	if n, err := strconv.Atoi(s); err == nil {
		return n, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return nil, fmt.Errorf("malformed number %q", s)
	}
	return f, nil
}

// exprParser reads expressions from tokens.
type exprParser struct {
	toks []exprTok
	pos  int
}

func (ep *exprParser) peek() (exprTok, bool) {
	if ep.pos < len(ep.toks) {
		return ep.toks[ep.pos], true
	}
	return exprTok{}, false
}

// done fails when tokens are left over.
func (ep *exprParser) done() error {
	if t, ok := ep.peek(); ok {
		return fmt.Errorf("unexpected %q", t.text)
	}
	return nil
}

// parseFilterExpr parses a {{ variable }}'s content.
func parseFilterExpr(s string) (*filterExpr, error) {
	toks, err := lexExpr(s)
	if err != nil {
		return nil, err
	}
	ep := exprParser{toks: toks}
	e, err := ep.filterExpr()
	if err != nil {
		return nil, err
	}
	return e, ep.done()
}

func (ep *exprParser) operand() (operand, error) {
	t, ok := ep.peek()
	if !ok {
		return operand{}, fmt.Errorf("expected a variable or a literal at the end")
	}
	switch t.kind {
	case 'l':
		ep.pos++
		return operand{lit: t.lit, isLit: true}, nil
	case 'n':
		ep.pos++
		return operand{path: t.path}, nil
	}
	return operand{}, fmt.Errorf("expected a variable or a literal, not %q", t.text)
}

func (ep *exprParser) filterExpr() (*filterExpr, error) {
	base, err := ep.operand()
	if err != nil {
		return nil, err
	}
	e := &filterExpr{base: base}
	for {
		t, ok := ep.peek()
		if !ok || t.kind != '|' {
			return e, nil
		}
		ep.pos++
		t, ok = ep.peek()
		if !ok || t.kind != 'n' || len(t.path) != 1 {
			return nil, fmt.Errorf("expected a filter name after |")
		}
		ep.pos++
		f, known := filters[t.text]
		if !known {
			return nil, fmt.Errorf("unknown filter %q: message templates support %s", t.text, filterNames())
		}
		call := filterCall{name: t.text, fn: f.fn}
		if t, ok := ep.peek(); ok && t.kind == ':' {
			ep.pos++
			arg, err := ep.operand()
			if err != nil {
				return nil, err
			}
			call.arg = &arg
		}
		switch {
		case call.arg == nil && f.arg == argRequired:
			return nil, fmt.Errorf("filter %q requires an argument", call.name)
		case call.arg != nil && f.arg == argNone:
			return nil, fmt.Errorf("filter %q takes no argument", call.name)
		}
		e.filters = append(e.filters, call)
	}
}

// parseCond parses an {% if %} or {% elif %} condition with Django's
// precedence: or, then and, then not, then the comparisons.
func parseCond(s string) (*condExpr, error) {
	toks, err := lexExpr(s)
	if err != nil {
		return nil, err
	}
	if len(toks) == 0 {
		return nil, fmt.Errorf("{%% if %%} needs a condition")
	}
	ep := exprParser{toks: toks}
	c, err := ep.or()
	if err != nil {
		return nil, err
	}
	return c, ep.done()
}

func (ep *exprParser) or() (*condExpr, error) {
	return ep.binary("or", ep.and)
}

func (ep *exprParser) and() (*condExpr, error) {
	return ep.binary("and", ep.not)
}

// binary parses a left-associative chain of next joined by word.
func (ep *exprParser) binary(word string, next func() (*condExpr, error)) (*condExpr, error) {
	a, err := next()
	if err != nil {
		return nil, err
	}
	for {
		t, ok := ep.peek()
		if !ok || !t.is(word) {
			return a, nil
		}
		ep.pos++
		b, err := next()
		if err != nil {
			return nil, err
		}
		a = &condExpr{op: word, a: a, b: b}
	}
}

func (ep *exprParser) not() (*condExpr, error) {
	// "not" nests only as deep as the tag is long, and a tag is one line;
	// iterate anyway so that no input recurses without bound.
	count := 0
	for t, ok := ep.peek(); ok && t.is("not"); t, ok = ep.peek() {
		ep.pos++
		count++
	}
	c, err := ep.comparison()
	if err != nil {
		return nil, err
	}
	for ; count > 0; count-- {
		c = &condExpr{op: "not", a: c}
	}
	return c, nil
}

func (ep *exprParser) comparison() (*condExpr, error) {
	a, err := ep.leaf()
	if err != nil {
		return nil, err
	}
	for {
		op, ok := ep.comparisonOp()
		if !ok {
			return a, nil
		}
		b, err := ep.leaf()
		if err != nil {
			return nil, err
		}
		a = &condExpr{op: op, a: a, b: b}
	}
}

// comparisonOp consumes a comparison operator, if one comes next.
func (ep *exprParser) comparisonOp() (string, bool) {
	t, ok := ep.peek()
	if !ok {
		return "", false
	}
	next := func(w string) bool {
		return ep.pos+1 < len(ep.toks) && ep.toks[ep.pos+1].is(w)
	}
	switch {
	case t.kind == 'o':
		ep.pos++
		return t.text, true
	case t.is("in"):
		ep.pos++
		return "in", true
	case t.is("not") && next("in"):
		ep.pos += 2
		return "not in", true
	case t.is("is") && next("not"):
		ep.pos += 2
		return "is not", true
	case t.is("is"):
		ep.pos++
		return "is", true
	}
	return "", false
}

// condKeywords cannot be operands.
var condKeywords = []string{"and", "or", "not", "in", "is"}

func (ep *exprParser) leaf() (*condExpr, error) {
	if t, ok := ep.peek(); ok && t.kind == 'n' && slices.Contains(condKeywords, t.text) {
		return nil, fmt.Errorf("unexpected %q in condition", t.text)
	}
	e, err := ep.filterExpr()
	if err != nil {
		return nil, err
	}
	return &condExpr{leaf: e}, nil
}
