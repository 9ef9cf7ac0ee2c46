package sync

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/tolk-project/tolk/formats"
	jsonfmt "github.com/tolk-project/tolk/formats/json"
	"github.com/tolk-project/tolk/formats/tbx"
	"github.com/tolk-project/tolk/index"
)

// utf8BOM starts files some editors save; the reference strips it from
// uploads.
var utf8BOM = []byte("\ufeff")

// ParseUpload parses a file uploaded to translation t with the parser
// the import uses for the component's format, and returns its units in
// file order, as the import would read them: for a monolingual
// component the keys carry no source (units match by key), except in the
// template, whose values are the source. A UTF-8 byte order mark is
// ignored. A file that does not parse answers an index.FieldError on
// "file" with the parser's line and column; nothing else fails.
func (s *Service) ParseUpload(ctx context.Context, t index.Translation, data []byte) ([]index.ImportUnit, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	c := &t.Component
	units, err := decodeUnits(c.FileFormat, bytes.TrimPrefix(data, utf8BOM), c.SourceLanguage, t.Language)
	if err != nil {
		return nil, &index.FieldError{Fields: map[string]index.FieldProblem{
			"file": {Code: "invalid", Detail: "Could not parse uploaded file: " + err.Error()}}}
	}
	out := make([]index.ImportUnit, len(units))
	for i, u := range units {
		out[i] = importUnit(u)
		if c.IsMonolingual() && t.IsTemplate {
			out[i].Source = out[i].Target
		}
	}
	return out, nil
}

// importUnit is a unit of a file as the index takes it.
func importUnit(u formats.Unit) index.ImportUnit {
	return index.ImportUnit{Context: u.Context, Source: u.Source, Target: u.Target, Note: u.Note,
		Explanation: u.Explanation, Flags: strings.Join(u.Flags, ", "), State: stateOf(u)}
}

// RenderTranslation returns the file of translation t as committed at
// the checkout's HEAD with the targets of the pending units applied, and
// the strings removed since taken out (see Commit):
// what a download shows before the edits are committed, and what the
// next commit writes. Only the edited values' bytes change (see the
// formats' Encode). With no pending units it is the committed file, byte
// for byte.
//
// A pending unit whose key the file lacks is inserted in the file's own
// style: JSON inserts keys (formats/json, Encode), except an untranslated
// unit, which a missing key already says, and a key the file holds as an
// object or another non-string value, which is left out; TBX appends a
// termEntry (formats/tbx, EncodeTerms), untranslated too. A translation whose
// file is not at HEAD yet (added through the API) is rendered from an
// empty file of its format when it has pending units.
//
// It returns an error wrapping index.ErrNotFound when the checkout, or
// the file with nothing pending, does not exist.
func (s *Service) RenderTranslation(ctx context.Context, t index.Translation, pending []index.Unit) ([]byte, error) {
	removed, err := s.store.RemovedUnits(ctx, t.ID)
	if err != nil {
		return nil, err
	}
	data, err := s.ReadFile(ctx, t.Component, t.Filename)
	switch {
	case len(pending) == 0 && len(removed) == 0:
		return data, err
	case errors.Is(err, errNoFile):
		data = nil
	case err != nil:
		return nil, err
	}
	c := &t.Component
	out, err := render(c.FileFormat, data, c.SourceLanguage, t.Language, pending)
	if err == nil && len(removed) > 0 && out != nil {
		out, _, err = withoutUnits(c.FileFormat, out, c.SourceLanguage, t.Language, removed)
	}
	if err != nil {
		// The file at HEAD does not parse (upstream broke it): a 409
		// that says where, not a server error; the edits wait in the
		// index for a repaired file.
		return nil, fmt.Errorf("%w (%w)", index.Errorf(index.ErrConflict,
			"%s cannot be rendered with its pending edits: %s", t.Filename, err), err)
	}
	return out, nil
}

// render applies the targets of units to a file of the given format in
// the target language; nil data stands for a new, empty file.
func render(format string, data []byte, sourceLang string, target index.Language, units []index.Unit) ([]byte, error) {
	var buf bytes.Buffer
	if _, ok := jsonfmt.DialectOf(format); ok {
		f, err := decodeJSON(format, data, target)
		if err != nil {
			return nil, err
		}
		present := map[string]bool{}
		for _, u := range f.Units() {
			present[u.Context] = true
		}
		edits := make([]formats.Edit, 0, len(units))
		for _, u := range units {
			if (!present[u.Context] && index.IsBlank(u.Target)) || !f.Editable(u.Context) {
				continue
			}
			edits = append(edits, formats.Edit{Context: u.Context, Target: u.Target, Plural: len(u.Source) > 1})
		}
		err = f.Encode(&buf, edits)
		return buf.Bytes(), err
	}
	if format == "tbx" {
		f := tbx.New(sourceLang, target.Code)
		if data != nil {
			var err error
			if f, err = tbx.Decode(bytes.NewReader(data)); err != nil {
				return nil, err
			}
		}
		type key struct{ source, context string }
		present := map[key]bool{}
		for _, u := range f.Units(sourceLang, target.Code) {
			present[key{first(u.Source), u.Context}] = true
		}
		edits := make([]tbx.Edit, 0, len(units))
		for _, u := range units {
			// A term the file lacks (added through the API or an upload)
			// gets an entry of its own, untranslated ones too: a
			// glossary's source strings live only in its files.
			k := key{first(u.Source), u.Context}
			edits = append(edits, tbx.Edit{Source: k.source, Context: k.context, Target: u.Target, Add: !present[k]})
		}
		err := f.EncodeTerms(&buf, sourceLang, target.Code, edits)
		return buf.Bytes(), err
	}
	return nil, fmt.Errorf("unsupported file format %q", format)
}

