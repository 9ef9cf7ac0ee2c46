package json

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/tolk-project/tolk/formats"
)

// Dialect is the convention a JSON translation file follows on top of
// JSON, named after the reference's file_format. Every dialect is read by
// the same walk and written by the same span-preserving writer; a dialect
// only maps units to the string members that hold them.
type Dialect int

const (
	// Plain is file_format "json": every string leaf is a unit.
	Plain Dialect = iota
	// I18nextV4 is file_format "i18nextv4", i18next's JSON v4: nested as
	// Plain, and the members "key_one", "key_other"… (a CLDR plural
	// category after the last '_') are the forms of one plural unit
	// "key".
	I18nextV4
	// GoI18n is file_format "go-i18n-json" (also "go-i18n-json-v2"),
	// go-i18n v2: {"key": "text"}, or a message object
	// {"key": {"description": …, "one": …, "other": …}} whose plural
	// categories are the forms and whose description is the note. An
	// object with none of go-i18n's message fields groups nested keys.
	GoI18n
	// WebExtension is file_format "webextension", a browser extension's
	// messages.json: {"key": {"message": …, "description": …,
	// "placeholders": {…}}}; description is the note, and placeholders
	// are kept as they are.
	WebExtension
	// I18nextV3 is file_format "i18next", i18next's JSON v3 (also what
	// v1 and v2 wrote for two-form languages): nested as Plain, and the
	// plural forms of a unit "key" are either "key" and "key_plural" or
	// "key_0", "key_1"… "key_9" (see v3Unit). Form i of the file is form i
	// of the language; what is written is "key"/"key_plural" for a
	// language of two forms and "key_0"… otherwise (v3Keys), as i18next
	// v3 looks them up.
	I18nextV3
)

// DialectOf returns the dialect of a file_format name; ok is false for a
// name that is not a JSON format.
func DialectOf(fileFormat string) (d Dialect, ok bool) {
	switch fileFormat {
	case "json":
		return Plain, true
	case "i18nextv4":
		return I18nextV4, true
	case "go-i18n-json", "go-i18n-json-v2":
		return GoI18n, true
	case "webextension":
		return WebExtension, true
	case "i18next":
		return I18nextV3, true
	}
	return Plain, false
}

// categories are the CLDR plural categories, the suffixes and fields
// that name plural forms.
var categories = []string{"zero", "one", "two", "few", "many", "other"}

// goI18nFields are the fields of a go-i18n message object; an object with
// one of them as a string is a message, not a group of nested keys.
var goI18nFields = []string{"id", "description", "hash", "leftdelim", "rightdelim",
	"zero", "one", "two", "few", "many", "other"}

// plurals returns the plural categories of the file's language, one per
// form in form order; one/other when the caller set none.
func (f *File) plurals() []string {
	if len(f.Plurals) == 0 {
		return []string{"one", "other"}
	}
	return f.Plurals
}

