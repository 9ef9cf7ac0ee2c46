package checks

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ICU MessageFormat (flag icu-message-format; reference §1.3, Weblate's
// checks/icu.py over pyicumessageformat). ARB and FormatJS files set the
// flag. The parser below is permissive as Weblate configures its parser:
// spaces are allowed inside placeholders, any argument type may carry
// sub-messages, and "other" is not required by the parser (the check
// reports it). Tags (<b>…</b>, <br/>) are parsed only under
// icu-flags:xml or icu-flags:strict-xml; icu-tag-prefix:P limits them to
// names starting with P (not under strict-xml).
//
// icu-flags also switches parts of the comparison off: -extra, -missing,
// -types, -require_other, -plural_selectors, -submessage_selectors and
// -tags, as in Weblate.

var _ = register(nil, map[string]whole{
	"icu_message_format":        icuMessageFormat,
	"icu_message_format_syntax": icuSourceSyntax,
})

// icuMaxDepth bounds nesting (sub-messages and tags): deeper input is a
// syntax error rather than a deep recursion.
const icuMaxDepth = 100

// tri is a value that may be unset, set, or set to conflicting values
// (Weblate's update_maybe_value: None, True/False, 0).
type tri uint8

const (
	triUnset tri = iota
	triFalse
	triTrue
	triConflict
)

func (t tri) update(v bool) tri {
	n := triFalse
	if v {
		n = triTrue
	}
	if t == triUnset || t == n {
		return n
	}
	return triConflict
}

// icuVar summarises one argument name across a message.
type icuVar struct {
	types     []string // argument types used ("number", "plural", …)
	isNumber  tri
	isTag     tri
	isEmpty   tri
	choices   []string // sub-message selectors, all uses together
	badPlural bool     // a plural/selectordinal selector that is not CLDR or =N
}

// icuParser parses one message into its arguments.
type icuParser struct {
	s      string
	i      int
	tags   bool   // parse <tag> … </tag>
	strict bool   // every < starts a tag
	prefix string // tags must start with it (non-strict only)
	vars   map[string]*icuVar
	closed int // where the last closing tag read started
}

type icuOptions struct {
	tags, strict bool
	prefix       string
}

func icuOptionsOf(f Flags) icuOptions {
	fl := f.params["icu-flags"]
	o := icuOptions{strict: slices.Contains(fl, "strict-xml")}
	o.tags = o.strict || slices.Contains(fl, "xml")
	if p := f.params["icu-tag-prefix"]; len(p) == 1 && !o.strict {
		o.prefix = p[0]
	}
	return o
}

// parseICU returns the arguments of s, or a syntax error.
func parseICU(s string, o icuOptions) (map[string]*icuVar, error) {
	p := &icuParser{s: s, tags: o.tags, strict: o.strict, prefix: o.prefix, vars: map[string]*icuVar{}}
	if err := p.message(0, "", ""); err != nil {
		return nil, err
	}
	if p.i < len(p.s) { // a "}" the top level does not expect
		return nil, p.errorf("unexpected }")
	}
	return p.vars, nil
}

func (p *icuParser) errorf(format string, args ...any) error {
	return fmt.Errorf("icu: %s at offset %d", fmt.Sprintf(format, args...), p.i)
}

func (p *icuParser) touch(name string) *icuVar {
	v, ok := p.vars[name]
	if !ok {
		v = &icuVar{}
		p.vars[name] = v
	}
	return v
}

func (p *icuParser) skipSpace() {
	for p.i < len(p.s) {
		r, n := utf8.DecodeRuneInString(p.s[p.i:])
		if !unicode.IsSpace(r) {
			return
		}
		p.i += n
	}
}

// message parses text up to a "}" (left unread) when depth > 0, up to
// "</tag>" (left unread) when inTag is set, or to the end. plural is the
// argument "#" stands for, "" outside plural sub-messages.
func (p *icuParser) message(depth int, plural, inTag string) error {
	if depth > icuMaxDepth {
		return p.errorf("nested too deeply")
	}
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == '\'':
			p.quote(plural != "")
		case c == '{':
			if err := p.argument(depth+1, plural); err != nil {
				return err
			}
		case c == '}':
			switch {
			case inTag != "":
				return p.errorf("expected </%s>", inTag)
			case depth == 0:
				return p.errorf("unexpected }")
			}
			return nil // the caller reads the "}"
		case c == '#' && plural != "":
			p.touch(plural) // "#" is the plural's number
			p.i++
		case c == '<' && p.tags:
			done, err := p.tag(depth, plural, inTag)
			if err != nil || done {
				return err // done: inTag's closing tag was read
			}
		default:
			p.i++
		}
	}
	if inTag != "" {
		return p.errorf("expected </%s>", inTag)
	}
	if depth > 0 {
		return p.errorf("expected }")
	}
	return nil
}

