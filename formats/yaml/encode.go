package yaml

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	yamlv3 "go.yaml.in/yaml/v3"

	"github.com/tolk-project/tolk/formats"
)

// newFile is what the reference writes for a new translation without a
// template for new translations (YAMLFormat.new_translation).
const newFile = "{}\n"

// patch replaces src[start:end] with text. Insertions at the same offset
// go deepest mapping first, so a nested mapping's new keys stay inside it.
type patch struct {
	start, end int
	text       string
	depth      int
}

// tree is what Apply inserts under one mapping: keys in edit order, each
// a nested tree, a scalar or a plural hash.
type tree struct {
	keys   []string
	kids   map[string]*tree
	leaf   bool
	value  string
	plural [][2]string // category, form
}

func (t *tree) child(k string) *tree {
	if t.kids == nil {
		t.kids = map[string]*tree{}
	}
	c, ok := t.kids[k]
	if !ok {
		c = &tree{}
		t.kids[k] = c
		t.keys = append(t.keys, k)
	}
	return c
}

// Apply writes edits into data. An edited scalar's text is replaced in
// its own style (plain, single-quoted, double-quoted, literal "|" or
// "|-") when the new value reads back the same in it, and double-quoted
// otherwise; an unchanged value is not touched. A Ruby plural edit has
// one form per category of f.Target.Plurals: each form replaces its
// category's value, and a category the hash lacks is added to it (an
// empty one is not); categories the language does not use stay. A unit
// the file lacks is added at the end of the deepest mapping on its path,
// as nested keys at that mapping's indentation, in the file's prevailing
// quoting (double quotes when most values have them, else plain where
// that reads back); an edit with only empty forms for a missing unit is
// skipped. When edits repeat a context the last wins.
//
// Apply returns ErrAlias for a unit whose value is an alias (the text
// belongs to its anchor, which may have other users), ErrPlural when the
// forms do not fit the unit (several forms for a scalar, a plural edit's
// forms not one per category), and ErrLayout when the value's text cannot
// be located safely or a new key would go into a flow mapping, a
// sequence or under a scalar. Nil data (or a file with no mapping yet)
// becomes a new file: "{}\n", the reference's, without edits; with them
// for Ruby YAML a document whose single top-level key is the language as
// the file's path spells it (rootKey).
func (c Codec) Apply(data []byte, f formats.File, edits []formats.Edit) ([]byte, error) {
	d, err := c.parse(data, f.Target.Plurals)
	if err != nil {
		return nil, err
	}
	last := make(map[string]int, len(edits))
	for i, e := range edits {
		last[e.Context] = i
	}
	var patches []patch
	inserts := map[*yamlv3.Node]*tree{}
	fresh := &tree{}
	for i, e := range edits {
		if last[e.Context] != i {
			continue
		}
		ps, err := d.edit(e, inserts, fresh)
		if err != nil {
			return nil, fmt.Errorf("%w (unit %q)", err, e.Context)
		}
		patches = append(patches, ps...)
	}
	for m, t := range inserts {
		p, err := d.insertion(m, t)
		if err != nil {
			return nil, err
		}
		patches = append(patches, p)
	}
	if len(fresh.keys) > 0 {
		if d.lang != nil && !d.plainKeyLine(d.lang) {
			return nil, ErrLayout // {de: ~}, ? de
		}
		if n := d.null; n != nil {
			start, end, ok := d.span(n)
			inPlace := ok && end > start && d.offset(n.Line, n.Column) == start && d.lineStart(start) == start
			if !inPlace && !trivia(d.src) {
				return nil, ErrLayout // --- ~, &anchor
			}
		}
		patches = append(patches, d.freshDocument(fresh, rootKey(f)))
	}
	if len(patches) == 0 {
		if data == nil {
			return []byte(newFile), nil
		}
		return data, nil
	}
	out := d.apply(patches)
	// Each patch was checked on its own; reading the result back checks
	// them in their context too (a value on the line after its key, at
	// the key's indentation, takes no quoted text), so a file is never
	// written that does not say what the edits say.
	want := map[string][]string{}
	for _, u := range d.units {
		if !u.dead && !u.alias {
			want[u.ctx] = u.forms
		}
	}
	for _, e := range edits {
		if t, _ := forms(e); !blank(t) || want[e.Context] != nil {
			want[e.Context] = t
		}
	}
	if err := c.check(out, f, want); err != nil {
		return nil, err
	}
	return []byte(out), nil
}

