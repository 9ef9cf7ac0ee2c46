package msgtemplate

import (
	"fmt"
	"strings"
)

// This file checks the names a template uses before it is saved. The
// reference renders with an invalid-variable hook that makes
// {{ undefined }} an error ("Undefined variable"), but only on the
// branches its sample renders, so a typo inside a loop or a condition
// still fails at commit time. Check looks at every {{ }} of every branch
// against the shapes of a sample's values, and Render makes an undefined
// variable "", so that a commit never fails on its message. Conditions
// of {% if %} and the list of {% for %} stay lenient, as Django's are:
// an undefined name there is false or empty.

// shape is what a value is, as far as its attributes go: anything (a
// literal, a filter's result), a list whose items have shape item, an
// object with attrs, or a scalar (a string, a number, a bool, None),
// which has no attributes.
type shape struct {
	any   bool
	item  *shape
	attrs map[string]*shape
}

var (
	anyShape    = &shape{any: true}
	scalarShape = &shape{}
	// forloopShape is Django's forloop: counters, first and last, and
	// parentloop, a forloop (or None outside a nested loop).
	forloopShape = func() *shape {
		s := &shape{attrs: map[string]*shape{}}
		for _, k := range []string{"counter", "counter0", "revcounter", "revcounter0", "first", "last"} {
			s.attrs[k] = scalarShape
		}
		s.attrs["parentloop"] = s
		return s
	}()
)

// shapeOf is the shape of the sample value v. A list's items have the
// shapes of its sample items merged; an empty sample list's items may be
// anything.
func shapeOf(v any) *shape {
	switch v := v.(type) {
	case *Object:
		if v == nil {
			return scalarShape
		}
		s := &shape{attrs: make(map[string]*shape, len(v.Attrs))}
		for k, a := range v.Attrs {
			s.attrs[k] = shapeOf(a)
		}
		return s
	case []any:
		if len(v) == 0 {
			return &shape{item: anyShape}
		}
		item := shapeOf(v[0])
		for _, e := range v[1:] {
			item = merge(item, shapeOf(e))
		}
		return &shape{item: item}
	}
	return scalarShape
}

// merge is a shape that has what a or b has.
func merge(a, b *shape) *shape {
	if a.any || b.any {
		return anyShape
	}
	m := &shape{}
	switch {
	case a.item != nil && b.item != nil:
		m.item = merge(a.item, b.item)
	case a.item != nil:
		m.item = a.item
	default:
		m.item = b.item
	}
	if a.attrs != nil || b.attrs != nil {
		m.attrs = make(map[string]*shape, len(a.attrs)+len(b.attrs))
		for k, s := range a.attrs {
			m.attrs[k] = s
		}
		for k, s := range b.attrs {
			if t, ok := m.attrs[k]; ok {
				s = merge(t, s)
			}
			m.attrs[k] = s
		}
	}
	return m
}

// attr is the shape of attribute name of a value of shape s: a list's
// item by index or an object's attribute; false when it has no such
// attribute.
func (s *shape) attr(name string) (*shape, bool) {
	switch {
	case s.any:
		return anyShape, true
	case s.item != nil:
		return s.item, isIndex(name)
	}
	a, ok := s.attrs[name]
	return a, ok
}

func isIndex(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// nameChecker walks a template with the shapes of the names in scope,
// innermost last.
type nameChecker struct {
	scopes []map[string]*shape
}

// checkNames reports the first {{ }} that uses a variable or attribute
// sample does not give.
func checkNames(nodes []node, sample map[string]any) error {
	root := make(map[string]*shape, len(sample))
	for k, v := range sample {
		root[k] = shapeOf(v)
	}
	c := nameChecker{scopes: []map[string]*shape{root}}
	return c.nodes(nodes)
}

func (c *nameChecker) nodes(nodes []node) error {
	for _, n := range nodes {
		var err error
		switch n := n.(type) {
		case varNode:
			err = c.expr(n.expr, n.line)
		case ifNode:
			for _, body := range n.bodies {
				if err = c.nodes(body); err != nil {
					return err
				}
			}
			err = c.nodes(n.els)
		case forNode:
			err = c.loop(n)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (c *nameChecker) loop(n forNode) error {
	item := anyShape
	if !n.seq.base.isLit && len(n.seq.filters) == 0 {
		if s, ok := c.shape(n.seq.base.path); ok && s.item != nil {
			item = s.item
		}
	}
	c.scopes = append(c.scopes, map[string]*shape{n.name: item, "forloop": forloopShape})
	err := c.nodes(n.body)
	c.scopes = c.scopes[:len(c.scopes)-1]
	if err != nil {
		return err
	}
	return c.nodes(n.empty)
}

// expr checks a {{ }}'s operand and filter arguments.
func (c *nameChecker) expr(e *filterExpr, line int) error {
	ops := []*operand{&e.base}
	for _, f := range e.filters {
		if f.arg != nil {
			ops = append(ops, f.arg)
		}
	}
	for _, o := range ops {
		if o.isLit {
			continue
		}
		if _, ok := c.shape(o.path); !ok {
			return &Error{line, fmt.Sprintf("undefined variable %q", strings.Join(o.path, "."))}
		}
	}
	return nil
}

// shape is the shape of the variable at path; false when undefined.
func (c *nameChecker) shape(path []string) (*shape, bool) {
	var s *shape
	found := false
	for i := len(c.scopes) - 1; i >= 0 && !found; i-- {
		s, found = c.scopes[i][path[0]]
	}
	if !found {
		return nil, false
	}
	for _, name := range path[1:] {
		var ok bool
		if s, ok = s.attr(name); !ok {
			return nil, false
		}
	}
	return s, true
}
