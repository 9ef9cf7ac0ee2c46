package sync

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/tolk-project/tolk/formats"
	"github.com/tolk-project/tolk/formats/codecs"
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
	var units []formats.Unit
	codec, err := codecOf(c)
	if err == nil {
		units, err = codec.Decode(bytes.TrimPrefix(data, utf8BOM), s.fileOf(c, t.Language, t.IsTemplate || t.IsSource))
	}
	if err != nil {
		return nil, &index.FieldError{Fields: map[string]index.FieldProblem{
			"file": {Code: "invalid", Detail: "Could not parse uploaded file: " + err.Error()}}}
	}
	review := t.ReviewEnabled()
	out := make([]index.ImportUnit, len(units))
	for i, u := range units {
		out[i] = importUnit(u, review)
		if c.IsMonolingual() && t.IsTemplate {
			out[i].Source = out[i].Target
		}
	}
	return out, nil
}

// importUnit is a unit of a file as the index takes it; review says
// the translation has review on (stateOf).
func importUnit(u formats.Unit, review bool) index.ImportUnit {
	return index.ImportUnit{Context: u.Context, Source: u.Source, Target: u.Target, Note: u.Note,
		Explanation: u.Explanation, Flags: strings.Join(u.Flags, ", "), Location: u.Location,
		State: stateOf(u, review)}
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
// style, as the format's codec decides (formats.Codec, Apply: JSON leaves
// out an untranslated one, TBX appends a termEntry). A translation whose
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
	// What the next commit writes, but for who and when: a header that
	// records them (PO's) shows the render's time and no translator.
	f := s.fileOfTranslation(c, t)
	f.Revised = time.Now()
	out, err := render(c, data, f, pending)
	if err == nil && len(removed) > 0 && out != nil {
		out, _, err = withoutUnits(c, out, f, removed)
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

// codecOf returns the codec of c's file_format.
func codecOf(c *index.Component) (formats.Codec, error) {
	codec, ok := codecs.Lookup(c.FileFormat)
	if !ok {
		return nil, fmt.Errorf("unsupported file format %q", c.FileFormat)
	}
	return codec, nil
}

// FormatPlural is the plural rule the files of a format give a language
// whose own rule is p: p, or for a format whose every language has a
// zero form (formats.Format.ZeroPlural, .stringsdict) p with one in
// front (index.Plural.WithZero). The index takes it as
// sqlstore.Options.FormatPlural, and the import reads files with it.
func FormatPlural(fileFormat string, p index.Plural) index.Plural {
	if formats.ZeroPluralOf(fileFormat) {
		return p.WithZero()
	}
	return p
}

// formatLanguage is what a codec knows of a language.
func formatLanguage(l index.Language) formats.Language {
	return formats.Language{Code: l.Code, Name: l.Name, Plurals: l.PluralCategories(),
		PluralFormula: l.Plural.Formula, PluralCount: l.Plural.Number}
}

// sourceLanguage is c's source language; one the table does not know
// has its code only.
func (s *Service) sourceLanguage(c *index.Component) index.Language {
	if l, ok := s.langs.Resolve(c.SourceLanguage); ok {
		l.Plural = FormatPlural(c.FileFormat, l.Plural)
		return l
	}
	return index.Language{Code: c.SourceLanguage}
}

// fileOf is what c's codec is told of a file of c in target; template
// says it is the template or the source-language file. The source
// language keeps the component's own code, which names the source side
// of a bilingual file.
func (s *Service) fileOf(c *index.Component, target index.Language, template bool) formats.File {
	src := formatLanguage(s.sourceLanguage(c))
	src.Code = c.SourceLanguage
	return formats.File{Source: src, Target: formatLanguage(target), Template: template, Resolve: s.resolveCode}
}

// resolveCode is formats.File.Resolve: the index's code of a language
// as a file spells it.
func (s *Service) resolveCode(spelling string) (string, bool) {
	l, ok := s.langs.Resolve(spelling)
	return l.Code, ok
}

// fileOfTranslation is fileOf for translation t of c, with the
// language as t's file name spells it (File.PathCode).
func (s *Service) fileOfTranslation(c *index.Component, t index.Translation) formats.File {
	f := s.fileOf(c, t.Language, t.IsTemplate || t.IsSource)
	if mask, err := NewFilemask(c.Filemask, ""); err == nil && t.Filename != c.Template {
		if m := mask.re.FindStringSubmatch(t.Filename); m != nil {
			f.PathCode = m[1]
		}
	}
	return f
}

// render applies the targets of units to a file (nil data: a new, empty
// file) through c's codec, with each unit's state.
func render(c *index.Component, data []byte, f formats.File, units []index.Unit) ([]byte, error) {
	codec, err := codecOf(c)
	if err != nil {
		return nil, err
	}
	edits := make([]formats.Edit, len(units))
	for i, u := range units {
		edits[i] = formats.Edit{Context: u.Context, Source: u.Source, Target: u.Target, Plural: len(u.Source) > 1,
			Fuzzy: u.State >= index.StateFuzzy && u.State < index.StateTranslated, Approved: u.State == index.StateApproved}
	}
	return codec.Apply(data, f, edits)
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

// withoutUnits takes the removed units out of a file through c's codec
// (formats.Codec, Remove; only the removed entries' bytes change) and
// returns the ids of those the result no longer holds (all of them: a
// unit the file already lacks is out of it too).
func withoutUnits(c *index.Component, data []byte, f formats.File, removed []index.RemovedUnit) ([]byte, []int64, error) {
	done := make([]int64, 0, len(removed))
	for _, r := range removed {
		done = append(done, r.ID)
	}
	if data == nil {
		return nil, done, nil // a new, empty file holds nothing to remove
	}
	codec, err := codecOf(c)
	if err != nil {
		return nil, nil, err
	}
	keys := make([]formats.Key, len(removed))
	for i, r := range removed {
		keys[i] = formats.Key{Context: r.Context, Source: first(r.Source)}
	}
	out, err := codec.Remove(data, f, keys)
	if err != nil {
		return nil, nil, err
	}
	return out, done, nil
}

func first(forms []string) string {
	if len(forms) == 0 {
		return ""
	}
	return forms[0]
}
