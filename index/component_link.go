package index

import (
	"slices"
	"strings"
)

// LinkScheme starts a component's Repo that shares another component's
// repository: weblate://project/component, or
// weblate://project/category/…/component for a component in categories,
// as the reference spells them (Component.get_repo_link_url: its full
// slug behind the project's). The linked component (its parent) owns the
// checkout: one clone, one set of git jobs, whose commits and pushes
// cover every component linked to it (reference: weblate-writes.md,
// repository operations: "perform_on_link").
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

// LinkTarget returns the project slug, category path ("" for none, else
// "cat" or "cat/sub") and component slug of a link; ok is false when
// repo is not a well-formed link: fewer than two parts, an empty part, or
// more categories than MaxCategoryDepth. A link without the category
// path of a component in categories (the bare slug, which Tolk wrote
// before it knew categories) still names it: component slugs are unique
// in a project. The reference refuses that one; Tolk resolves both.
func LinkTarget(repo string) (project, categoryPath, component string, ok bool) {
	rest, found := strings.CutPrefix(repo, LinkScheme)
	if !found {
		return "", "", "", false
	}
	parts := strings.Split(strings.TrimSuffix(rest, "/"), "/")
	if len(parts) < 2 || len(parts) > MaxCategoryDepth+2 || slices.Contains(parts, "") {
		return "", "", "", false
	}
	n := len(parts)
	return parts[0], strings.Join(parts[1:n-1], "/"), parts[n-1], true
}

// LinkTo is the link naming c, with the category path it is under: what
// a component linked to c stores in its Repo, rewritten when c, its
// categories or its project are renamed or c moves.
func LinkTo(c *Component) string { return LinkScheme + c.Project.Slug + "/" + c.FullSlug() }

// GitID is the id of the component whose checkout c uses, whose git
// lock it takes and under whose id its head is recorded: its parent's
// for a linked component, its own otherwise.
func (c *Component) GitID() int64 {
	if c.LinkedID != 0 {
		return c.LinkedID
	}
	return c.ID
}
