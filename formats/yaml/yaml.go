package yaml

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	yamlv3 "go.yaml.in/yaml/v3"

	"github.com/tolk-project/tolk/formats"
)

// Codec reads and writes YAML translation files. The zero value is plain
// YAML ("yaml"); Ruby is Rails i18n YAML ("ruby-yaml"). A Codec keeps no
// state and is safe for concurrent use.
type Codec struct {
	// Ruby says the file is Rails i18n YAML: a single top-level key
	// naming the language, whose subtree holds the strings, and mappings
	// whose keys are all CLDR plural categories are plural units.
	Ruby bool
}

// The codecs of the reference's two file_format ids.
var (
	Plain = Codec{}           // "yaml"
	Ruby  = Codec{Ruby: true} // "ruby-yaml"
)

var (
	_ formats.Codec     = Codec{}
	_ formats.Templater = Codec{}
)

// Separator joins the keys of nested mappings into a unit's context, as
// translate-toolkit's YAMLUnitId does ("admins->stats->week"); a
// sequence item adds "->[i]".
const Separator = "->"

// FlagReadOnly marks units reached through an alias: their text belongs
// to the anchor, so Apply refuses to write them.
const FlagReadOnly = "read-only"

// Errors of the package. Decode wraps parse failures in a
// *formats.ParseError; Apply returns the others as they are.
var (
	ErrTopLevel  = errors.New("yaml: top level is not a mapping")
	ErrAlias     = errors.New("yaml: the unit's value is an alias; edit the anchor instead")
	ErrLayout    = errors.New("yaml: cannot write the value in place")
	ErrPlural    = errors.New("yaml: plural forms do not match the unit")
	ErrCharacter = errors.New("yaml: character not allowed in YAML")
)

// pluralCategories are the CLDR plural categories, the only keys of a
// Rails plural hash (translate-toolkit's cldr_plural_categories).
var pluralCategories = map[string]bool{"zero": true, "one": true, "two": true, "few": true, "many": true, "other": true}

// unit is one unit of a parsed file.
type unit struct {
	ctx      string
	key      *yamlv3.Node // the mapping key, nil for a sequence item
	value    *yamlv3.Node // a scalar, or a plural mapping
	parent   *yamlv3.Node // the mapping or sequence holding it
	plural   bool
	alias    bool
	dead     bool // a later unit has the same context
	forms    []string
	fromLine int
}

// doc is a parsed file.
type doc struct {
	c     Codec
	src   string
	off   int   // bytes before the YAML text (a byte order mark)
	lines []int // offsets in src of each line's start
	eol   string
	top   *yamlv3.Node // the top-level node, nil for an empty document
	null  *yamlv3.Node // the top-level node when it is null ("~"), or nil
	base  *yamlv3.Node // the mapping whose subtree holds the units
	lang  *yamlv3.Node // the language key of a Ruby file, or nil
	units []unit
	index map[string]int
	// parents maps each mapping and sequence to its parent collection,
	// and each collection's key node, to find indentation and ends.
	parents map[*yamlv3.Node]*yamlv3.Node
	keys    map[*yamlv3.Node]*yamlv3.Node
	plurals []string
}

// lineRe finds the line yaml.v3 names in its error messages.
var lineRe = regexp.MustCompile(`line (\d+)`)

