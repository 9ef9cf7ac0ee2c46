package xcstrings

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/tolk-project/tolk/formats"
)

// Codec reads and writes String Catalogs. Its zero value is ready to use
// and it keeps no state, so it is safe for concurrent use.
type Codec struct{}

var (
	_ formats.Codec         = Codec{}
	_ formats.Templater     = Codec{}
	_ formats.FileLanguages = Codec{}

	_ formats.LanguagesDecoder = Codec{}
)

// The separators of the contexts Decode gives the parts of a string that
// are not its plain value; see Codec.Decode.
const (
	deviceSep = "|device:"
	substSep  = "|%#@"
)

var errNoStrings = errors.New(`the catalog has no "strings" object`)

// catalog is a parsed String Catalog.
type catalog struct {
	src     []byte
	root    *node
	strings *node  // the "strings" object
	source  string // "sourceLanguage"
	// langs holds languages() for a catalog only read (DecodeLanguages),
	// so each language's decode does not walk every string again; nil
	// elsewhere, where an edit may add a language.
	langs []string
}

func load(data []byte) (*catalog, error) {
	root, err := parse(data)
	if err != nil {
		return nil, err
	}
	c := &catalog{src: data, root: root}
	c.source, _ = root.text("sourceLanguage")
	c.strings = root.object("strings")
	if c.strings == nil {
		off := 0
		if v := root.get("strings"); v != nil {
			off = v.start
		}
		return nil, parseError(data, off, errNoStrings)
	}
	return c, nil
}

// langCode turns the index's language code ("pt_BR", "zh_Hant") into
// the BCP 47 tag Xcode writes ("pt-BR", "zh-Hant").
func langCode(l formats.Language) string { return strings.ReplaceAll(l.Code, "_", "-") }

// tag returns how the catalog spells f.Target: f.PathCode when the
// caller knows it; else the catalog's language that is f.Target's code
// but for case and '-' / '_'; else one that f.Resolve maps to that code
// (the catalog's "nb" for the index's nb_NO); else, for a language the
// catalog does not hold yet, langCode.
func (c *catalog) tag(f formats.File) string {
	if f.PathCode != "" {
		return f.PathCode
	}
	want := langCode(f.Target)
	langs := c.languages()
	for _, l := range langs {
		if strings.EqualFold(l, want) {
			return l
		}
	}
	if f.Resolve != nil {
		for _, l := range langs {
			if code, ok := f.Resolve(l); ok && code == f.Target.Code {
				return l
			}
		}
	}
	return want
}

// languages returns the languages the catalog has a localization for,
// and its source language, sorted.
func (c *catalog) languages() []string {
	if c.langs != nil {
		return c.langs
	}
	seen := map[string]bool{}
	if c.source != "" {
		seen[c.source] = true
	}
	for _, m := range c.strings.members {
		for _, l := range m.val.object("localizations").list() {
			seen[l.key] = true
		}
	}
	langs := make([]string, 0, len(seen))
	for l := range seen {
		langs = append(langs, l)
	}
	sort.Strings(langs)
	return langs
}

// plurals returns the language's CLDR categories, "one", "other" when the
// caller gave none.
func plurals(l formats.Language) []string {
	if len(l.Plurals) == 0 {
		return []string{"one", "other"}
	}
	return l.Plurals
}

// localization returns entry's localization for lang, or nil.
func localization(entry *node, lang string) *node {
	return entry.object("localizations").object(lang)
}

// shape is the part of a localization Decode makes units of: its
// devices, or its plain or plural value, and its substitutions.
func shape(loc *node) (devices, substs []string) {
	for _, m := range loc.object("variations").object("device").list() {
		devices = append(devices, m.key)
	}
	for _, m := range loc.object("substitutions").list() {
		if m.val.kind == kindObject {
			substs = append(substs, m.key)
		}
	}
	return devices, substs
}

// leaf is the value of one unit: a node holding a "stringUnit" or a
// "variations.plural" object.
type leaf struct {
	forms  []string
	fuzzy  bool
	plural bool
	ok     bool // the node holds a value
}

// read returns the value of n (a localization, a device variation or a
// substitution) in the order of cats.
func read(n *node, cats []string) leaf {
	if pl := n.object("variations").object("plural"); pl != nil {
		l := leaf{plural: true, ok: true, forms: make([]string, len(cats))}
		for i, cat := range cats {
			su := pl.object(cat).object("stringUnit")
			l.forms[i], _ = su.text("value")
			if state, _ := su.text("state"); fuzzyState(state) && l.forms[i] != "" {
				l.fuzzy = true
			}
		}
		return l
	}
	su := n.object("stringUnit")
	if su == nil {
		return leaf{forms: []string{""}}
	}
	v, _ := su.text("value")
	state, _ := su.text("state")
	return leaf{forms: []string{v}, fuzzy: fuzzyState(state) && v != "", ok: true}
}

// fuzzyState says a stringUnit state means "needs editing": Xcode's
// needs_review, and new, which Xcode gives a value it has not had
// translated (a copy of the source).
func fuzzyState(state string) bool { return state == "needs_review" || state == "new" }