// dialectUnits builds the units of a file in a dialect other than Plain,
// in file order. A plural unit has one Target form per category of
// f.Plurals, "" for a form the file lacks; members for categories the
// language does not use are ignored (and left alone by Encode).
func (f *File) dialectUnits() []formats.Unit {
	var units []formats.Unit
	seen := map[string]int{} // context → index in units
	add := func(ctx string, line int32, forms []string, note string) {
		if _, dup := seen[ctx]; dup {
			return // the first unit of a context wins; the index keys units by context
		}
		seen[ctx] = len(units)
		units = append(units, formats.Unit{Context: ctx, Target: forms, Note: note, Line: int(line)})
	}
	cats := f.plurals()
	switch f.Dialect {
	case I18nextV4:
		for i := range f.members {
			m := &f.members[i]
			if m.kind != kindString || m.dead {
				continue
			}
			base, cat, ok := pluralKey(m.ctx)
			if !ok {
				add(m.ctx, m.line, []string{f.value(m)}, "")
				continue
			}
			k, ok := seen[base]
			if !ok {
				add(base, m.line, make([]string, len(cats)), "")
				k = len(units) - 1
			}
			if j := slices.Index(cats, cat); j >= 0 && len(units[k].Target) == len(cats) {
				units[k].Target[j] = f.value(m)
			}
		}
	case I18nextV3:
		consumed := make([]bool, len(f.members)) // forms already in a unit
		for i := range f.members {
			m := &f.members[i]
			if m.kind != kindString || m.dead || consumed[i] {
				continue
			}
			base, keys := f.v3Unit(m.ctx)
			if keys == nil {
				add(m.ctx, m.line, []string{f.value(m)}, "")
				continue
			}
			// Form i of the file is form i of the language, as the
			// reference reads it: missing forms are empty, forms beyond
			// the language's count are ignored (and left alone).
			forms := make([]string, len(cats))
			for j, k := range keys {
				if k == "" {
					continue
				}
				mi := f.index[k]
				consumed[mi] = true
				if j < len(forms) {
					forms[j] = f.value(&f.members[mi])
				}
			}
			add(base, m.line, forms, "")
		}
	case GoI18n, WebExtension:
		f.walkMessages(0, len(f.members), func(m *member, fields map[string]string) {
			switch {
			case fields == nil:
				add(m.ctx, m.line, []string{f.value(m)}, "")
			case f.Dialect == WebExtension:
				add(m.ctx, m.line, []string{fields["message"]}, fields["description"])
			case isPlural(fields):
				forms := make([]string, len(cats))
				for j, c := range cats {
					forms[j] = fields[c]
				}
				add(m.ctx, m.line, forms, fields["description"])
			default:
				add(m.ctx, m.line, []string{fields["other"]}, fields["description"])
			}
		})
	}
	return units
}

// pluralKey splits an i18next key "base_cat" whose suffix is a CLDR
// plural category.
func pluralKey(ctx string) (base, cat string, ok bool) {
	i := strings.LastIndexByte(ctx, '_')
	if i <= 0 || !slices.Contains(categories, ctx[i+1:]) {
		return "", "", false
	}
	return ctx[:i], ctx[i+1:], true
}

// isPlural reports whether a go-i18n message has a plural form besides
// "other"; {"other": …} alone is go-i18n's way of writing a plain message
// with a description.
func isPlural(fields map[string]string) bool {
	for _, c := range categories[:5] {
		if _, ok := fields[c]; ok {
			return true
		}
	}
	return false
}

// walkMessages calls fn for each message among the live members in
// [from, to): a string member with fields nil, or a message object with
// its string fields by name. It descends into objects that are not
// messages (go-i18n's nested groups); WebExtension files hold messages at
// the top level only, so a top-level string there is no unit.
func (f *File) walkMessages(from, to int, fn func(m *member, fields map[string]string)) {
	for i := from; i < to; {
		m := &f.members[i]
		next := int(m.end)
		switch {
		case m.dead:
		case m.kind == kindString && f.Dialect == GoI18n:
			fn(m, nil)
		case m.kind == kindObject:
			if fields := f.messageFields(i); fields != nil {
				fn(m, fields)
			} else if f.Dialect == GoI18n {
				f.walkMessages(i+1, next, fn)
			}
		}
		i = next
	}
}

// messageFields returns the string fields of the object member mi when
// they make it a message of the file's dialect, else nil.
func (f *File) messageFields(mi int) map[string]string {
	m := &f.members[mi]
	var fields map[string]string
	for j := mi + 1; j < int(m.end); j = int(f.members[j].end) {
		c := &f.members[j]
		if c.dead || c.kind != kindString {
			continue
		}
		name := c.ctx[len(m.ctx)+1:]
		switch {
		case f.Dialect == WebExtension && (name == "message" || name == "description"),
			f.Dialect == GoI18n && slices.Contains(goI18nFields, name):
			if fields == nil {
				fields = map[string]string{}
			}
			fields[name] = f.value(c)
		}
	}
	if f.Dialect == WebExtension && fields != nil {
		if _, ok := fields["message"]; !ok {
			return nil
		}
	}
	return fields
}