// parse reads data. plurals are the target language's CLDR categories.
func (c Codec) parse(data []byte, plurals []string) (d *doc, err error) {
	if !utf8.Valid(data) {
		off := 0
		for off < len(data) {
			r, n := utf8.DecodeRune(data[off:])
			if r == utf8.RuneError && n <= 1 {
				break
			}
			off += n
		}
		line := 1 + bytes.Count(data[:off], []byte("\n"))
		col := utf8.RuneCount(data[bytes.LastIndexByte(data[:off], '\n')+1:off]) + 1
		return nil, &formats.ParseError{Line: line, Column: col, Err: errors.New("yaml: invalid UTF-8")}
	}
	if i := unprintable(data); i >= 0 {
		// YAML allows only these characters; yaml.v3 checks them
		// unevenly (it takes a NUL for the end of the input and lets a
		// DEL through depending on where its buffer ends).
		line := 1 + bytes.Count(data[:i], []byte("\n"))
		col := utf8.RuneCount(data[bytes.LastIndexByte(data[:i], '\n')+1:i]) + 1
		return nil, &formats.ParseError{Line: line, Column: col, Err: ErrCharacter}
	}
	if len(plurals) == 0 {
		plurals = []string{"one", "other"}
	}
	d = &doc{c: c, src: string(data), eol: "\n", index: map[string]int{}, plurals: plurals,
		parents: map[*yamlv3.Node]*yamlv3.Node{}, keys: map[*yamlv3.Node]*yamlv3.Node{}}
	if strings.HasPrefix(d.src, "\uFEFF") {
		d.off = 3
	}
	if i := strings.IndexByte(d.src, '\n'); i > 0 && d.src[i-1] == '\r' {
		d.eol = "\r\n"
	}
	d.lines = append(d.lines, 0)
	for i := 0; i < len(d.src); i++ {
		if d.src[i] == '\n' {
			d.lines = append(d.lines, i+1)
		}
	}
	var root yamlv3.Node
	defer func() {
		// yaml.v3 has panicked on hostile input before; a file must never
		// take the process down.
		if r := recover(); r != nil {
			d, err = nil, &formats.ParseError{Line: 1, Column: 1, Err: fmt.Errorf("yaml: %v", r)}
		}
	}()
	if err := yamlv3.Unmarshal([]byte(d.src[d.off:]), &root); err != nil {
		line := 1
		if m := lineRe.FindStringSubmatch(err.Error()); m != nil {
			line, _ = strconv.Atoi(m[1])
		}
		return nil, &formats.ParseError{Line: line, Column: 1, Err: err}
	}
	if root.Kind == yamlv3.DocumentNode && len(root.Content) == 1 {
		d.top = root.Content[0]
	}
	if d.top == nil || d.top.Kind == yamlv3.ScalarNode && d.top.Tag == "!!null" {
		d.null, d.top = d.top, nil
		return d, nil
	}
	if d.top.Kind != yamlv3.MappingNode {
		return nil, &formats.ParseError{Line: d.top.Line, Column: d.top.Column, Err: ErrTopLevel}
	}
	d.base = d.top
	if c.Ruby && len(d.top.Content) == 2 && d.top.Content[0].Tag == "!!str" {
		v := d.top.Content[1]
		if v.Kind == yamlv3.MappingNode || v.Kind == yamlv3.ScalarNode && v.Tag == "!!null" {
			d.lang, d.base = d.top.Content[0], v
			d.parents[v], d.parents[d.lang] = d.top, d.top
			d.keys[v] = d.lang
		}
	}
	if d.base.Kind == yamlv3.MappingNode {
		d.walk(d.base, "", false, 0)
	}
	return d, nil
}

// walk records the units below n, whose context is prefix.
func (d *doc) walk(n *yamlv3.Node, prefix string, alias bool, depth int) {
	if depth > 100 {
		return // aliases can make a small file a deep tree
	}
	join := func(k string) string {
		if prefix == "" {
			return k
		}
		return prefix + Separator + k
	}
	switch n.Kind {
	case yamlv3.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Value == "<<" && k.Tag == "!!merge" {
				continue // merged keys are read where they are defined
			}
			d.child(n, k, v, join(k.Value), alias, depth)
		}
	case yamlv3.SequenceNode:
		for i, v := range n.Content {
			d.child(n, nil, v, join("["+strconv.Itoa(i)+"]"), alias, depth)
		}
	}
}

