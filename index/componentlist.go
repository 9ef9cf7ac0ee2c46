package index

import "regexp"

// ComponentList is a named list of components of any projects (the
// reference's trans.ComponentList): a dashboard, and the components a
// team selects through it.
type ComponentList struct {
	ID            int64
	Name          string
	Slug          string
	ShowDashboard bool
	// Components are the listed components with their projects, filled
	// by the finders, in ascending id order.
	Components []Component
	// AutoAssign are the list's automatic assignment rules, in order;
	// filled by the finders, stored by the writes.
	AutoAssign []AutoAssign
}

// ComponentListNameLength bounds a component list's name and slug, as
// the reference's (max_length 100).
const ComponentListNameLength = 100

// AutoAssign is one of a component list's automatic assignment rules
// (the reference's AutoComponentList, its auto_assign): a component
// whose project's slug matches ProjectMatch and whose own slug matches
// ComponentMatch joins the list when it is created or renamed, and when
// the rule is written. Both match from the slug's start, as Python's
// re.match does in the reference; "^$" (its default) matches nothing.
// Rules only add: a component that stops matching stays listed, as
// there.
type AutoAssign struct {
	ProjectMatch   string
	ComponentMatch string
}

// AutoAssignRegexLength bounds a rule's expressions (the reference's
// max_length); MaxAutoAssignRules bounds a list's rules, which every
// component creation reads.
const (
	AutoAssignRegexLength = 200
	MaxAutoAssignRules    = 20
)

// CompileAutoAssign compiles one of a rule's expressions, anchored at
// the start; its error says what is wrong with it.
func CompileAutoAssign(pattern string) (*regexp.Regexp, error) {
	return regexp.Compile(`^(?:` + pattern + `)`)
}

// Matcher returns whether a (project slug, component slug)
// matches rule a; an error when either expression does not compile.
func (a AutoAssign) Matcher() (func(project, component string) bool, error) {
	p, err := CompileAutoAssign(a.ProjectMatch)
	if err != nil {
		return nil, err
	}
	c, err := CompileAutoAssign(a.ComponentMatch)
	if err != nil {
		return nil, err
	}
	return func(project, component string) bool { return p.MatchString(project) && c.MatchString(component) }, nil
}
