package index

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
}

// ComponentListNameLength bounds a component list's name and slug, as
// the reference's (max_length 100).
const ComponentListNameLength = 100