// child records one member of the collection parent.
func (d *doc) child(parent, k, v *yamlv3.Node, ctx string, alias bool, depth int) {
	if !alias {
		d.parents[v] = parent
		if k != nil {
			d.keys[v] = k
			d.parents[k] = parent
		}
	}
	if v.Kind == yamlv3.AliasNode {
		alias = true
		if v = v.Alias; v == nil {
			return
		}
	}
	line := v.Line
	if k != nil {
		line = k.Line
	}
	switch {
	case v.Kind == yamlv3.ScalarNode:
		if v.Tag == "!!null" {
			return
		}
		d.add(unit{ctx: ctx, key: k, value: v, parent: parent, alias: alias, forms: []string{v.Value}, fromLine: line})
	case d.c.Ruby && isPlural(v):
		forms := make([]string, len(d.plurals))
		some := false
		for i := 0; i+1 < len(v.Content); i += 2 {
			if v.Content[i+1].Tag == "!!null" {
				continue
			}
			some = true
			for j, cat := range d.plurals {
				if v.Content[i].Value == cat {
					forms[j] = v.Content[i+1].Value
				}
			}
		}
		if some {
			d.add(unit{ctx: ctx, key: k, value: v, parent: parent, plural: true, alias: alias, forms: forms, fromLine: line})
		}
	default:
		d.walk(v, ctx, alias, depth+1)
	}
}

func (d *doc) add(u unit) {
	if i, ok := d.index[u.ctx]; ok {
		d.units[i].dead = true
	}
	d.index[u.ctx] = len(d.units)
	d.units = append(d.units, u)
}

// unprintable returns the offset of the first character of data outside
// YAML's c-printable set (a byte order mark at the start aside), or -1.
func unprintable(data []byte) int {
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		switch {
		case r == '\t' || r == '\n' || r == '\r' || r == 0x85:
		case r < 0x20 || r >= 0x7F && r < 0xA0:
			return i
		case r == 0xFEFF && i > 0, r == 0xFFFE, r == 0xFFFF:
			return i
		}
		i += n
	}
	return -1
}

// isPlural says n is a Rails plural hash: a non-empty mapping whose keys
// are all CLDR plural categories and whose values are all scalars.
func isPlural(n *yamlv3.Node) bool {
	if n.Kind != yamlv3.MappingNode || len(n.Content) == 0 {
		return false
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if !pluralCategories[n.Content[i].Value] || n.Content[i+1].Kind != yamlv3.ScalarNode {
			return false
		}
	}
	return true
}

// note returns the comment lines directly above a key, without their
// "#" and one following space.
func note(k *yamlv3.Node) string {
	if k == nil || k.HeadComment == "" {
		return ""
	}
	lines := strings.Split(k.HeadComment, "\n")
	// yaml.v3 keeps comment blocks separated by blank lines together;
	// only the last block is directly above the key.
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.TrimSpace(lines[i]) == "" {
			lines = lines[i+1:]
			break
		}
	}
	for i, l := range lines {
		l = strings.TrimPrefix(strings.TrimSpace(l), "#")
		lines[i] = strings.TrimPrefix(l, " ")
	}
	return strings.Join(lines, "\n")
}

// Decode returns the file's units in file order. Context is the path of
// keys from the top (for Ruby YAML, below the language key) joined by
// "->", with "->[i]" for sequence items; Target the scalar's value, or for
// a Ruby plural hash one form per category of f.Target.Plurals ("" for a
// category the hash lacks; categories the language does not use, such as
// Rails' "zero" in English, are not read); Note the comment lines directly
// above the key; Line the key's line. Null values are no units. A unit
// reached through an alias has the flag "read-only". A repeated key is
// one unit, the last. Malformed YAML is a *formats.ParseError; yaml.v3
// reports lines but not columns, so Column is 1.
func (c Codec) Decode(data []byte, f formats.File) ([]formats.Unit, error) {
	d, err := c.parse(data, f.Target.Plurals)
	if err != nil {
		return nil, err
	}
	units := make([]formats.Unit, 0, len(d.index))
	for _, u := range d.units {
		if u.dead {
			continue
		}
		fu := formats.Unit{Context: u.ctx, Target: u.forms, Note: note(u.key), Line: u.fromLine}
		if u.key == nil {
			fu.Note = note(u.value)
		}
		if u.alias {
			fu.Flags = []string{FlagReadOnly}
		}
		units = append(units, fu)
	}
	return units, nil
}
