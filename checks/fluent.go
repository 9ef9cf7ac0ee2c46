package checks

import (
	"slices"
	"strings"
)

// The Fluent checks (reference §1.3, "Glossary and Fluent"; Weblate's
// checks/fluent/*.py), behind their flags, which the Fluent format sets:
//
//   - fluent-source-syntax, fluent-target-syntax: the string does not
//     parse as a Fluent message body;
//   - fluent-parts: the target's value and attributes (".title = …"
//     lines) are not the source's (not for terms: fluent-type:Term);
//   - fluent-references: some variant of the target (each way through
//     its select expressions) has not the same { $variable },
//     { message } and { -term } references, counted, as some variant of
//     the source, or the other way round; a reference the selector uses
//     counts as present in the variants that leave it out, as the
//     reference shares it;
//   - fluent-source-inner-html, fluent-target-inner-html: a variant is
//     not well-formed inner HTML (tags closed and nested, void elements
//     not closed, character references ended, no reference where it
//     could expand into a tag or a character reference), and the
//     target's elements (tag, attributes, ancestors) are not those of
//     some source variant.
//
// The parser is Tolk's own, for the syntax a unit's text holds (a
// message's value and attributes); the reference uses fluent.syntax.
// Its errors are the reference's main ones — unbalanced braces, an empty
// or unclosed placeable, a bad identifier or literal, a select without
// exactly one default variant, an attribute without a value — not every
// message the reference's parser can give. Variants are enumerated up to
// fluentMaxVariants per part; beyond, the rest are not compared.

const fluentMaxVariants = 64

// flRef is a reference: '$' variable, '-' term, 'm' message.
type flRef struct {
	kind byte
	name string
}

// flElem is a piece of a pattern: text, or a placeable.
type flElem struct {
	text string
	expr *flExpr
}

// flExpr is a placeable's expression.
type flExpr struct {
	// kind is what an inline expression is, for the selector's rules:
	// '$' variable, 'm' message, '-' term, 'a' term attribute, 'f' call,
	// 'l' literal, 'p' nested placeable.
	kind     byte
	refs     []flRef // the references of an inline expression (call arguments included)
	literal  string  // a string or number literal's text
	isLit    bool
	selector *flExpr // a select expression's selector; variants below
	variants []flVariant
}

type flVariant struct {
	def     bool
	pattern []flElem
}

// flPart is a message's value (name "") or one of its attributes.
type flPart struct {
	name    string
	pattern []flElem
}

// flParser parses one pattern text.
type flParser struct {
	s   string
	i   int
	bad bool
}

// parseFluent parses a unit's text into its parts; ok is false on a
// syntax error. term says the entry is a term (its value is required).
func parseFluent(text string, term bool) ([]flPart, bool) {
	var parts []flPart
	cur := flPart{}
	var lines []string
	flush := func() bool {
		body := strings.Join(lines, "\n")
		p := flParser{s: body}
		if cur.name == "" && p.badLineStart(0) {
			return false
		}
		cur.pattern = p.pattern(false)
		if p.bad || p.i < len(p.s) {
			return false
		}
		if cur.name != "" && strings.TrimSpace(body) == "" {
			return false // an attribute needs a value
		}
		if cur.name != "" || strings.TrimSpace(body) != "" {
			parts = append(parts, cur)
		}
		return true
	}
	depth := 0
	names := map[string]bool{}
	for _, line := range strings.Split(text, "\n") {
		if depth == 0 {
			if name, rest, ok := fluentAttribute(line); ok {
				if !flush() {
					return nil, false
				}
				if names[name] {
					return nil, false // an attribute given twice
				}
				names[name] = true
				cur, lines = flPart{name: name}, []string{rest}
				depth += strings.Count(rest, "{") - strings.Count(rest, "}")
				continue
			}
		}
		lines = append(lines, line)
		depth += strings.Count(line, "{") - strings.Count(line, "}")
	}
	if !flush() {
		return nil, false
	}
	if len(parts) == 0 {
		return nil, false // no value and no attribute
	}
	if term && parts[0].name != "" {
		return nil, false // a term has a value
	}
	return parts, true
}

// fluentAttribute reads ".name = value" at the start of a line.
func fluentAttribute(line string) (name, rest string, ok bool) {
	t := strings.TrimLeft(line, " ")
	if !strings.HasPrefix(t, ".") {
		return "", "", false
	}
	j := identEnd(t, 1)
	if j == 1 {
		return "", "", false
	}
	k := j
	for k < len(t) && t[k] == ' ' {
		k++
	}
	if k >= len(t) || t[k] != '=' {
		return "", "", false
	}
	return t[1:j], strings.TrimLeft(t[k+1:], " "), true
}

