package formats

import "time"

// Codec reads and writes the files of one format. sync holds one per
// file_format (see formats/codecs) and never looks inside a file
// itself: every format-specific decision lives behind these methods.
//
// Writers change only what an edit changes: the bytes of the edited
// values (and of a header a format keeps up to date, such as PO's
// PO-Revision-Date), never the layout, comments or order of the rest.
// A codec is safe for concurrent use; it keeps no state between calls.
type Codec interface {
	// Decode parses a whole file into its units, in file order. A file
	// that does not parse is a *ParseError with a line and column.
	Decode(data []byte, f File) ([]Unit, error)
	// Apply writes edits into data and returns the new bytes. Nil data
	// stands for a new, empty file of the format in f.Target's
	// language. An edit whose key the file lacks adds the unit in the
	// file's own style, except an untranslated one where absence already
	// says untranslated (monolingual key-value formats).
	Apply(data []byte, f File, edits []Edit) ([]byte, error)
	// Remove takes the units with the given keys out of data; keys the
	// file lacks are ignored. Only the removed units' bytes change.
	Remove(data []byte, f File, keys []Key) ([]byte, error)
}

// Templater is implemented by monolingual codecs that can turn a
// template (a file in the source language) into the file of a new
// translation: the template's shape with every value emptied, as the
// reference does when new_base is not set.
type Templater interface {
	Emptied(template []byte, f File) ([]byte, error)
}

// PathLanguages is implemented by codecs whose files name their
// language in the path in a syntax of the format's own rather than as a
// plain code: Android's values-pt-rBR, values-b+uz+Latn and values-in,
// Apple's pt-BR.lproj. sync asks it, when the component's codec has it,
// for the language of the path segment the filemask's `*` matches and
// for the segment of a new translation's file; a codec without it gets
// the segment as the code and the code as the segment.
type PathLanguages interface {
	// CodeFromPath returns the language code ("pt_BR", as the index
	// stores codes) that segment, the part of a path the filemask's `*`
	// stands for, names; ok is false when the segment names no language
	// (Android's values-night), and the path is then no translation.
	CodeFromPath(segment string) (code string, ok bool)
	// PathSegment returns the segment that names the language with the
	// given code, the inverse of CodeFromPath: CodeFromPath of it must
	// give code back.
	PathSegment(code string) string
}

// FileLanguages is implemented by codecs of formats whose one file holds
// every language (Format.OneFile: Apple's String Catalog). Such a
// component's filemask names the file itself, with no `*`, and sync
// asks the codec which languages the file holds; each becomes a
// translation whose file is that one file, read and written through
// File.Target like any other.
type FileLanguages interface {
	// FileLanguages returns the languages data holds, as the file spells
	// them ("pt-BR", "zh-Hans"), the source language among them. A file
	// that does not parse is a *ParseError.
	FileLanguages(data []byte) ([]string, error)
}

// LanguagesDecoder is implemented by codecs of one-file formats
// (FileLanguages) that can read several languages out of one parse of
// the file. A String Catalog holds every language, so reading it once
// per language with Decode parses the same bytes once per language;
// sync imports all of a component's languages with one call instead.
type LanguagesDecoder interface {
	// DecodeLanguages returns, for each of fs, what Decode(data, fs[i])
	// returns, in fs's order, from one parse of data. A file that does
	// not parse is a *ParseError, as Decode's.
	DecodeLanguages(data []byte, fs []File) ([][]Unit, error)
}

// File says what a codec needs to know of the file it reads or writes
// beyond its bytes.
type File struct {
	// Source and Target are the component's source language and the
	// file's language. For a template, Target is the source language.
	Source, Target Language
	// Translator ("Name <email>") and Revised are written by formats
	// whose header records who last changed the file and when (PO's
	// Last-Translator and PO-Revision-Date), when Apply changes it.
	Translator string
	Revised    time.Time
	// Template says the file is the component's template (monolingual
	// formats) or its source-language file.
	Template bool
	// PathCode is the language as the file's path spells it, the part
	// the filemask's `*` stands for ("pt-BR" for diaspora's pt-BR.yml,
	// whose Target.Code is "pt_BR"), or "" when the caller does not know
	// it. A format that names the language inside the file the way the
	// file's name does (Ruby YAML's root key) writes this spelling.
	PathCode string
	// Resolve maps a language as a file spells it inside ("nb",
	// "zh-Hans") to the code the index stores ("nb_NO", "zh_Hans"), as
	// sync's language table reads codes; nil when the caller has none. A
	// format whose one file holds every language (FileLanguages) uses it
	// to find which of the file's languages is Target, so that a file's
	// "nb" is written back as "nb", not as "nb-NO".
	Resolve func(spelling string) (code string, ok bool)
}

// Language is what a codec knows of a language.
type Language struct {
	Code string // as the index stores it: "de", "pt_BR", "zh_Hant"
	Name string // English name, for headers that carry one
	// Plurals names the language's plural forms with CLDR categories,
	// in form order ("one", "other"); Target and Source of a Unit list
	// plural forms in this order.
	Plurals []string
	// PluralFormula is the gettext expression over n ("n != 1") and
	// PluralCount its number of forms, for formats that write them
	// (PO's Plural-Forms header).
	PluralFormula string
	PluralCount   int
}

// Key names one unit inside a file: its Context alone in monolingual
// formats (the key), its Context and Source in bilingual ones (PO's
// msgctxt and msgid, a TBX term and its id).
type Key struct {
	Context string
	Source  string
}
