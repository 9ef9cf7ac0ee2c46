package index

import "slices"

// Selections of a team's projects and languages, with the reference's
// values (weblate/auth/data.py SELECTION_*).
const (
	SelectManual        = 0 // the projects, components or languages the team lists
	SelectAll           = 1
	SelectComponentList = 2 // the components of the team's component lists (projects only)
	SelectAllPublic     = 3 // projects only
	SelectAllProtected  = 4 // projects only
)

// ValidProjectSelection and ValidLanguageSelection report whether v is
// a selection the field takes.
func ValidProjectSelection(v int) bool  { return v >= SelectManual && v <= SelectAllProtected }
func ValidLanguageSelection(v int) bool { return v == SelectManual || v == SelectAll }

// Team is the reference's group: its members hold its roles over its
// selection of projects and languages. A team with a defining project
// (ProjectID) is that project's own and grants nothing outside it; the
// others select projects. Built-in teams are those the command line's
// grants (and migration 0040, from the grants before teams) fill.
type Team struct {
	ID                int64
	Name              string
	ProjectID         int64  // the defining project; 0 for none
	Project           string // its slug, filled by finders
	ProjectSelection  int
	LanguageSelection int
	Builtin           bool

	// Filled by FindTeam and the team lists, each in ascending order of
	// id (languages: code).
	Roles            []int64
	Languages        []string
	Projects         []string // slugs
	ProjectIDs       []int64  // the same projects' ids
	Components       []TeamComponent
	ComponentLists   []string // slugs
	ComponentListIDs []int64
	Admins           []string // usernames
	AdminIDs         []int64
}

// TeamFilter narrows a list of teams: with Everything, every team;
// otherwise those UserID is a member or an admin of and those of the
// projects in Projects (the projects whose teams the reader manages).
type TeamFilter struct {
	Everything bool
	UserID     int64
	Projects   []int64
}

// TeamComponent names a component a team lists.
type TeamComponent struct {
	ID      int64
	Project string
	Slug    string
}

// TeamLink is one kind of thing a team lists, added and removed one at
// a time.
type TeamLink string

const (
	TeamRoles          TeamLink = "roles"
	TeamLanguages      TeamLink = "languages"
	TeamProjects       TeamLink = "projects"
	TeamComponents     TeamLink = "components"
	TeamComponentLists TeamLink = "componentlists"
	TeamAdmins         TeamLink = "admins"
	TeamMembers        TeamLink = "members"
)

// TeamNameLength bounds a team's and a role's name, as the reference's
// Group.name and Role.name (max_length 150).
const TeamNameLength = 150

// StoredRole is a role as the index keeps it: a built-in one, whose
// permissions are BuiltinRoles', or a custom one.
type StoredRole struct {
	ID int64
	Role
	Builtin bool
}

// KnownPermissions are every permission a role may hold, in the
// reference's order of areas.
var KnownPermissions = slices.Concat(adminPerms, globalPermissions)

// ValidPermission reports whether p is a permission Tolk knows.
func ValidPermission(p Permission) bool { return slices.Contains(KnownPermissions, p) }