// identEnd returns the end of a Fluent identifier ([a-zA-Z][a-zA-Z0-9_-]*)
// starting at i, or i.
func identEnd(s string, i int) int {
	if i >= len(s) || !isLetterByte(s[i]) {
		return i
	}
	j := i + 1
	for j < len(s) && (isWordByte(s[j]) || s[j] == '-') {
		j++
	}
	return j
}

// pattern parses text and placeables up to the end, or, inVariant, up
// to the "}" closing the select or the line starting the next variant.
func (p *flParser) pattern(inVariant bool) []flElem {
	var out []flElem
	var text strings.Builder
	for p.i < len(p.s) && !p.bad {
		c := p.s[p.i]
		switch {
		case c == '{':
			if text.Len() > 0 {
				out = append(out, flElem{text: text.String()})
				text.Reset()
			}
			p.i++
			e := p.placeable()
			if e != nil {
				out = append(out, flElem{expr: e})
			}
		case c == '}':
			if !inVariant {
				p.bad = true // unbalanced closing brace
			} else if !strings.HasSuffix(strings.TrimRight(text.String(), " \t"), "\n") && (text.Len() > 0 || len(out) > 0) {
				p.bad = true // the last variant ends its line before the "}"
			}
			if text.Len() > 0 {
				out = append(out, flElem{text: text.String()})
			}
			return out
		case c == '\n' && inVariant && p.variantAhead(p.i+1):
			if text.Len() > 0 {
				out = append(out, flElem{text: text.String()})
			}
			p.i++
			return out
		case c == '\n' && !inVariant && p.badLineStart(p.i+1):
			p.bad = true // "[", "*" or "." cannot start a line of text
		default:
			text.WriteByte(c)
			p.i++
		}
	}
	if inVariant {
		p.bad = true // the select is never closed
	}
	if text.Len() > 0 {
		out = append(out, flElem{text: text.String()})
	}
	return out
}

// badLineStart reports whether the line at i starts, after its
// indentation, with a character Fluent reads as syntax there.
func (p *flParser) badLineStart(i int) bool {
	for i < len(p.s) && p.s[i] == ' ' {
		i++
	}
	return i < len(p.s) && strings.IndexByte("[*.", p.s[i]) >= 0
}

// fluentEscape returns the length of a string literal's escape after
// its backslash (\\, \", \uXXXX, \UXXXXXX), or 0 for an unknown one.
func fluentEscape(s string) int {
	hex := func(n int) int {
		if len(s) < n+1 {
			return 0
		}
		for _, c := range s[1 : n+1] {
			if !strings.ContainsRune("0123456789abcdefABCDEF", c) {
				return 0
			}
		}
		return n + 1
	}
	switch {
	case s == "":
		return 0
	case s[0] == '\\' || s[0] == '"':
		return 1
	case s[0] == 'u':
		return hex(4)
	case s[0] == 'U':
		return hex(6)
	}
	return 0
}

// variantAhead reports whether a variant key ("[one]", "*[other]")
// starts the line at i.
func (p *flParser) variantAhead(i int) bool {
	for i < len(p.s) && (p.s[i] == ' ' || p.s[i] == '\t') {
		i++
	}
	if i < len(p.s) && p.s[i] == '*' {
		i++
	}
	return i < len(p.s) && p.s[i] == '['
}

func (p *flParser) blank() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\n' || p.s[p.i] == '\t' || p.s[p.i] == '\r') {
		p.i++
	}
}