// check reads out back and compares its units, aliases aside, with want.
func (c Codec) check(out string, f formats.File, want map[string][]string) error {
	back, err := c.parse([]byte(out), f.Target.Plurals)
	if err != nil {
		return fmt.Errorf("%w: the result does not parse: %v", ErrLayout, err)
	}
	n := 0
	for _, u := range back.units {
		if u.dead || u.alias {
			continue
		}
		n++
		if w, ok := want[u.ctx]; !ok || !slices.Equal(w, u.forms) {
			return fmt.Errorf("%w (unit %q)", ErrLayout, u.ctx)
		}
	}
	if n != len(want) {
		return fmt.Errorf("%w: %d units after writing, want %d", ErrLayout, n, len(want))
	}
	return nil
}

// rootKey is the language key a Ruby file is given: the language as the
// file's path spells it (diaspora's pt-BR.yml starts "pt-BR:" while the
// index says pt_BR), else f.Target.Code.
func rootKey(f formats.File) string {
	if f.PathCode != "" {
		return f.PathCode
	}
	return f.Target.Code
}

// apply writes src with patches.
func (d *doc) apply(patches []patch) string {
	slices.SortStableFunc(patches, func(a, b patch) int {
		if c := cmp.Compare(a.start, b.start); c != 0 {
			return c
		}
		return cmp.Compare(b.depth, a.depth)
	})
	var b strings.Builder
	b.Grow(len(d.src) + 256)
	pos := 0
	for _, p := range patches {
		if p.start < pos {
			continue // cannot happen: spans never overlap
		}
		b.WriteString(d.src[pos:p.start])
		b.WriteString(p.text)
		pos = p.end
	}
	b.WriteString(d.src[pos:])
	return b.String()
}

// forms returns an edit's forms, and whether it is a plural edit.
func forms(e formats.Edit) ([]string, bool) {
	t := e.Target
	if len(t) == 0 {
		t = []string{""}
	}
	return t, e.Plural || len(t) > 1
}

func blank(ss []string) bool {
	for _, s := range ss {
		if s != "" {
			return false
		}
	}
	return true
}

// edit returns the patches of one edit of an existing unit, or records a
// missing one in inserts (or fresh, for a file without a mapping yet).
func (d *doc) edit(e formats.Edit, inserts map[*yamlv3.Node]*tree, fresh *tree) ([]patch, error) {
	target, plural := forms(e)
	plural = plural && d.c.Ruby
	if i, ok := d.index[e.Context]; ok {
		u := &d.units[i]
		if u.alias {
			return nil, ErrAlias
		}
		if !u.plural {
			if plural || len(target) > 1 {
				return nil, ErrPlural
			}
			if target[0] == u.value.Value {
				return nil, nil
			}
			p, err := d.replace(u.value, target[0])
			return []patch{p}, err
		}
		if len(target) != len(d.plurals) {
			return nil, ErrPlural
		}
		var ps []patch
		for j, cat := range d.plurals {
			v := find(u.value, cat)
			switch {
			case v != nil && v.Value == target[j] && v.Tag != "!!null":
			case v != nil && v.Kind == yamlv3.ScalarNode:
				p, err := d.replace(v, target[j])
				if err != nil {
					return nil, err
				}
				ps = append(ps, p)
			case v == nil && target[j] != "":
				t := inserts[u.value]
				if t == nil {
					t = &tree{}
					inserts[u.value] = t
				}
				c := t.child(cat)
				c.leaf, c.value = true, target[j]
			}
		}
		return ps, nil
	}
	if blank(target) {
		return nil, nil
	}
	if plural && len(target) != len(d.plurals) {
		return nil, ErrPlural
	}
	segs := strings.Split(e.Context, Separator)
	var t *tree
	if d.base == nil || d.base.Kind != yamlv3.MappingNode || len(d.base.Content) == 0 {
		t = fresh
	} else {
		m := d.base
		for len(segs) > 1 {
			v := find(m, segs[0])
			if v == nil {
				break
			}
			if v.Kind != yamlv3.MappingNode || isPlural(v) && d.c.Ruby {
				return nil, ErrLayout
			}
			m, segs = v, segs[1:]
		}
		if m.Style&yamlv3.FlowStyle != 0 {
			return nil, ErrLayout
		}
		if t = inserts[m]; t == nil {
			t = &tree{}
			inserts[m] = t
		}
	}
	for _, s := range segs[:len(segs)-1] {
		t = t.child(s)
		if t.leaf {
			return nil, ErrLayout
		}
	}
	leaf := t.child(segs[len(segs)-1])
	leaf.leaf = true
	if plural {
		for j, cat := range d.plurals {
			if target[j] != "" {
				leaf.plural = append(leaf.plural, [2]string{cat, target[j]})
			}
		}
	} else {
		leaf.value = target[0]
	}
	return nil, nil
}