// quote skips ICU apostrophe quoting: ” is one apostrophe; a ' before
// { } | (and # in a plural, < with tags) quotes up to the next lone ';
// any other ' is literal. An unterminated quote runs to the end, as in
// ICU.
func (p *icuParser) quote(inPlural bool) {
	p.i++ // the '
	if p.i >= len(p.s) {
		return
	}
	c := p.s[p.i]
	switch {
	case c == '\'':
		p.i++
		return
	case c == '{' || c == '}' || c == '|' || c == '#' && inPlural || c == '<' && p.tags:
	default:
		return // a literal apostrophe ("don't")
	}
	for p.i < len(p.s) {
		if p.s[p.i] == '\'' {
			if p.i+1 < len(p.s) && p.s[p.i+1] == '\'' {
				p.i += 2
				continue
			}
			p.i++
			return
		}
		p.i++
	}
}

// argument parses {name}, {name, type}, {name, type, style} and
// {name, type, selector {message} …}; p.i is at the "{".
func (p *icuParser) argument(depth int, plural string) error {
	if depth > icuMaxDepth {
		return p.errorf("nested too deeply")
	}
	p.i++
	p.skipSpace()
	start := p.i
	for p.i < len(p.s) {
		r, n := utf8.DecodeRuneInString(p.s[p.i:])
		if unicode.IsSpace(r) || r == ',' || r == '{' || r == '}' {
			break
		}
		p.i += n
	}
	name := p.s[start:p.i]
	if name == "" {
		return p.errorf("expected placeholder name")
	}
	p.skipSpace()
	if p.i >= len(p.s) {
		return p.errorf("expected , or }")
	}
	switch p.s[p.i] {
	case '}':
		p.i++
		p.touch(name)
		return nil
	case ',':
		p.i++
	default:
		return p.errorf("expected , or }")
	}
	p.skipSpace()
	start = p.i
	for p.i < len(p.s) && (isLetterByte(p.s[p.i]) || p.s[p.i] >= '0' && p.s[p.i] <= '9' || p.s[p.i] == '_') {
		p.i++
	}
	typ := p.s[start:p.i]
	if typ == "" {
		return p.errorf("expected placeholder type")
	}
	v := p.touch(name)
	v.isTag = v.isTag.update(false)
	if !slices.Contains(v.types, typ) {
		v.types = append(v.types, typ)
	}
	v.isNumber = v.isNumber.update(typ == "number" || typ == "plural" || typ == "selectordinal")
	p.skipSpace()
	if p.i >= len(p.s) {
		return p.errorf("expected , or }")
	}
	switch p.s[p.i] {
	case '}':
		p.i++
		return nil
	case ',':
		p.i++
	default:
		return p.errorf("expected , or }")
	}
	p.skipSpace()
	switch {
	case typ == "plural" || typ == "selectordinal":
		if strings.HasPrefix(p.s[p.i:], "offset:") {
			p.i += len("offset:")
			p.skipSpace()
			n := p.i
			for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
				p.i++
			}
			if p.i == n {
				return p.errorf("expected offset number")
			}
		}
		return p.submessages(depth, name, v, true)
	case typ == "select" || p.looksLikeSubmessage():
		return p.submessages(depth, name, v, false)
	}
	return p.style()
}