// placeable parses after "{" up to and including its "}".
func (p *flParser) placeable() *flExpr {
	p.blank()
	e := p.inline()
	if e == nil {
		p.bad = true // an empty or malformed placeable
		return nil
	}
	p.blank()
	if strings.HasPrefix(p.s[p.i:], "->") {
		p.i += 2
		sel := e
		if sel.kind == 'm' || sel.kind == '-' || sel.kind == 'p' {
			p.bad = true // messages and terms (but a term's attribute) cannot select
			return nil
		}
		for p.i < len(p.s) && p.s[p.i] == ' ' {
			p.i++
		}
		if p.i >= len(p.s) || p.s[p.i] != '\n' {
			p.bad = true // the variants start on a new line
			return nil
		}
		e = &flExpr{selector: sel}
		defaults := 0
		for {
			p.blank()
			if p.i >= len(p.s) {
				p.bad = true
				return nil
			}
			if p.s[p.i] == '}' {
				p.i++
				break
			}
			v := flVariant{}
			if p.s[p.i] == '*' {
				v.def = true
				defaults++
				p.i++
			}
			if p.i >= len(p.s) || p.s[p.i] != '[' {
				p.bad = true
				return nil
			}
			k := strings.IndexByte(p.s[p.i:], ']')
			if k < 0 || strings.TrimSpace(p.s[p.i+1:p.i+k]) == "" {
				p.bad = true
				return nil
			}
			p.i += k + 1
			for p.i < len(p.s) && p.s[p.i] == ' ' {
				p.i++
			}
			v.pattern = p.pattern(true)
			if p.bad {
				return nil
			}
			e.variants = append(e.variants, v)
		}
		if defaults != 1 || len(e.variants) == 0 {
			p.bad = true // exactly one default variant
			return nil
		}
		return e
	}
	if p.i >= len(p.s) || p.s[p.i] != '}' {
		p.bad = true // an unclosed placeable
		return nil
	}
	if e.kind == 'a' {
		p.bad = true // a term's attribute is for selectors only
		return nil
	}
	p.i++
	return e
}

// inline parses an inline expression: a literal, a reference, a call or
// a nested placeable.
func (p *flParser) inline() *flExpr {
	if p.i >= len(p.s) {
		return nil
	}
	c := p.s[p.i]
	switch {
	case c == '"':
		j := p.i + 1
		for j < len(p.s) && p.s[j] != '"' && p.s[j] != '\n' {
			if p.s[j] == '\\' {
				n := fluentEscape(p.s[j+1:])
				if n == 0 {
					return nil // an escape Fluent does not know
				}
				j += n
			}
			j++
		}
		if j >= len(p.s) || p.s[j] != '"' {
			return nil // an unclosed string literal
		}
		e := &flExpr{kind: 'l', literal: p.s[p.i+1 : j], isLit: true}
		p.i = j + 1
		return e
	case c >= '0' && c <= '9' || c == '-' && p.i+1 < len(p.s) && p.s[p.i+1] >= '0' && p.s[p.i+1] <= '9':
		j := p.i + 1
		for j < len(p.s) && (p.s[j] >= '0' && p.s[j] <= '9' || p.s[j] == '.') {
			j++
		}
		e := &flExpr{kind: 'l', literal: p.s[p.i:j], isLit: true}
		p.i = j
		return e
	case c == '$' || c == '-': // a variable, or a term with its attribute and arguments
		j := identEnd(p.s, p.i+1)
		if j == p.i+1 {
			return nil
		}
		e := &flExpr{kind: c, refs: []flRef{{c, p.s[p.i+1 : j]}}}
		p.i = j
		if c == '-' {
			p.i = p.attrAndArgs(j, e)
		}
		return e
	case isLetterByte(c):
		j := identEnd(p.s, p.i)
		if j < len(p.s) && p.s[j] == '(' { // a function call: its arguments' references
			if strings.ToUpper(p.s[p.i:j]) != p.s[p.i:j] {
				return nil // function names are upper case
			}
			e := &flExpr{kind: 'f'}
			p.i = p.args(j, e)
			return e
		}
		e := &flExpr{kind: 'm', refs: []flRef{{'m', p.s[p.i:j]}}}
		p.i = p.attrAndArgs(j, e)
		return e
	case c == '{':
		p.i++
		e := p.placeable()
		if e != nil {
			e.kind = 'p'
		}
		return e
	}
	return nil
}

// attrAndArgs reads a reference's ".attribute" and a term's call
// arguments after j; it returns the position after them.
func (p *flParser) attrAndArgs(j int, e *flExpr) int {
	if j < len(p.s) && p.s[j] == '.' {
		k := identEnd(p.s, j+1)
		if k == j+1 {
			p.bad = true
			return j
		}
		j = k
		if e.kind == '-' {
			e.kind = 'a'
		}
	}
	if j < len(p.s) && p.s[j] == '(' {
		return p.args(j, e)
	}
	return j
}