// find returns the value of key k in mapping m (its last occurrence), or
// nil.
func find(m *yamlv3.Node, k string) *yamlv3.Node {
	var v *yamlv3.Node
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == k {
			v = m.Content[i+1]
		}
	}
	return v
}

// replace returns the patch that writes v over scalar n, after checking
// that the bytes found for n read back as its value.
func (d *doc) replace(n *yamlv3.Node, v string) (patch, error) {
	start, end, ok := d.span(n)
	if !ok {
		return patch{}, ErrLayout
	}
	raw := d.src[start:end]
	if !readsAs(strings.ReplaceAll(raw, "\r\n", "\n"), n.Value) {
		return patch{}, ErrLayout
	}
	header, indent := "", 0
	if n.Style&(yamlv3.LiteralStyle|yamlv3.FoldedStyle) != 0 {
		header = strings.TrimRight(d.src[start:d.lineEnd(start)], " \t")
		if i := strings.Index(header, " #"); i >= 0 {
			header = strings.TrimRight(header[:i], " \t")
		}
		if first := d.lineAfter(start); first < end {
			indent = d.indentOf(first + strings.IndexFunc(d.src[first:end], func(r rune) bool { return r != ' ' && r != '\n' && r != '\r' }))
		}
	}
	return patch{start: start, end: end, text: render(v, n.Style, header, indent, d.inFlow(n), d.eol)}, nil
}

// step returns the file's indentation step: how much deeper a nested
// mapping's keys sit than their parent's (2 when the file has none).
func (d *doc) step() int {
	var walk func(m *yamlv3.Node, depth int) int
	walk = func(m *yamlv3.Node, depth int) int {
		if depth > 8 || m.Kind != yamlv3.MappingNode || m.Style&yamlv3.FlowStyle != 0 {
			return 0
		}
		for i := 0; i+1 < len(m.Content); i += 2 {
			v := m.Content[i+1]
			if v.Kind == yamlv3.MappingNode && v.Style&yamlv3.FlowStyle == 0 && len(v.Content) > 0 {
				if s := v.Content[0].Column - m.Content[i].Column; s > 0 && v.Content[0].Line > m.Content[i].Line {
					return s
				}
			}
			if s := walk(v, depth+1); s > 0 {
				return s
			}
		}
		return 0
	}
	if d.top != nil {
		if s := walk(d.top, 0); s > 0 {
			return s
		}
	}
	return 2
}

// quoted says most of the file's values are double-quoted, so new values
// are too.
func (d *doc) quoted() bool {
	n := 0
	for _, u := range d.units {
		if !u.plural && u.value.Style&yamlv3.DoubleQuotedStyle != 0 {
			n++
		}
	}
	return n*2 > len(d.units)
}

