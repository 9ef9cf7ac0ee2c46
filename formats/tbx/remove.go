package tbx

import (
	"io"
	"strings"
)

// Term names the termEntries whose source term and id are Source and
// Context, as Edit does, for EncodeWithout.
type Term struct {
	Source  string
	Context string
}

// EncodeWithout writes f to w without the termEntries that terms name
// (every entry whose source term, in the langSet matching sourceLang,
// and Context equal a term's, so duplicates go together, as EncodeTerms
// edits them together) and returns how many it took out; a term the file
// lacks is no error. With nothing to take out the output is byte for byte
// what was decoded. Only the removed entries' bytes go: an entry alone on
// its lines goes with its indentation and line break, so the other lines
// keep their bytes; an entry sharing a line with other markup goes
// alone.
func (f *File) EncodeWithout(w io.Writer, sourceLang, targetLang string, terms []Term) (int, error) {
	drop := make(map[Term]bool, len(terms))
	for _, t := range terms {
		drop[t] = true
	}
	var b strings.Builder
	b.Grow(len(f.src))
	pos, n := 0, 0
	for i := range f.entries {
		e := &f.entries[i]
		si, _ := e.pick(sourceLang, targetLang)
		if !drop[Term{e.termText(si), e.id}] {
			continue
		}
		start, end := wholeLines(f.src, e.start, e.end)
		b.Write(f.src[pos:start])
		pos = end
		n++
	}
	b.Write(f.src[pos:])
	_, err := io.WriteString(w, b.String())
	return n, err
}

// wholeLines widens src[start:end] to the whole lines it covers when
// nothing but spaces and tabs shares them: from the start of its first
// line to just past the line break of its last. Otherwise it returns
// start and end as they are.
func wholeLines(src []byte, start, end int) (int, int) {
	ls := start
	for ls > 0 && (src[ls-1] == ' ' || src[ls-1] == '\t') {
		ls--
	}
	if ls > 0 && src[ls-1] != '\n' {
		return start, end
	}
	le := end
	for le < len(src) && (src[le] == ' ' || src[le] == '\t' || src[le] == '\r') {
		le++
	}
	switch {
	case le < len(src) && src[le] == '\n':
		return ls, le + 1
	case le == len(src):
		return ls, le
	}
	return start, end
}