// args reads "(…)" call arguments from j, adding their references to e.
func (p *flParser) args(j int, e *flExpr) int {
	p.i = j + 1
	for {
		p.blank()
		if p.i >= len(p.s) {
			p.bad = true
			return p.i
		}
		if p.s[p.i] == ')' {
			return p.i + 1
		}
		// A named argument: name: literal.
		if k := identEnd(p.s, p.i); k > p.i {
			m := k
			for m < len(p.s) && p.s[m] == ' ' {
				m++
			}
			if m < len(p.s) && p.s[m] == ':' {
				p.i = m + 1
				p.blank()
			}
		}
		a := p.inline()
		if a == nil {
			p.bad = true
			return p.i
		}
		e.refs = append(e.refs, a.refs...)
		p.blank()
		if p.i < len(p.s) && p.s[p.i] == ',' {
			p.i++
		}
	}
}

// flVariantOut is one way through a pattern's selects: its references
// and its text with literals expanded (references as fluentRefMark).
type flVariantOut struct {
	refs []flRef
	text string
}

// fluentRefMark stands for a reference in a variant's text: what it
// expands to is unknown.
const fluentRefMark = "\x00"

// variants enumerates the ways through a pattern (at most
// fluentMaxVariants), sharing the references a selector uses with the
// branches that leave them out.
func flVariants(pat []flElem) []flVariantOut {
	out := []flVariantOut{{}}
	for _, el := range pat {
		if el.expr == nil {
			for i := range out {
				out[i].text += el.text
			}
			continue
		}
		var alts []flVariantOut
		if el.expr.selector == nil {
			t := fluentRefMark
			if el.expr.isLit {
				t = el.expr.literal
			}
			alts = []flVariantOut{{refs: el.expr.refs, text: t}}
		} else {
			alts = flSelectVariants(el.expr)
		}
		next := make([]flVariantOut, 0, len(out)*len(alts))
		for _, o := range out {
			for _, a := range alts {
				if len(next) >= fluentMaxVariants {
					break
				}
				next = append(next, flVariantOut{refs: append(slices.Clone(o.refs), a.refs...), text: o.text + a.text})
			}
		}
		out = next
	}
	return out
}

func flSelectVariants(e *flExpr) []flVariantOut {
	branches := make([][]flVariantOut, len(e.variants))
	for i, v := range e.variants {
		branches[i] = flVariants(v.pattern)
	}
	// Share the selector's references: each branch gets as many as the
	// branch using it most, when every variant of a branch agrees.
	var seen []flRef
	for _, r := range e.selector.refs {
		if slices.Contains(seen, r) {
			continue
		}
		seen = append(seen, r)
		counts := make([]int, len(branches))
		consistent, most := true, 0
		for i, b := range branches {
			counts[i] = -1
			for _, v := range b {
				n := 0
				for _, x := range v.refs {
					if x == r {
						n++
					}
				}
				if counts[i] >= 0 && counts[i] != n {
					consistent = false
				}
				counts[i] = n
			}
			most = max(most, counts[i])
		}
		if !consistent {
			continue
		}
		for i, b := range branches {
			for j := range b {
				for k := counts[i]; k < most; k++ {
					b[j].refs = append(b[j].refs, r)
				}
			}
		}
	}
	var out []flVariantOut
	for _, b := range branches {
		out = append(out, b...)
	}
	return out
}

// sameRefs compares two reference lists as multisets.
func sameRefs(a, b []flRef) bool {
	if len(a) != len(b) {
		return false
	}
	count := map[flRef]int{}
	for _, r := range a {
		count[r]++
	}
	for _, r := range b {
		count[r]--
		if count[r] < 0 {
			return false
		}
	}
	return true
}

// fluentTerm reports whether u is a Fluent term: its fluent-type flag
// says so, or, without one, its key starts with "-" (the reference's
// guess from the id).
func fluentTerm(u Unit) bool {
	if p, ok := u.Flags.params["fluent-type"]; ok {
		return len(p) == 1 && strings.EqualFold(p[0], "Term")
	}
	return strings.HasPrefix(u.Context, "-")
}

// fluentCheckFlags are the flags that turn the Fluent checks on: the
// registry's flags starting with "fluent-", so that a Fluent check added
// there is one NeedsContext knows.
var fluentCheckFlags = func() []string {
	var out []string
	for _, c := range registry {
		if strings.HasPrefix(c.Flag, "fluent-") {
			out = append(out, c.Flag)
		}
	}
	return out
}()

// NeedsContext reports whether checks run under flags f read the
// unit's key (Unit.Context): a Fluent check is on and fluent-type does
// not say what the unit is.
func NeedsContext(f Flags) bool {
	if _, ok := f.params["fluent-type"]; ok {
		return false
	}
	return slices.ContainsFunc(fluentCheckFlags, f.Has)
}