// writeTree renders t as lines at indentation ind, each line preceded by eol.
func (d *doc) writeTree(b *strings.Builder, t *tree, ind, step int, quoted bool) {
	pad := strings.Repeat(" ", ind)
	val := func(v string) string {
		if quoted {
			return quote(v)
		}
		return render(v, 0, "", 0, false, d.eol)
	}
	for _, k := range t.keys {
		c := t.kids[k]
		b.WriteString(d.eol + pad + key(k) + ":")
		switch {
		case c.leaf && c.plural != nil:
			for _, p := range c.plural {
				b.WriteString(d.eol + pad + strings.Repeat(" ", step) + p[0] + ": " + val(p[1]))
			}
		case c.leaf:
			b.WriteString(" " + val(c.value))
		default:
			d.writeTree(b, c, ind+step, step, quoted)
		}
	}
}

// plainKeyLine says key k starts its line and ":" follows it: a block
// mapping key written the usual way.
func (d *doc) plainKeyLine(k *yamlv3.Node) bool {
	if d.inFlow(k) {
		return false
	}
	start, end, ok := d.span(k)
	if !ok || strings.TrimLeft(d.src[d.lineStart(start):start], " ") != "" {
		return false
	}
	return strings.HasPrefix(strings.TrimLeft(d.src[end:], " \t"), ":")
}

// depth returns how many collections enclose n.
func (d *doc) depth(n *yamlv3.Node) int {
	k := 0
	for p := d.parents[n]; p != nil && k < 1000; p = d.parents[p] {
		k++
	}
	return k
}

// insertion returns the patch that adds t's keys at the end of block
// mapping m.
func (d *doc) insertion(m *yamlv3.Node, t *tree) (patch, error) {
	if m.Style&yamlv3.FlowStyle != 0 || len(m.Content) == 0 {
		return patch{}, ErrLayout
	}
	first := m.Content[0]
	ind := d.offset(first.Line, first.Column) - d.lineStart(d.offset(first.Line, first.Column))
	if !d.plainKeyLine(first) {
		return patch{}, ErrLayout // "- key: v", "? key": no column to copy
	}
	var b strings.Builder
	d.writeTree(&b, t, ind, d.step(), d.quoted())
	at := d.subtreeEnd(m)
	return patch{start: at, end: at, text: b.String(), depth: d.depth(m)}, nil
}

// freshDocument returns the patch that gives a file without a mapping
// its content: the keys of t, under the language key for Ruby YAML.
func (d *doc) freshDocument(t *tree, code string) patch {
	var b strings.Builder
	step := d.step()
	quoted := d.quoted()
	switch {
	case d.c.Ruby && d.lang != nil:
		// "de:" with nothing (or {} or ~) below: the keys go under it.
		_, end, _ := d.span(d.lang)
		d.writeTree(&b, t, d.indentOf(end)+step, step, quoted)
		return patch{start: end, end: d.lineEnd(end), text: ":" + b.String()}
	case d.c.Ruby:
		if code == "" {
			code = "en"
		}
		b.WriteString(key(code) + ":")
		d.writeTree(&b, t, step, step, quoted)
	default:
		d.writeTree(&b, t, 0, step, quoted)
	}
	text := strings.TrimPrefix(b.String(), d.eol) + d.eol
	if d.top != nil && d.top.Kind == yamlv3.MappingNode && d.top.Style&yamlv3.FlowStyle != 0 {
		// "{}": the new mapping takes its place.
		s := d.start(d.top)
		e := strings.IndexByte(d.src[s:], '}')
		if e >= 0 {
			return patch{start: s, end: d.lineEnd(s + e), text: strings.TrimSuffix(text, d.eol)}
		}
	}
	if n := d.null; n != nil {
		// "~" or "null": the new mapping takes its place.
		if start, end, ok := d.span(n); ok && end > start && d.offset(n.Line, n.Column) == start && d.lineStart(start) == start {
			return patch{start: start, end: end, text: strings.TrimSuffix(text, d.eol)}
		}
	}
	at := len(d.src)
	if at > 0 && !strings.HasSuffix(d.src, "\n") {
		text = d.eol + text
	}
	return patch{start: at, end: at, text: text}
}

