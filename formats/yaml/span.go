package yaml

import (
	"strings"
	"unicode/utf8"

	yamlv3 "go.yaml.in/yaml/v3"
)

// offset returns the byte offset in d.src of a node's 1-based line and
// column (yaml.v3 counts columns in characters).
func (d *doc) offset(line, col int) int {
	if line < 1 || line > len(d.lines) {
		return len(d.src)
	}
	i := d.lines[line-1]
	if line == 1 {
		i += d.off
	}
	for c := 1; c < col && i < len(d.src) && d.src[i] != '\n'; c++ {
		_, n := utf8.DecodeRuneInString(d.src[i:])
		i += n
	}
	return i
}

// lineEnd returns the offset of the end of the line holding i, before
// its "\r\n" or "\n".
func (d *doc) lineEnd(i int) int {
	j := strings.IndexByte(d.src[i:], '\n')
	if j < 0 {
		return len(d.src)
	}
	j += i
	if j > i && d.src[j-1] == '\r' {
		j--
	}
	return j
}

// lineStart returns the offset of the start of the line holding i.
func (d *doc) lineStart(i int) int { return strings.LastIndexByte(d.src[:i], '\n') + 1 }

// indentOf returns the number of spaces that start the line holding i.
func (d *doc) indentOf(i int) int {
	s := d.lineStart(i)
	n := 0
	for s+n < len(d.src) && d.src[s+n] == ' ' {
		n++
	}
	return n
}

// start returns the offset of the node's text, past any anchor ("&a")
// and tag ("!!str") in front of it.
func (d *doc) start(n *yamlv3.Node) int {
	i := d.offset(n.Line, n.Column)
	for i < len(d.src) && (d.src[i] == '&' || d.src[i] == '!') {
		for i < len(d.src) && d.src[i] != ' ' && d.src[i] != '\t' && d.src[i] != '\n' && d.src[i] != '\r' {
			i++
		}
		for i < len(d.src) && (d.src[i] == ' ' || d.src[i] == '\t') {
			i++
		}
	}
	return i
}

// inFlow says n sits inside a flow collection ([…] or {…}).
func (d *doc) inFlow(n *yamlv3.Node) bool {
	for p := d.parents[n]; p != nil; p = d.parents[p] {
		if p.Style&yamlv3.FlowStyle != 0 {
			return true
		}
	}
	return false
}

// span returns the byte range of a scalar's text: quotes included, a
// block scalar from its indicator to the end of its last non-blank line,
// a plain scalar without trailing spaces or comment. ok is false when the
// text cannot be found.
func (d *doc) span(n *yamlv3.Node) (start, end int, ok bool) {
	if n.Kind != yamlv3.ScalarNode {
		return 0, 0, false
	}
	s := d.start(n)
	if s >= len(d.src) {
		return s, s, n.Value == "" && n.Style == 0
	}
	src := d.src
	switch {
	case n.Style&yamlv3.DoubleQuotedStyle != 0:
		for i := s + 1; i < len(src); i++ {
			switch src[i] {
			case '\\':
				i++
			case '"':
				return s, i + 1, true
			}
		}
		return 0, 0, false
	case n.Style&yamlv3.SingleQuotedStyle != 0:
		for i := s + 1; i < len(src); i++ {
			if src[i] == '\'' {
				if i+1 < len(src) && src[i+1] == '\'' {
					i++
					continue
				}
				return s, i + 1, true
			}
		}
		return 0, 0, false
	case n.Style&(yamlv3.LiteralStyle|yamlv3.FoldedStyle) != 0:
		return s, d.blockEnd(s), true
	}
	return s, d.plainEnd(s, d.inFlow(n)), true
}

// blockEnd returns the end of a block scalar whose indicator is at s:
// the end of its last non-blank content line.
func (d *doc) blockEnd(s int) int {
	end := d.lineEnd(s)
	if c := strings.Index(d.src[s:end], " #"); c >= 0 {
		end = s + c
	}
	end = s + len(strings.TrimRight(d.src[s:end], " \t"))
	parent := d.indentOf(s)
	content := -1
	for ln := d.lineAfter(s); ln < len(d.src); ln = d.lineAfter(ln) {
		le := d.lineEnd(ln)
		text := d.src[ln:le]
		trimmed := strings.TrimLeft(text, " ")
		ind := len(text) - len(trimmed)
		if strings.TrimSpace(text) == "" {
			continue
		}
		if content < 0 {
			if ind <= parent {
				break
			}
			content = ind
		}
		if ind < content {
			break
		}
		end = le
	}
	return end
}

// lineAfter returns the start of the line after the one holding i, or
// len(d.src).
func (d *doc) lineAfter(i int) int {
	j := strings.IndexByte(d.src[i:], '\n')
	if j < 0 {
		return len(d.src)
	}
	return i + j + 1
}

// plainEnd returns the end of a plain scalar starting at s: the end of
// its first line, or of the last more-indented continuation line, before
// a comment and trailing spaces.
func (d *doc) plainEnd(s int, flow bool) int {
	cut := func(from, to int) int {
		text := d.src[from:to]
		for i := 0; i < len(text); i++ {
			switch text[i] {
			case '#':
				if i > 0 && (text[i-1] == ' ' || text[i-1] == '\t') {
					text = text[:i]
				}
			case ',', ']', '}':
				if flow {
					text = text[:i]
				}
			case ':':
				// ": " ends a plain key, and in flow context ":," too.
				if i+1 == len(text) || text[i+1] == ' ' || text[i+1] == '\t' || flow && text[i+1] == ',' {
					text = text[:i]
				}
			}
		}
		return from + len(strings.TrimRight(text, " \t"))
	}
	le := d.lineEnd(s)
	end := cut(s, le)
	if flow || end < le {
		return end // a comment ends the scalar
	}
	parent := d.indentOf(s)
	for ln := d.lineAfter(s); ln < len(d.src); ln = d.lineAfter(ln) {
		le := d.lineEnd(ln)
		text := d.src[ln:le]
		trimmed := strings.TrimLeft(text, " \t")
		if trimmed == "" {
			continue
		}
		if len(text)-len(trimmed) <= parent || trimmed[0] == '#' {
			break
		}
		e := cut(ln+len(text)-len(trimmed), le)
		end = e
		if e < le-len(text)+len(strings.TrimRight(text, " \t")) {
			break // a comment ends it
		}
	}
	return end
}

// subtreeEnd returns the end of the last line of n's text, a whole
// collection's included.
func (d *doc) subtreeEnd(n *yamlv3.Node) int {
	for n.Kind == yamlv3.MappingNode || n.Kind == yamlv3.SequenceNode {
		if n.Style&yamlv3.FlowStyle != 0 {
			return d.lineEnd(d.start(n))
		}
		if len(n.Content) == 0 {
			return d.lineEnd(d.start(n))
		}
		n = n.Content[len(n.Content)-1]
	}
	if n.Kind == yamlv3.AliasNode {
		return d.lineEnd(d.start(n))
	}
	if _, end, ok := d.span(n); ok {
		return d.lineEnd(end)
	}
	return d.lineEnd(d.start(n))
}