func fluentTargetSyntax(u Unit) bool {
	for _, t := range u.Target {
		if t == "" {
			continue
		}
		if _, ok := parseFluent(t, fluentTerm(u)); !ok {
			return true
		}
	}
	return false
}

// fluentSourceTooLong: the source checks run outside Run's size bounds
// (bounds.go), so they keep to the same one themselves.
func fluentSourceTooLong(u Unit) bool {
	return slices.ContainsFunc(u.Source, func(s string) bool { return len(s) > markupBytes })
}

func fluentSourceSyntax(u Unit) bool {
	if fluentSourceTooLong(u) {
		return false
	}
	for _, s := range u.Source {
		if _, ok := parseFluent(s, fluentTerm(u)); !ok {
			return true
		}
	}
	return false
}

// fluentPair parses the source form paired with each target form and
// calls fn on both parses; a form that does not parse is skipped (the
// syntax checks report it).
func fluentPair(u Unit, fn func(src, tgt []flPart) bool) bool {
	if len(u.Source) == 0 {
		return false
	}
	term := fluentTerm(u)
	for i, t := range u.Target {
		if t == "" {
			continue
		}
		sp, ok := parseFluent(u.Source[sourceIndex(&u, i)], term)
		if !ok {
			continue
		}
		tp, ok := parseFluent(t, term)
		if !ok {
			continue
		}
		if fn(sp, tp) {
			return true
		}
	}
	return false
}

func partNames(ps []flPart) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.name
	}
	slices.Sort(out)
	return out
}

func fluentParts(u Unit) bool {
	if fluentTerm(u) {
		return false
	}
	return fluentPair(u, func(src, tgt []flPart) bool {
		return !slices.Equal(partNames(src), partNames(tgt))
	})
}

// fluentEachPart calls fn on each part both sides have.
func fluentEachPart(src, tgt []flPart, fn func(s, t flPart) bool) bool {
	for _, s := range src {
		for _, t := range tgt {
			if s.name == t.name && fn(s, t) {
				return true
			}
		}
	}
	return false
}

func fluentReferences(u Unit) bool {
	return fluentPair(u, func(src, tgt []flPart) bool {
		return fluentEachPart(src, tgt, func(s, t flPart) bool {
			sv, tv := flVariants(s.pattern), flVariants(t.pattern)
			matched := func(v flVariantOut, in []flVariantOut) bool {
				return slices.ContainsFunc(in, func(o flVariantOut) bool { return sameRefs(v.refs, o.refs) })
			}
			for _, v := range sv {
				if !matched(v, tv) {
					return true
				}
			}
			for _, v := range tv {
				if !matched(v, sv) {
					return true
				}
			}
			return false
		})
	})
}

// voidElements have no content and no end tag.
var voidElements = []string{"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}

// parseInnerHTML reads a variant's text as inner HTML: it returns its
// elements, each keyed by its tag, attributes and ancestors, and false
// when it is not well-formed.
func parseInnerHTML(s string) ([]string, bool) {
	var stack, nodes []string
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '<':
			if i+1 >= len(s) {
				continue
			}
			switch c := s[i+1]; {
			case c == fluentRefMark[0]:
				return nil, false // a reference could expand into a tag
			case c == '/':
				j := identEnd(s, i+2)
				k := j
				for k < len(s) && s[k] == ' ' {
					k++
				}
				if j == i+2 || k >= len(s) || s[k] != '>' {
					return nil, false // not a valid end tag
				}
				name := strings.ToLower(s[i+2 : j])
				if slices.Contains(voidElements, name) || len(stack) == 0 || stack[len(stack)-1] != name {
					return nil, false // unmatched end tag
				}
				stack = stack[:len(stack)-1]
				i = k
			case c == '!' || c == '?':
				return nil, false // comments, doctypes, instructions: not inner HTML
			case isLetterByte(c):
				j := identEnd(s, i+1)
				name := strings.ToLower(s[i+1 : j])
				attrs, end, self, ok := htmlAttributes(s, j)
				if !ok {
					return nil, false
				}
				void := slices.Contains(voidElements, name)
				if self && !void {
					return nil, false // a non-void element self-closed
				}
				key := strings.Join(stack, ">") + ">" + name + "[" + strings.Join(attrs, " ") + "]"
				nodes = append(nodes, key)
				if !void {
					stack = append(stack, name)
				}
				i = end
			}
		case '&':
			if i+1 < len(s) && s[i+1] == fluentRefMark[0] {
				return nil, false // a reference could expand into a character reference
			}
			j := i + 1
			if j < len(s) && s[j] == '#' {
				j++
				if j < len(s) && (s[j] == 'x' || s[j] == 'X') {
					j++
				}
			}
			k := j
			for k < len(s) && (isLetterByte(s[k]) || s[k] >= '0' && s[k] <= '9') {
				k++
			}
			if k == j {
				continue // a lone "&" is text
			}
			if k >= len(s) || s[k] != ';' {
				return nil, false // a character reference without its ";"
			}
			i = k
		}
	}
	if len(stack) > 0 {
		return nil, false // a missing end tag
	}
	slices.Sort(nodes)
	return nodes, true
}

