package sync

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/tolk-project/tolk/formats"
	"github.com/tolk-project/tolk/formats/codecs"
	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/vcs"
)

// errLanguageRegex is wrapped by NewFilemask's error when the fault is
// in language_regex rather than the mask.
var errLanguageRegex = errors.New("sync: invalid language_regex")

// Filemask matches repository paths against a component's filemask, in
// which one `*` stands for the language code, or for a path segment
// naming the language in a format's own syntax (WithPathLanguages).
//
// A component of a format whose one file holds every language
// (formats.Format.OneFile) has a filemask without `*`: the file's path
// (newOneFileMask). Such a mask matches that path only; the file's
// languages come from the codec (formats.FileLanguages), not the path.
type Filemask struct {
	mask   string
	re     *regexp.Regexp
	langRe *regexp.Regexp
	langs  formats.PathLanguages // nil: the segment is the code
	// one is the codec of a one-file mask, nil for a mask with a `*`.
	one formats.FileLanguages
}

// NewFilemask compiles a filemask and the component's language_regex
// (empty means no filter).
func NewFilemask(mask, languageRegex string) (*Filemask, error) {
	if strings.Count(mask, "*") != 1 {
		return nil, fmt.Errorf("filemask %q must contain exactly one '*'", mask)
	}
	before, after, _ := strings.Cut(mask, "*")
	re, err := regexp.Compile("^" + regexp.QuoteMeta(before) + "([^/]+)" + regexp.QuoteMeta(after) + "$")
	if err != nil {
		return nil, fmt.Errorf("filemask %q: %w", mask, err)
	}
	f := &Filemask{mask: mask, re: re}
	if languageRegex != "" {
		if f.langRe, err = regexp.Compile(languageRegex); err != nil {
			return nil, fmt.Errorf("%w %q: %w", errLanguageRegex, languageRegex, err)
		}
	}
	return f, nil
}

// newOneFileMask is the mask of a one-file component: path names the
// file that holds every language; languageRegex filters the languages
// read from it.
func newOneFileMask(path, languageRegex, format string, codec formats.FileLanguages) (*Filemask, error) {
	if strings.Contains(path, "*") || path == "" {
		return nil, fmt.Errorf("filemask %q must be the path of the one file holding every language (file_format %s), without '*'",
			path, format)
	}
	f := &Filemask{mask: path, re: regexp.MustCompile("^" + regexp.QuoteMeta(path) + "$"), one: codec}
	if languageRegex != "" {
		var err error
		if f.langRe, err = regexp.Compile(languageRegex); err != nil {
			return nil, fmt.Errorf("%w %q: %w", errLanguageRegex, languageRegex, err)
		}
	}
	return f, nil
}

// WithPathLanguages makes f read and write the `*` segment with pl (a
// format's path syntax, as Android's values-pt-rBR) instead of as the
// code itself, and returns f; nil pl keeps the plain code.
func (f *Filemask) WithPathLanguages(pl formats.PathLanguages) *Filemask {
	f.langs = pl
	return f
}

// componentMask is c's filemask, with its codec's path syntax when the
// codec has one (formats.PathLanguages).
func componentMask(c index.Component) (*Filemask, error) {
	if codec, ok := oneFileCodec(&c); ok {
		return newOneFileMask(c.Filemask, c.LanguageRegex, c.FileFormat, codec)
	}
	f, err := NewFilemask(c.Filemask, c.LanguageRegex)
	if err != nil {
		return nil, err
	}
	if codec, ok := codecs.Lookup(c.FileFormat); ok {
		if pl, ok := codec.(formats.PathLanguages); ok {
			f.WithPathLanguages(pl)
		}
	}
	return f, nil
}

// CheckFilemask checks c's filemask and language_regex as its imports
// will read them: a format keeping every language in one file takes
// that file's path, without '*', any other a mask with one '*'. The
// error is an *index.FieldError on "filemask" or "language_regex".
func CheckFilemask(c index.Component) error {
	_, err := checkedMask(c)
	return err
}

// checkedMask is componentMask with CheckFilemask's errors: the mask a
// check goes on with once it passes.
func checkedMask(c index.Component) (*Filemask, error) {
	f, err := componentMask(c)
	if err != nil {
		field := "filemask"
		if errors.Is(err, errLanguageRegex) {
			field = "language_regex"
		}
		return nil, index.FieldErr(field, "invalid", err.Error())
	}
	return f, nil
}

// oneFileCodec returns c's codec when c's format keeps every language
// in one file (formats.Format.OneFile).
func oneFileCodec(c *index.Component) (formats.FileLanguages, bool) {
	if f, ok := formats.Lookup(c.FileFormat); !ok || !f.OneFile {
		return nil, false
	}
	codec, _ := codecs.Lookup(c.FileFormat)
	fl, ok := codec.(formats.FileLanguages)
	return fl, ok
}

// Code returns the language code a path stands for, and false when the
// path does not match the mask or its `*` segment fails language_regex
// or, with PathLanguages, names no language. A one-file mask names no
// language in its path: Code gives "" and whether path is the file.
func (f *Filemask) Code(path string) (string, bool) {
	m := f.re.FindStringSubmatch(path)
	if m == nil {
		return "", false
	}
	if f.one != nil {
		return "", true
	}
	if f.langRe != nil && !f.langRe.MatchString(m[1]) {
		return "", false
	}
	if f.langs != nil {
		return f.langs.CodeFromPath(m[1])
	}
	return m[1], true
}

// Path returns the file path for a language code, written in the
// format's path syntax with PathLanguages.
func (f *Filemask) Path(code string) string {
	if f.one != nil {
		return f.mask
	}
	if f.langs != nil {
		code = f.langs.PathSegment(code)
	}
	return f.segmentPath(code)
}

// segmentPath returns the mask with segment in place of its `*`.
func (f *Filemask) segmentPath(segment string) string {
	if f.one != nil {
		return f.mask
	}
	return strings.Replace(f.mask, "*", segment, 1)
}

// Scope returns the part of a tree the mask can match: the directory
// before its `*` and as many levels below it as the mask has slashes
// after that directory. Walking only it keeps the rest of the repository
// (however large or hostile) out of an import.
func (f *Filemask) Scope() vcs.Scope { return pathScope(f.mask) }

// pathScope is the Scope holding the path p, whose last `*` (if any)
// stands for one path segment or part of one.
func pathScope(p string) vcs.Scope {
	before, _, _ := strings.Cut(p, "*")
	dir := ""
	if i := strings.LastIndexByte(before, '/'); i >= 0 {
		dir = before[:i]
	}
	rest := strings.TrimPrefix(p[len(dir):], "/")
	return vcs.Scope{Dir: dir, Depth: strings.Count(rest, "/")}
}

// allows reports whether language_regex lets a language the file spells
// as spelling in: every language passes a mask without a regex.
func (f *Filemask) allows(spelling string) bool {
	return f.langRe == nil || f.langRe.MatchString(spelling)
}

// Match reports whether a path belongs to the component.
func (f *Filemask) Match(path string) bool {
	_, ok := f.Code(path)
	return ok
}