// dialectEdits maps unit edits to the string members that hold them. A
// form that is empty and has no member yet is skipped: the missing member
// already says it is untranslated. When edits repeat a context, the last
// one wins.
func (f *File) dialectEdits(edits []formats.Edit) ([]memberEdit, error) {
	cats := f.plurals()
	var out []memberEdit
	for _, e := range edits {
		plural := e.Plural || len(e.Target) > 1
		if plural && len(e.Target) != len(cats) {
			return nil, fmt.Errorf("json: edit %q: %d plural forms, the file's language has %d", e.Context, len(e.Target), len(cats))
		}
		form := func(ctx, value string, nestAt int) {
			if _, ok := f.index[ctx]; ok || value != "" {
				out = append(out, memberEdit{ctx: ctx, value: value, nestAt: nestAt})
			}
		}
		mi, exists := f.index[e.Context]
		isObj := exists && f.members[mi].kind == kindObject
		switch {
		case f.Dialect == I18nextV4 && (plural || f.hasPluralKeys(e.Context)):
			for j, c := range cats {
				form(e.Context+"_"+c, formAt(e.Target, j), -1)
			}
		case f.Dialect == I18nextV3 && (plural || f.v3Plural(e.Context)):
			// The first form's key is written, even empty, once another
			// form is not: without "key" or "key_0" the file would hold
			// the other forms as units of their own (v3Unit).
			for j, k := range v3Keys(e.Context, len(cats)) {
				if v := formAt(e.Target, j); j > 0 || blank(e.Target) {
					form(k, v, -1)
				} else {
					out = append(out, memberEdit{ctx: k, value: v, nestAt: -1})
				}
			}
		case f.Dialect == WebExtension && (isObj || !exists):
			form(e.Context+".message", target(e), len(e.Context))
		case f.Dialect == GoI18n && plural && (isObj || !exists):
			for j, c := range cats {
				form(e.Context+"."+c, formAt(e.Target, j), len(e.Context))
			}
		case f.Dialect == GoI18n && isObj:
			form(e.Context+".other", target(e), len(e.Context))
		default:
			form(e.Context, target(e), -1)
		}
	}
	return out, nil
}

// hasPluralKeys reports whether the file holds an i18next plural form of
// the unit ctx.
func (f *File) hasPluralKeys(ctx string) bool {
	for _, c := range categories {
		if _, ok := f.index[ctx+"_"+c]; ok {
			return true
		}
	}
	return false
}

func formAt(forms []string, i int) string {
	if i < len(forms) {
		return forms[i]
	}
	return ""
}

// Members returns the contexts of the members that hold the unit ctx
// in the file: the key itself in a Plain file, an i18next unit's plural
// keys, a go-i18n or WebExtension message object. EncodeWithout takes
// them out one at a time.
func (f *File) Members(ctx string) []string {
	if forms := f.FormMembers(ctx); f.Dialect == I18nextV4 && forms != nil {
		var out []string
		for _, c := range categories {
			if m, ok := forms[c]; ok {
				out = append(out, m)
			}
		}
		return out
	}
	if f.Dialect == I18nextV3 {
		return f.v3Members(ctx)
	}
	if _, ok := f.index[ctx]; ok {
		return []string{ctx}
	}
	return nil
}

// FormMembers returns, for a plural unit, the context of the member that
// holds each of its forms in the file, by CLDR category ("unread_few" in
// i18next, "Emails.few" in go-i18n), whatever the file's Plurals; nil for
// a unit without plural members and in the other dialects.
func (f *File) FormMembers(ctx string) map[string]string {
	var sep string
	switch f.Dialect {
	case I18nextV4:
		sep = "_"
	case GoI18n:
		if mi, ok := f.index[ctx]; !ok || f.members[mi].kind != kindObject {
			return nil
		}
		sep = "."
	default:
		return nil
	}
	var out map[string]string
	for _, c := range categories {
		if mi, ok := f.index[ctx+sep+c]; ok && f.members[mi].kind == kindString {
			if out == nil {
				out = map[string]string{}
			}
			out[c] = ctx + sep + c
		}
	}
	return out
}

// maxV3Forms bounds i18next v3's numbered keys, "key_0" to "key_9": the
// reference reads no more, and no language has more than six forms.
const maxV3Forms = 10

// isString reports whether the file holds a live string member at ctx.
func (f *File) isString(ctx string) bool {
	mi, ok := f.index[ctx]
	return ok && f.members[mi].kind == kindString && !f.members[mi].dead
}