// htmlAttributes reads a start tag's attributes from j up to ">" or
// "/>", returning them sorted ("name=value"), the index of ">", whether
// the tag closed itself, and false when the tag is malformed.
func htmlAttributes(s string, j int) ([]string, int, bool, bool) {
	var attrs []string
	for {
		k := j
		for k < len(s) && (s[k] == ' ' || s[k] == '\n' || s[k] == '\t') {
			k++
		}
		if k >= len(s) {
			return nil, 0, false, false // never closed
		}
		if s[k] == '>' {
			slices.Sort(attrs)
			return attrs, k, false, true
		}
		if strings.HasPrefix(s[k:], "/>") {
			slices.Sort(attrs)
			return attrs, k + 1, true, true
		}
		if k == j {
			return nil, 0, false, false // attributes are separated by space
		}
		e := identEnd(s, k)
		if e == k {
			return nil, 0, false, false
		}
		name := strings.ToLower(s[k:e])
		value := ""
		if e < len(s) && s[e] == '=' {
			if e+1 >= len(s) || (s[e+1] != '"' && s[e+1] != '\'') {
				return nil, 0, false, false // only quoted values
			}
			q := strings.IndexByte(s[e+2:], s[e+1])
			if q < 0 {
				return nil, 0, false, false
			}
			value = s[e+2 : e+2+q]
			e += q + 3
		}
		for _, a := range attrs {
			if strings.HasPrefix(a, name+"=") {
				return nil, 0, false, false // an attribute given twice
			}
		}
		attrs = append(attrs, name+"="+value)
		j = e
	}
}

// fluentHTMLVariants parses every variant of every part as inner HTML.
func fluentHTMLVariants(ps []flPart) (map[string][][]string, bool) {
	out := map[string][][]string{}
	for _, p := range ps {
		for _, v := range flVariants(p.pattern) {
			nodes, ok := parseInnerHTML(v.text)
			if !ok {
				return nil, false
			}
			out[p.name] = append(out[p.name], nodes)
		}
	}
	return out, true
}

func fluentSourceInnerHTML(u Unit) bool {
	if fluentSourceTooLong(u) {
		return false
	}
	for _, s := range u.Source {
		ps, ok := parseFluent(s, fluentTerm(u))
		if !ok {
			continue
		}
		if _, ok := fluentHTMLVariants(ps); !ok {
			return true
		}
	}
	return false
}

func fluentTargetInnerHTML(u Unit) bool {
	return fluentPair(u, func(src, tgt []flPart) bool {
		tv, ok := fluentHTMLVariants(tgt)
		if !ok {
			return true
		}
		sv, ok := fluentHTMLVariants(src)
		if !ok {
			return false // the source's own problem (fluent-source-inner-html)
		}
		for name, variants := range tv {
			for _, v := range variants {
				if !slices.ContainsFunc(sv[name], func(o []string) bool { return slices.Equal(o, v) }) {
					return true
				}
			}
		}
		for name, variants := range sv {
			if _, ok := tv[name]; !ok {
				continue // a missing part is fluent-parts' to report
			}
			for _, v := range variants {
				if !slices.ContainsFunc(tv[name], func(o []string) bool { return slices.Equal(o, v) }) {
					return true
				}
			}
		}
		return false
	})
}

var _ = register(nil, map[string]whole{
	"fluent-source-syntax":     fluentSourceSyntax,
	"fluent-source-inner-html": fluentSourceInnerHTML,
	"fluent-target-syntax":     fluentTargetSyntax,
	"fluent-parts":             fluentParts,
	"fluent-references":        fluentReferences,
	"fluent-target-inner-html": fluentTargetInnerHTML,
})
