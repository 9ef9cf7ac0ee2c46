package index

import "strings"

// LinkScheme starts a component's Repo that shares another component's
// repository: weblate://project/component, as the reference spells it.
// The linked component (its parent) owns the checkout: one clone, one
// set of git jobs, whose commits and pushes cover every component
// linked to it (reference: weblate-writes.md, repository operations:
// "perform_on_link").
const LinkScheme = "weblate://"

// The reference's messages for a link the store refuses (on the "repo"
// field), and for the settings a link leaves to its parent.
const (
	MsgLinkInvalid  = "Invalid link to a Weblate project, use weblate://project/component."
	MsgLinkSelf     = "Invalid link to a Weblate project, cannot link it to itself!"
	MsgLinkToLinked = "Invalid link to a Weblate project, cannot link to linked repository!"
	// MsgLinkedParent is Tolk's: the reference checks only the target,
	// so linking a component others link to made a chain (or, both
	// ways, a cycle) that its checkout code does not follow.
	MsgLinkedParent  = "Other components link to this component's repository, so it cannot link to another."
	MsgLinkNotOption = "Option is not available for linked repositories."
)

// IsLink reports whether repo is a link to another component's
// repository.
func IsLink(repo string) bool { return strings.HasPrefix(repo, LinkScheme) }

// LinkTarget returns the project and component slugs of a link;
// ok is false when repo is not a well-formed link.
func LinkTarget(repo string) (project, component string, ok bool) {
	rest, found := strings.CutPrefix(repo, LinkScheme)
	if !found {
		return "", "", false
	}
	project, component, found = strings.Cut(strings.TrimSuffix(rest, "/"), "/")
	if !found || project == "" || component == "" || strings.Contains(component, "/") {
		return "", "", false
	}
	return project, component, true
}

// GitID is the id of the component whose checkout c uses, whose git
// lock it takes and under whose id its head is recorded: its parent's
// for a linked component, its own otherwise.
func (c *Component) GitID() int64 {
	if c.LinkedID != 0 {
		return c.LinkedID
	}
	return c.ID
}
