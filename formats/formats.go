package formats

import "fmt"

// Unit is one translatable entry as a file holds it.
type Unit struct {
	// Context identifies the unit inside its file: the (flattened) key of
	// a JSON file, the termEntry id of a TBX file.
	Context string
	// Source holds the source text, one element per plural form. Empty
	// for monolingual files, whose source comes from the template.
	Source []string
	// Target holds the translation, one element per plural form. A single
	// empty string means untranslated.
	Target []string
	// Note and Explanation are free text kept with the unit.
	Note        string
	Explanation string
	// Flags are unit flags such as "read-only" or "forbidden".
	Flags []string
	// Line is the 1-based line the unit starts on, 0 if unknown.
	Line int
}

// Edit replaces the target of the unit with the given context.
type Edit struct {
	Context string
	Target  []string
}

// ParseError reports where a file could not be parsed.
type ParseError struct {
	Line, Column int // 1-based; 0 when unknown
	Err          error
}

func (e *ParseError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("line %d, column %d: %v", e.Line, e.Column, e.Err)
	}
	return e.Err.Error()
}

func (e *ParseError) Unwrap() error { return e.Err }