// decodeJSON decodes a file of one of the JSON formats (nil data: a new,
// empty file) in the dialect the format names, with the plural
// categories of its language.
func decodeJSON(format string, data []byte, lang index.Language) (*jsonfmt.File, error) {
	f := jsonfmt.New()
	if data != nil {
		var err error
		if f, err = jsonfmt.Decode(bytes.NewReader(data)); err != nil {
			return nil, err
		}
	}
	f.Dialect, _ = jsonfmt.DialectOf(format)
	f.Plurals = lang.PluralCategories()
	return f, nil
}

// emptyForms is the target of a unit a translation's file lacks: one
// empty form per plural form of the language for a plural source, else
// one.
func emptyForms(source []string, lang index.Language) []string {
	if len(source) > 1 && lang.Plural.Number > 1 {
		return make([]string, lang.Plural.Number)
	}
	return []string{""}
}

// withoutUnits takes the removed units out of a file of the given format
// and returns the ids of those the result no longer holds (all of them:
// a unit the file already lacks is out of it too). JSON removes each
// member that holds the unit (formats/json, Members and EncodeWithout);
// TBX each termEntry whose source term and id are the unit's
// (formats/tbx, EncodeWithout). Only the removed entries' bytes change.
func withoutUnits(format string, data []byte, sourceLang string, target index.Language, removed []index.RemovedUnit) ([]byte, []int64, error) {
	done := make([]int64, 0, len(removed))
	for _, r := range removed {
		done = append(done, r.ID)
	}
	if data == nil {
		return nil, done, nil // a new, empty file holds nothing to remove
	}
	if _, ok := jsonfmt.DialectOf(format); ok {
		for _, r := range removed {
			f, err := decodeJSON(format, data, target)
			if err != nil {
				return nil, nil, err
			}
			for _, ctx := range f.Members(r.Context) {
				// Each removal shifts the bytes after it: decode again.
				if f, err = decodeJSON(format, data, target); err != nil {
					return nil, nil, err
				}
				var buf bytes.Buffer
				if _, err := f.EncodeWithout(&buf, ctx); err != nil {
					return nil, nil, err
				}
				data = buf.Bytes()
			}
		}
		return data, done, nil
	}
	if format == "tbx" {
		f, err := tbx.Decode(bytes.NewReader(data))
		if err != nil {
			return nil, nil, err
		}
		terms := make([]tbx.Term, len(removed))
		for i, r := range removed {
			terms[i] = tbx.Term{Source: first(r.Source), Context: r.Context}
		}
		var buf bytes.Buffer
		if _, err := f.EncodeWithout(&buf, sourceLang, target.Code, terms); err != nil {
			return nil, nil, err
		}
		return buf.Bytes(), done, nil
	}
	return nil, nil, fmt.Errorf("unsupported file format %q", format)
}

// emptiedJSON returns a file of one of the JSON formats with every unit
// emptied: a template in the source language turned into the file of a
// new translation in target, every string untranslated. A plural unit
// keeps the template's plural keys, emptied, except those of categories
// the target language does not use (Japanese has no "one"); the
// translation's other forms are added as they are translated.
func emptiedJSON(format string, data []byte, source, target index.Language) ([]byte, error) {
	f, err := decodeJSON(format, data, source)
	if err != nil {
		return nil, err
	}
	var (
		edits []formats.Edit
		drop  []string
	)
	keep := target.PluralCategories()
	for _, u := range f.Units() {
		if f.Editable(u.Context) {
			edits = append(edits, formats.Edit{Context: u.Context, Target: make([]string, len(u.Target)), Plural: len(u.Target) > 1})
		}
		for c, m := range f.FormMembers(u.Context) {
			if len(u.Target) > 1 && !slices.Contains(keep, c) {
				drop = append(drop, m)
			}
		}
	}
	var buf bytes.Buffer
	if err = f.Encode(&buf, edits); err != nil {
		return nil, err
	}
	out := buf.Bytes()
	slices.Sort(drop)
	for _, m := range drop {
		// Each removal shifts the bytes after it: decode again.
		g, err := decodeJSON(format, out, target)
		if err != nil {
			return nil, err
		}
		var next bytes.Buffer
		if _, err := g.EncodeWithout(&next, m); err != nil {
			return nil, err
		}
		out = next.Bytes()
	}
	return out, nil
}

func first(forms []string) string {
	if len(forms) == 0 {
		return ""
	}
	return forms[0]
}