// v3Unit says which plural unit of an i18next v3 file the string member
// ctx holds a form of: base is the unit's context and keys the members
// of its forms in form order ("" for a numbered form the file lacks); keys
// is nil when ctx is a unit of its own. The rules are the reference's
// (translate-toolkit's I18NextFile), with two differences where it reads
// the same file two ways depending on key order or drops a string:
//   - "key" and "key_plural" are one unit when both are strings, whichever
//     comes first (the reference makes "key_plural" a unit of its own too
//     when it comes first);
//   - "key_0" starts a numbered unit, whose forms are every "key_N" with N
//     from 0 to 9 written as i18next writes it; a missing "key_1" leaves
//     form 1 empty rather than ending the unit, since i18next looks every
//     form up by its own key.
//
// "key_plural" without "key", and "key_1" without "key_0", are units of
// their own, as in the reference.
func (f *File) v3Unit(ctx string) (base string, keys []string) {
	if f.isString(ctx + "_plural") {
		return ctx, []string{ctx, ctx + "_plural"}
	}
	i := strings.LastIndexByte(ctx, '_')
	if i <= 0 {
		return "", nil
	}
	base, suffix := ctx[:i], ctx[i+1:]
	if suffix == "plural" && f.isString(base) {
		return base, []string{base, ctx}
	}
	if n, err := strconv.Atoi(suffix); err == nil && n >= 0 && n < maxV3Forms && strconv.Itoa(n) == suffix {
		if keys := f.v3Numbered(base); keys != nil {
			return base, keys
		}
	}
	return "", nil
}

// v3Numbered returns the members "base_0" to "base_N" of a numbered
// plural unit, N the highest present, "" for those absent; nil when the
// file has no "base_0".
func (f *File) v3Numbered(base string) []string {
	if !f.isString(base + "_0") {
		return nil
	}
	keys := make([]string, 0, 4)
	for i := 0; i < maxV3Forms; i++ {
		// The key is built twice so that only the present ones, which
		// are kept, are allocated.
		if f.isString(base + "_" + strconv.Itoa(i)) {
			for len(keys) < i {
				keys = append(keys, "")
			}
			keys = append(keys, base+"_"+strconv.Itoa(i))
		}
	}
	return keys
}

// v3Plural reports whether the file holds the unit ctx as an i18next v3
// plural.
func (f *File) v3Plural(ctx string) bool {
	return f.isString(ctx+"_plural") || f.isString(ctx+"_0")
}

// v3Keys are the keys of the forms of a plural unit ctx in a language of
// n forms, as i18next v3 looks them up: "ctx" and "ctx_plural" for two
// forms (its simplifyPluralSuffix, on by default), "ctx_0"… otherwise.
func v3Keys(ctx string, n int) []string {
	if n == 2 {
		return []string{ctx, ctx + "_plural"}
	}
	keys := make([]string, n)
	for i := range keys {
		keys[i] = ctx + "_" + strconv.Itoa(i)
	}
	return keys
}

// v3Members returns every string member that holds, or would shadow, a
// form of the unit ctx: "ctx", "ctx_plural" (when "ctx" is there) and
// "ctx_0"… of a numbered unit, in that order.
func (f *File) v3Members(ctx string) []string {
	var out []string
	if f.isString(ctx) {
		out = append(out, ctx)
		if f.isString(ctx + "_plural") {
			out = append(out, ctx+"_plural")
		}
	}
	for _, k := range f.v3Numbered(ctx) {
		if k != "" {
			out = append(out, k)
		}
	}
	return out
}

// v3Stale returns the members of the unit ctx that a language of n forms
// does not use: a Russian file's "key" and "key_plural", an English
// file's "key_0" and "key_1", forms past the language's count. The
// reference rewrites the whole file, so they vanish there; Codec.Apply
// and Codec.Emptied take them out before writing the language's keys.
//
// With numbered keys written, every "ctx_N" the file holds becomes a
// form of the unit, so for a language of other than two forms those
// past its count are stale even without a "ctx_0" today.
func (f *File) v3Stale(ctx string, n int) []string {
	keys := v3Keys(ctx, n)
	members := f.v3Members(ctx)
	if n != 2 {
		for i := n; i < maxV3Forms; i++ {
			if k := ctx + "_" + strconv.Itoa(i); f.isString(k) && !slices.Contains(members, k) {
				members = append(members, k)
			}
		}
	}
	var out []string
	for _, m := range members {
		if !slices.Contains(keys, m) {
			out = append(out, m)
		}
	}
	return out
}