// looksLikeSubmessage: a selector word followed by "{", which Weblate's
// loose_submessages accepts after any type ("{n, test, one {…}}").
func (p *icuParser) looksLikeSubmessage() bool {
	j := p.i
	for j < len(p.s) && p.s[j] != '{' && p.s[j] != '}' && !unicode.IsSpace(rune(p.s[j])) {
		j++
	}
	if j == p.i {
		return false
	}
	for j < len(p.s) && unicode.IsSpace(rune(p.s[j])) {
		j++
	}
	return j < len(p.s) && p.s[j] == '{'
}

// style skips an argument style ("::currency/USD", "short") to the
// closing "}", balancing braces and honouring quotes.
func (p *icuParser) style() error {
	open := 0
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case '\'':
			p.quote(false)
			continue
		case '{':
			open++
		case '}':
			if open == 0 {
				p.i++
				return nil
			}
			open--
		}
		p.i++
	}
	return p.errorf("expected }")
}

// submessages parses "selector {message} …}" up to and including the
// argument's closing "}".
func (p *icuParser) submessages(depth int, name string, v *icuVar, plural bool) error {
	count := 0
	for {
		p.skipSpace()
		if p.i >= len(p.s) {
			return p.errorf("expected }")
		}
		if p.s[p.i] == '}' {
			if count == 0 {
				return p.errorf("expected sub-message")
			}
			p.i++
			return nil
		}
		start := p.i
		for p.i < len(p.s) {
			r, n := utf8.DecodeRuneInString(p.s[p.i:])
			if unicode.IsSpace(r) || r == '{' || r == '}' {
				break
			}
			p.i += n
		}
		sel := p.s[start:p.i]
		if sel == "" {
			return p.errorf("expected sub-message selector")
		}
		p.skipSpace()
		if p.i >= len(p.s) || p.s[p.i] != '{' {
			return p.errorf("expected {")
		}
		p.i++
		if !slices.Contains(v.choices, sel) {
			v.choices = append(v.choices, sel)
		}
		if plural && !validPluralSelector(sel) {
			v.badPlural = true
		}
		inner := ""
		if plural {
			inner = name
		}
		if err := p.message(depth+1, inner, ""); err != nil {
			return err
		}
		p.i++ // the sub-message's "}"
		count++
	}
}

func validPluralSelector(s string) bool {
	switch s {
	case "zero", "one", "two", "few", "many", "other":
		return true
	}
	return strings.HasPrefix(s, "=")
}

// tag parses <name/>, <name>…</name>, or a closing tag; p.i is at "<".
// done reports that it read the closing tag of inTag, which ends the
// caller's message. Outside strict-xml, what is not a tag (I <3 you, a
// name without the icu-tag-prefix, a stray closing tag) is text.
func (p *icuParser) tag(depth int, plural, inTag string) (done bool, err error) {
	start := p.i
	closing := strings.HasPrefix(p.s[p.i:], "</")
	j := p.i + 1
	if closing {
		j++
	}
	k := j
	for k < len(p.s) {
		r, n := utf8.DecodeRuneInString(p.s[k:])
		if p.strict {
			if unicode.IsSpace(r) || r == '>' || r == '/' {
				break
			}
		} else if !(unicode.IsLetter(r) || k > j && (unicode.IsDigit(r) || strings.ContainsRune("-_.:", r))) {
			break
		}
		k += n
	}
	name := p.s[j:k]
	if !p.strict && (name == "" || !strings.HasPrefix(name, p.prefix)) {
		p.i++ // not a tag: "<" is text
		return false, nil
	}
	if name == "" {
		p.i = k
		return false, p.errorf("expected tag name")
	}
	p.i = k
	p.skipSpace()
	if closing {
		if p.i >= len(p.s) || p.s[p.i] != '>' {
			if !p.strict {
				p.i = start + 1
				return false, nil
			}
			return false, p.errorf("expected >")
		}
		if name != inTag {
			if !p.strict {
				p.i = start + 1
				return false, nil
			}
			return false, p.errorf("unexpected </%s>", name)
		}
		p.closed = start
		p.i++
		return true, nil
	}
	empty := false
	switch {
	case strings.HasPrefix(p.s[p.i:], "/>"):
		p.i += 2
		empty = true
	case p.i < len(p.s) && p.s[p.i] == '>':
		p.i++
	default:
		if !p.strict {
			p.i = start + 1
			return false, nil
		}
		return false, p.errorf("expected > or />")
	}
	v := p.touch(name)
	v.isTag = v.isTag.update(true)
	if !empty {
		if depth+1 > icuMaxDepth {
			return false, p.errorf("nested too deeply")
		}
		body := p.i
		if err := p.message(depth+1, plural, name); err != nil {
			return false, err
		}
		// message read the closing tag; the contents end where it starts.
		empty = strings.TrimSpace(p.s[body:p.closed]) == ""
	}
	v.isEmpty = v.isEmpty.update(empty)
	return false, nil
}

