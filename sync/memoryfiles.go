package sync

import (
	"errors"
	"fmt"
	"io"

	"github.com/tolk-project/tolk/formats"
	"github.com/tolk-project/tolk/formats/tmx"
	"github.com/tolk-project/tolk/index"
)

// MemoryFiles reads and writes the TMX files of the translation
// memory's import and export (formats/tmx) for the API, which may not
// import formats. Languages are passed as the file writes them: the
// caller resolves them. The zero value is ready to use and safe for
// concurrent use.
type MemoryFiles struct{}

// DecodeMemoryTMX reads a TMX document of at most maxBytes bytes. A
// document Tolk refuses (too large, a DOCTYPE, not TMX, not XML) is an
// ErrInvalid whose message says why.
func (MemoryFiles) DecodeMemoryTMX(r io.Reader, maxBytes int64) ([]index.MemoryImportEntry, error) {
	units, err := tmx.Decode(r, maxBytes)
	switch {
	case errors.Is(err, tmx.ErrTooLarge):
		return nil, index.Errorf(index.ErrInvalid, "The file is larger than %d bytes.", maxBytes)
	case errors.Is(err, formats.ErrDoctype):
		return nil, index.Errorf(index.ErrInvalid, "Could not parse the file: a DOCTYPE is not accepted in TMX.")
	case err != nil:
		return nil, index.Errorf(index.ErrInvalid, "Could not parse the file: %v", err)
	}
	out := make([]index.MemoryImportEntry, len(units))
	for i, u := range units {
		out[i] = index.MemoryImportEntry{SourceLanguage: u.SourceLanguage, TargetLanguage: u.TargetLanguage,
			Source: u.Source, Target: u.Target, Context: u.Context, Origin: u.Origin}
	}
	return out, nil
}

// EncodeMemoryTMX writes a TMX document to w, whose header names
// sourceLanguage ("" when the entries have several), with the entries
// each gives to write, one <tu> at a time as they come. An error of each
// or of w stops it.
func (MemoryFiles) EncodeMemoryTMX(w io.Writer, sourceLanguage string,
	each func(write func(index.MemoryEntry) error) error) error {
	enc := tmx.NewEncoder(w, sourceLanguage, "Tolk")
	err := each(func(e index.MemoryEntry) error {
		return enc.Encode(tmx.Unit{SourceLanguage: e.SourceLanguage, TargetLanguage: e.TargetLanguage,
			Source: e.Source, Target: e.Target, Context: e.Context, Origin: e.Origin})
	})
	if err != nil {
		return fmt.Errorf("write tmx: %w", err)
	}
	return enc.Close()
}