// trivia says src holds nothing but blank lines, comments and document
// markers, so a new mapping can follow it.
func trivia(src string) bool {
	for _, l := range strings.Split(src, "\n") {
		l = strings.TrimSpace(l)
		if l != "" && l[0] != '#' && l != "---" && l != "..." && !strings.HasPrefix(l, "--- #") {
			return false
		}
	}
	return true
}

// Remove deletes the units with the given contexts: each key's lines,
// its value's (a whole plural hash), and the comment lines directly above
// it. A unit that is a sequence item, or a key that shares its line with
// a "- ", is left alone.
func (c Codec) Remove(data []byte, f formats.File, keys []formats.Key) ([]byte, error) {
	d, err := c.parse(data, f.Target.Plurals)
	if err != nil {
		return nil, err
	}
	drop := make(map[string]bool, len(keys))
	for _, k := range keys {
		drop[k.Context] = true
	}
	var patches []patch
	for _, u := range d.units {
		if !drop[u.ctx] || u.key == nil || u.alias {
			continue
		}
		ks := d.start(u.key)
		ls := d.lineStart(ks)
		if strings.TrimLeft(d.src[ls:ks], " \t") != "" || d.inFlow(u.value) || u.key.Line == 0 {
			continue
		}
		// Comment lines directly above go with the key.
		for ls > 0 {
			prev := d.lineStart(ls - 1)
			if !strings.HasPrefix(strings.TrimLeft(d.src[prev:ls], " \t"), "#") {
				break
			}
			ls = prev
		}
		patches = append(patches, patch{start: ls, end: d.lineAfter(d.subtreeEnd(u.value))})
	}
	if len(patches) == 0 {
		return data, nil
	}
	return []byte(d.apply(patches)), nil
}

// Emptied returns the template with every unit's value emptied ("" in
// the value's quoting, or double-quoted; every category of a plural
// hash), and for Ruby YAML the language key renamed to rootKey(f):
// the shape the reference gives a new translation from its template.
// Units reached through aliases keep their anchor's text.
func (c Codec) Emptied(template []byte, f formats.File) ([]byte, error) {
	d, err := c.parse(template, f.Target.Plurals)
	if err != nil {
		return nil, err
	}
	var patches []patch
	empty := func(n *yamlv3.Node) error {
		if n.Kind != yamlv3.ScalarNode || n.Tag == "!!null" || n.Value == "" && n.Style&(yamlv3.DoubleQuotedStyle|yamlv3.SingleQuotedStyle) != 0 {
			return nil
		}
		p, err := d.replace(n, "")
		if err == nil {
			patches = append(patches, p)
		}
		return err
	}
	for _, u := range d.units {
		if u.alias {
			continue
		}
		if !u.plural {
			if err := empty(u.value); err != nil {
				return nil, err
			}
			continue
		}
		for i := 1; i < len(u.value.Content); i += 2 {
			if err := empty(u.value.Content[i]); err != nil {
				return nil, err
			}
		}
	}
	if root := rootKey(f); d.lang != nil && root != "" && root != d.lang.Value {
		start, end, ok := d.span(d.lang)
		if !ok || !keyReadsAs(d.src[start:end], d.lang.Value) {
			return nil, ErrLayout
		}
		patches = append(patches, patch{start: start, end: end, text: key(root)})
	}
	if len(patches) == 0 {
		return template, nil
	}
	out := d.apply(patches)
	want := map[string][]string{}
	for _, u := range d.units {
		if !u.dead && !u.alias {
			want[u.ctx] = make([]string, len(u.forms))
		}
	}
	if err := c.check(out, f, want); err != nil {
		return nil, err
	}
	return []byte(out), nil
}