// icuDiffers is Weblate's ICUMessageFormatCheck.check_format for one
// source and target form.
func icuDiffers(s, t string, o icuOptions, off func(string) bool) bool {
	if s == "" || t == "" {
		return false
	}
	tv, err := parseICU(t, o)
	if err != nil {
		return true // the target does not parse
	}
	sv, err := parseICU(s, o)
	if err != nil {
		return false // nothing to compare with
	}
	for name, v := range tv {
		if !off("-require_other") && len(v.choices) > 0 && !slices.Contains(v.choices, "other") {
			return true
		}
		src, ok := sv[name]
		if !ok {
			if !off("-extra") {
				return true
			}
			continue
		}
		if !off("-plural_selectors") && v.badPlural {
			return true
		}
		if !off("-submessage_selectors") && slices.Contains(v.types, "select") && slices.Contains(src.types, "select") &&
			len(v.choices) > 0 && len(src.choices) > 0 {
			for _, c := range v.choices {
				if !slices.Contains(src.choices, c) {
					return true
				}
			}
		}
		if !off("-types") && wrongICUType(src, v) {
			return true
		}
		if o.tags && !off("-tags") && wrongICUTag(src, v) {
			return true
		}
	}
	if !off("-missing") {
		for name := range sv {
			if _, ok := tv[name]; !ok {
				return true
			}
		}
	}
	return false
}

// wrongICUType: a numeric source argument must stay numeric (number,
// plural and selectordinal are interchangeable); otherwise every type
// the target uses must be one the source uses.
func wrongICUType(src, tgt *icuVar) bool {
	if src.isNumber == triTrue {
		return tgt.isNumber != triTrue
	}
	for _, t := range tgt.types {
		if !slices.Contains(src.types, t) {
			return true
		}
	}
	return false
}

// wrongICUTag: a tag in the source must stay a tag, empty or not as in
// the source; a placeholder must not become a tag.
func wrongICUTag(src, tgt *icuVar) bool {
	if src.isTag != triFalse && src.isTag != triTrue && tgt.isTag == triUnset {
		return false
	}
	if src.isTag == triTrue {
		if tgt.isTag != triTrue {
			return true
		}
		return (src.isEmpty == triTrue || src.isEmpty == triFalse) && src.isEmpty != tgt.isEmpty
	}
	return tgt.isTag == triTrue
}

// icuMessageFormat: a target form does not parse, or its arguments differ
// from its source form's.
func icuMessageFormat(u Unit) bool {
	o := icuOptionsOf(u.Flags)
	fl := u.Flags.params["icu-flags"]
	off := func(f string) bool { return slices.Contains(fl, f) }
	return eachPair(u, func(s, t, _ string) bool { return icuDiffers(s, t, o, off) })
}

// icuSourceSyntax (source check): the first source form does not parse.
func icuSourceSyntax(u Unit) bool {
	if len(u.Source) == 0 || u.Source[0] == "" {
		return false
	}
	_, err := parseICU(u.Source[0], icuOptionsOf(u.Flags))
	return err != nil
}
