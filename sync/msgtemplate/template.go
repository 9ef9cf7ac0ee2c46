package msgtemplate

import (
	"errors"
	"fmt"
)

// Template is a parsed template. It is not changed after Parse, so one
// Template may render in several goroutines at once.
type Template struct {
	nodes []node
}

// Parse parses src. It returns a *Error saying on which line and why src
// is not a template this package renders: a syntax error, or a tag, a
// filter or an expression of Django's it refuses (see the package
// documentation). Parsing reads every branch, so an error in a branch no
// value would take is found too.
func Parse(src string) (*Template, error) {
	nodes, err := parse(src)
	if err != nil {
		return nil, err
	}
	return &Template{nodes: nodes}, nil
}

// Render renders t with vars, the variables under their template names.
// Values are strings, ints, float64s, bools, nil, []any and *Object;
// a value of another type renders as "". A variable or attribute that
// vars does not give renders as "", as Django's does: Check finds such
// names before a template is saved. The text is returned as rendered,
// blank lines and all.
//
// Render reads vars and never changes it. It returns ErrRenderLimit (and
// no text) when the rendering takes too many steps or grows too long;
// no other error.
func (t *Template) Render(vars map[string]any) (string, error) {
	r := renderer{scopes: []map[string]any{vars}}
	if err := r.render(t.nodes); err != nil {
		return "", err
	}
	return r.out.String(), nil
}

// Check reports whether t is safe to render with values like sample:
// a *Error naming the line of the first {{ }} that uses a variable or
// attribute sample does not give (in any branch: see check.go), or
// ErrRenderLimit when rendering t with sample exceeds the limits, or nil.
// A list in sample stands for lists of any length whose items have the
// attributes of its items; an empty list for lists of anything. The
// conditions of {% if %} and the list of {% for %} may name what sample
// does not give: Django reads them as false and empty.
func (t *Template) Check(sample map[string]any) error {
	if err := checkNames(t.nodes, sample); err != nil {
		return err
	}
	_, err := t.Render(sample)
	return err
}

// Object is a value with named attributes, read as {{ v.name }}, and the
// text it renders as by itself (Python's str()). A nil *Object has no
// attributes and renders as "".
type Object struct {
	Attrs map[string]any
	Text  string
}

// Error is a template that Parse refuses or that Check finds naming a
// variable the sample does not give: Line is the 1-based line of the tag
// at fault and Msg says what is wrong.
type Error struct {
	Line int
	Msg  string
}

func (e *Error) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

// ErrRenderLimit is a template that renders too much: too many steps
// (nodes and loop iterations) or too much text, as nested loops do.
var ErrRenderLimit = errors.New("msgtemplate: template renders too much (nested loops?)")
