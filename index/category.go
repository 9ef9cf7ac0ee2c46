package index

// Category groups components of one project, as the reference's
// categories do (projects of dozens of components grouped by product or
// branch). Categories nest: CategoryID is the parent, 0 at the project's
// top level, at most MaxCategoryDepth levels deep.
type Category struct {
	ID         int64
	ProjectID  int64
	CategoryID int64   // the parent category; 0 for none
	Project    Project // filled by finders
	Name       string
	Slug       string
}

// MaxCategoryDepth is how deep categories nest, counting the top level:
// the reference's CATEGORY_DEPTH.
const MaxCategoryDepth = 3

// CategoryNameLength bounds a category's name and slug, as the
// reference's COMPONENT_NAME_LENGTH does.
const CategoryNameLength = 100
