package sync

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/tolk-project/tolk/vcs"
)

// errLanguageRegex is wrapped by NewFilemask's error when the fault is
// in language_regex rather than the mask.
var errLanguageRegex = errors.New("sync: invalid language_regex")

// Filemask matches repository paths against a component's filemask, in
// which one `*` stands for the language code.
type Filemask struct {
	mask   string
	re     *regexp.Regexp
	langRe *regexp.Regexp
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

// Code returns the language code a path stands for, and false when the
// path does not match the mask or its code fails language_regex.
func (f *Filemask) Code(path string) (string, bool) {
	m := f.re.FindStringSubmatch(path)
	if m == nil {
		return "", false
	}
	if f.langRe != nil && !f.langRe.MatchString(m[1]) {
		return "", false
	}
	return m[1], true
}

// Path returns the file path for a language code.
func (f *Filemask) Path(code string) string { return strings.Replace(f.mask, "*", code, 1) }

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

// Match reports whether a path belongs to the component.
func (f *Filemask) Match(path string) bool {
	_, ok := f.Code(path)
	return ok
}