// Decode returns the units of f.Target's language, one or more per entry
// of "strings", in file order, whether or not the language has a
// localization for it (an absent one is untranslated, as in Xcode):
//   - Context is the entry's key. A string with device variations gives
//     one unit per device instead, "KEY|device:ipad", and each argument
//     of a substitution ("%#@followers@") a unit of its own after the
//     string's, "KEY|%#@followers@", holding the argument's plural forms.
//     Which variations and substitutions a string has is read from the
//     language's localization, else from the source language's.
//   - Source is the source language's value at the same place, else the
//     key, as Xcode shows a string nobody wrote an English value for.
//   - Target is the language's value; plural variations give one form
//     per category of f.Target.Plurals (f.Source.Plurals for Source).
//     In the source language a string with no localization reads as its
//     key, as Xcode uses it.
//   - Fuzzy is a needs_review or new state; stale (the string is no
//     longer in the code) is kept as translated.
//   - Note is the entry's "comment"; Flags holds "read-only" when the
//     entry says "shouldTranslate" : false.
//   - Line is the line of the language's localization, else of the key.
func (Codec) Decode(data []byte, f formats.File) ([]formats.Unit, error) {
	c, err := load(data)
	if err != nil {
		return nil, err
	}
	return c.decode(f, newLines(data)), nil
}

// DecodeLanguages is Decode of each of fs from one parse of data
// (formats.LanguagesDecoder): an import reads a catalog of 18 languages
// once, not 18 times.
func (Codec) DecodeLanguages(data []byte, fs []formats.File) ([][]formats.Unit, error) {
	c, err := load(data)
	if err != nil {
		return nil, err
	}
	ls := newLines(data)
	c.langs = c.languages()
	out := make([][]formats.Unit, len(fs))
	for i, f := range fs {
		out[i] = c.decode(f, ls)
	}
	return out, nil
}

// decode is Decode of the parsed catalog; ls are data's line offsets.
func (c *catalog) decode(f formats.File, ls lines) []formats.Unit {
	data := c.src
	lang, tcats, scats := c.tag(f), plurals(f.Target), plurals(f.Source)
	units := make([]formats.Unit, 0, len(c.strings.members))
	for _, m := range c.strings.members {
		entry := m.val
		if entry.kind != kindObject {
			continue
		}
		base := formats.Unit{Line: ls.at(m.keyStart)}
		base.Note, _ = entry.text("comment")
		if v := entry.get("shouldTranslate"); v != nil && string(data[v.start:v.end]) == "false" {
			base.Flags = []string{"read-only"}
		}
		loc, src := localization(entry, lang), localization(entry, c.source)
		if loc != nil {
			base.Line = ls.at(loc.start)
		}
		shaped := loc
		if shaped == nil {
			shaped = src
		}
		devices, substs := shape(shaped)
		add := func(ctx string, tn, sn *node) {
			u := base
			u.Flags = append([]string(nil), base.Flags...)
			u.Context = ctx
			t, s := read(tn, tcats), read(sn, scats)
			u.Target, u.Fuzzy = t.forms, t.fuzzy
			u.Source = s.forms
			if !s.ok {
				u.Source = []string{m.key}
				if lang == c.source && !t.ok {
					// Xcode shows and uses the key as the source
					// language's value until someone writes one.
					u.Target = u.Source
				}
			}
			units = append(units, u)
		}
		if len(devices) > 0 {
			for _, d := range devices {
				add(m.key+deviceSep+d, device(loc, d), device(src, d))
			}
		} else {
			add(m.key, loc, src)
		}
		for _, s := range substs {
			add(m.key+substSep+s+"@", subst(loc, s), subst(src, s))
		}
	}
	return units
}

func device(loc *node, d string) *node { return loc.object("variations").object("device").object(d) }
func subst(loc *node, s string) *node  { return loc.object("substitutions").object(s) }

// target is where an edit's context points: an entry's key and, for a
// device variation or a substitution, its name.
type target struct {
	key    string
	entry  *node // nil when the catalog lacks the key
	device string
	subst  string
}

// resolve finds the entry an edit's context names. A key that exists
// wins over a reading of the context as KEY|device:… or KEY|%#@…@.
func (c *catalog) resolve(ctx string) target {
	if e := c.strings.object(ctx); e != nil {
		return target{key: ctx, entry: e}
	}
	if i := strings.LastIndex(ctx, deviceSep); i >= 0 {
		if e := c.strings.object(ctx[:i]); e != nil {
			return target{key: ctx[:i], entry: e, device: ctx[i+len(deviceSep):]}
		}
	}
	if i := strings.LastIndex(ctx, substSep); i >= 0 && strings.HasSuffix(ctx, "@") && len(ctx)-1 >= i+len(substSep) {
		if e := c.strings.object(ctx[:i]); e != nil {
			return target{key: ctx[:i], entry: e, subst: ctx[i+len(substSep) : len(ctx)-1]}
		}
	}
	return target{key: ctx}
}

// Emptied returns the template unchanged: a String Catalog holds every
// language, and a new language needs nothing in it until one of its
// values is translated (Apply then adds its localizations). The
// template must be a catalog.
func (Codec) Emptied(template []byte, f formats.File) ([]byte, error) {
	if _, err := load(template); err != nil {
		return nil, err
	}
	return template, nil
}

// Languages returns the languages the catalog has a localization for,
// sorted, with the source language among them even when no entry has a
// localization in it. sync uses it to discover a one-file component's
// translations.
func Languages(data []byte) (source string, langs []string, err error) {
	c, err := load(data)
	if err != nil {
		return "", nil, err
	}
	return c.source, c.languages(), nil
}

// FileLanguages is Languages for sync (formats.FileLanguages).
func (Codec) FileLanguages(data []byte) ([]string, error) {
	_, langs, err := Languages(data)
	return langs, err
}

func errorf(format string, args ...any) error { return fmt.Errorf("xcstrings: "+format, args...) }
