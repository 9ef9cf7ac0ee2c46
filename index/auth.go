package index

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"slices"
	"strings"
	"time"
)

// Permission is one thing a user may do, named with the reference's
// codenames (weblate/auth/data.py) so that its documentation and error
// messages carry over.
type Permission string

// The permissions Tolk checks. Project-level ones are granted per project
// or site-wide; the global ones (project.add, language.edit, user.edit)
// only site-wide.
const (
	PermUnitEdit          Permission = "unit.edit"
	PermUnitReview        Permission = "unit.review"
	PermUnitCheck         Permission = "unit.check" // dismiss a failing check
	PermUnitAdd           Permission = "unit.add"
	PermUnitDelete        Permission = "unit.delete"
	PermUnitTemplate      Permission = "unit.template"
	PermSourceEdit        Permission = "source.edit"
	PermSuggestionAdd     Permission = "suggestion.add"
	PermSuggestionAccept  Permission = "suggestion.accept"
	PermSuggestionDelete  Permission = "suggestion.delete" // anyone's; an author may delete their own
	PermSuggestionVote    Permission = "suggestion.vote"
	PermUnitOverride      Permission = "unit.override" // save directly under suggestion voting
	PermCommentAdd        Permission = "comment.add"
	PermCommentResolve    Permission = "comment.resolve" // others' comments; authors resolve their own
	PermCommentDelete     Permission = "comment.delete"  // others' comments; authors remove their own
	PermUploadPerform     Permission = "upload.perform"
	PermUploadOverwrite   Permission = "upload.overwrite"
	PermUploadAuthorship  Permission = "upload.authorship"
	PermTranslationAdd    Permission = "translation.add"
	PermTranslationDelete Permission = "translation.delete"
	PermComponentEdit     Permission = "component.edit"
	PermComponentLock     Permission = "component.lock"
	PermProjectEdit       Permission = "project.edit"
	PermVCSCommit         Permission = "vcs.commit"
	PermVCSPush           Permission = "vcs.push"
	PermVCSUpdate         Permission = "vcs.update"
	PermVCSReset          Permission = "vcs.reset"
	PermVCSView           Permission = "vcs.view"
	// PermMachineryView is asking the project's machine translation
	// services for suggestions in the editor: one of the reference's
	// TRANSLATE_PERMS, so every role that translates has it.
	PermMachineryView Permission = "machinery.view"
	// The translation memory's (reference workspace §5.2, §5.4): import
	// into a project's memory, delete its imported entries.
	PermMemoryEdit   Permission = "memory.edit"
	PermMemoryDelete Permission = "memory.delete"
	// PermTranslationAuto is running an automatic translation (reference
	// workspace §6.3): the role "Automatic translation" and
	// administrators have it, translators do not.
	PermTranslationAuto Permission = "translation.auto"

	PermProjectAdd   Permission = "project.add"
	PermLanguageEdit Permission = "language.edit"
	PermUserEdit     Permission = "user.edit"
	// PermMemoryManage is every project's memory and the site-wide one:
	// list, import, export and delete any entry.
	PermMemoryManage Permission = "memory.manage"
	// PermGroupEdit and PermRoleEdit are the reference's: manage every
	// team (a project's own teams also yield to project.edit there) and
	// the custom roles.
	PermGroupEdit Permission = "group.edit"
	PermRoleEdit  Permission = "role.edit"
	// PermComponentListEdit is the reference's: create, change and
	// remove component lists. No built-in role holds it (as in the
	// reference): superusers, or a custom role on a site-wide team.
	PermComponentListEdit Permission = "componentlist.edit"
)

// globalPermissions are never granted by a project role: they act on
// objects outside any project.
var globalPermissions = []Permission{PermProjectAdd, PermLanguageEdit, PermUserEdit, PermMemoryManage,
	PermGroupEdit, PermRoleEdit, PermComponentListEdit}

// IsGlobal reports whether p can only be granted site-wide.
func (p Permission) IsGlobal() bool { return slices.Contains(globalPermissions, p) }

// Role is a named set of permissions.
type Role struct {
	Name        string
	Permissions []Permission
}

var (
	// translatePerms are the reference's TRANSLATE_PERMS that Tolk has:
	// a translator may overwrite translated strings with an upload (wlc
	// upload --overwrite); approved ones still need a reviewer. Reviewers
	// add, as the reference's "Review strings", deleting anyone's
	// suggestion, saving directly under suggestion voting and resolving
	// comments; administrators remove comments (weblate/auth/data.py).
	translatePerms = []Permission{PermUnitEdit, PermSuggestionAdd, PermUploadPerform, PermUploadOverwrite,
		PermSuggestionAccept, PermSuggestionVote, PermCommentAdd, PermMachineryView}
	reviewPerms = append(slices.Clone(translatePerms), PermUnitReview, PermUnitCheck, PermSuggestionDelete,
		PermUnitOverride, PermCommentResolve)
	stringPerms = []Permission{PermUnitAdd, PermUnitDelete, PermUnitTemplate, PermSourceEdit}
	repoPerms   = []Permission{PermVCSCommit, PermVCSPush, PermVCSUpdate, PermVCSReset, PermVCSView,
		PermComponentLock}
	adminPerms = slices.Concat(reviewPerms, stringPerms, repoPerms, []Permission{PermUploadAuthorship,
		PermTranslationAdd, PermTranslationDelete, PermComponentEdit, PermProjectEdit, PermCommentDelete,
		PermMemoryEdit, PermMemoryDelete, PermTranslationAuto})
)

// BuiltinRoles are the roles every deployment has, after the reference's
// defaults of the same names. "Add projects" and "Manage languages" hold
// global permissions and mean something only when granted site-wide.
var BuiltinRoles = []Role{
	{"Translate", translatePerms},
	{"Review strings", reviewPerms},
	{"Manage strings", stringPerms},
	{"Manage repository", repoPerms},
	{"Administration", adminPerms},
	{"Add projects", []Permission{PermProjectAdd}},
	{"Manage languages", []Permission{PermLanguageEdit}},
	{"Manage translation memory", []Permission{PermMemoryEdit, PermMemoryDelete, PermMemoryManage}},
	{"Automatic translation", []Permission{PermTranslationAuto}},
	{"Manage teams", []Permission{PermGroupEdit, PermRoleEdit}},
}

// roleAliases are the short names the command line accepts.
var roleAliases = map[string]string{
	"translate": "Translate", "translator": "Translate",
	"review": "Review strings", "reviewer": "Review strings", "review strings": "Review strings",
	"strings": "Manage strings", "manage strings": "Manage strings",
	"repository": "Manage repository", "manage repository": "Manage repository",
	"admin": "Administration", "administration": "Administration",
	"add projects": "Add projects", "manage languages": "Manage languages",
	"memory": "Manage translation memory", "manage translation memory": "Manage translation memory",
	"autotranslate": "Automatic translation", "automatic translation": "Automatic translation",
	"teams": "Manage teams", "manage teams": "Manage teams",
}

// FindRole returns the built-in role by name or alias, ignoring case.
func FindRole(name string) (Role, bool) {
	if canon, ok := roleAliases[strings.ToLower(strings.TrimSpace(name))]; ok {
		name = canon
	}
	for _, r := range BuiltinRoles {
		if r.Name == name {
			return r, true
		}
	}
	return Role{}, false
}

// Has reports whether the role grants p.
func (r Role) Has(p Permission) bool { return slices.Contains(r.Permissions, p) }

// Grant gives a user a role, in one project or (ProjectID 0) site-wide.
// The command line grants built-in roles; teams (team.go) grant any
// role, narrowed to a component or to languages, and reach the
// principal as grants too, so that every permission check reads them
// the same way.
type Grant struct {
	UserID    int64
	Role      string
	ProjectID int64
	// ComponentID, when not 0, narrows the grant to one component of
	// ProjectID.
	ComponentID int64
	// Languages, when not nil, narrow the grant to translations into
	// these language codes.
	Languages []string
	// Permissions, when not nil, are the role's: a custom role's. Nil
	// means the built-in role named Role.
	Permissions []Permission
}

// has reports whether the grant's role holds perm.
func (g *Grant) has(perm Permission) bool {
	if g.Permissions != nil {
		return slices.Contains(g.Permissions, perm)
	}
	r, ok := FindRole(g.Role)
	return ok && r.Has(perm)
}

// covers reports whether the grant reaches the target: its project (or
// the site), its component and its language. A site-wide grant never
// grants a global permission through a project's target and a narrowed
// one reaches only targets that name its component or language: a
// check made for a whole project (language "") is not met by a grant
// for one language of it.
func (g *Grant) covers(perm Permission, at target) bool {
	switch {
	case g.ProjectID != 0 && (g.ProjectID != at.projectID || perm.IsGlobal()):
		return false
	case g.ComponentID != 0 && g.ComponentID != at.componentID:
		return false
	case g.Languages != nil && (at.language == "" || !slices.Contains(g.Languages, at.language)):
		return false
	}
	return true
}

// target is what a permission is checked on: a project (0 for the
// site), and within it maybe a component and a language.
type target struct {
	projectID   int64
	componentID int64
	language    string
}

// Access control levels of a project, with the reference's values.
const (
	AccessPublic    = 0   // anyone reads; writes need a role
	AccessProtected = 1   // anyone reads; writes need a role in the project
	AccessPrivate   = 100 // only users with a role in the project (or superusers) see it
)

// TokenScope narrows what a token may do below what its user may: read
// only, translate (edits and uploads), or everything the user can
// (admin).
type TokenScope string

const (
	ScopeRead      TokenScope = "read"
	ScopeTranslate TokenScope = "translate"
	ScopeAdmin     TokenScope = "admin"
)

// translateScope is what a translate-scoped token may do: comments are
// part of translating.
var translateScope = []Permission{PermUnitEdit, PermUnitReview, PermUnitAdd, PermSuggestionAdd,
	PermUploadPerform, PermUploadOverwrite, PermSuggestionAccept, PermSuggestionDelete, PermSuggestionVote,
	PermUnitOverride, PermCommentAdd, PermCommentResolve, PermMachineryView}

// Valid reports whether s is a known scope.
func (s TokenScope) Valid() bool { return s == ScopeRead || s == ScopeTranslate || s == ScopeAdmin }

func (s TokenScope) allows(p Permission) bool {
	switch s {
	case ScopeAdmin:
		return true
	case ScopeTranslate:
		return slices.Contains(translateScope, p)
	}
	return false
}

// Token prefixes, as the reference issues them: user tokens and project
// (bot) tokens.
const (
	UserTokenPrefix    = "wlu_"
	ProjectTokenPrefix = "wlp_"
	tokenRandomLen     = 36
)

// Token is an API token as stored: never the token itself, only its
// SHA-256. Tokens are 36 random characters from a 62-letter alphabet
// (214 bits), so a fast hash is enough: nobody can search that space, and
// a lookup by hash reveals nothing about a guess's nearness.
type Token struct {
	ID        int64
	UserID    int64
	Username  string // filled by finders
	Name      string // a label for listing ("ci", "laptop")
	Hash      string // hex SHA-256 of the token
	Prefix    string // wlu_ or wlp_, for listing
	Scope     TokenScope
	ProjectID int64 // 0: every project
	Created   time.Time
	Expires   time.Time // zero: never
	LastUsed  time.Time
}

// Expired reports whether the token has expired at now.
func (t *Token) Expired(now time.Time) bool { return !t.Expires.IsZero() && !now.Before(t.Expires) }

const tokenAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

// NewToken returns a fresh token with the given prefix: the prefix and 36
// characters drawn uniformly (by rejection) from [A-Za-z0-9].
func NewToken(prefix string) string {
	out := make([]byte, 0, len(prefix)+tokenRandomLen)
	out = append(out, prefix...)
	var buf [64]byte
	for len(out) < cap(out) {
		rand.Read(buf[:])
		for _, b := range buf {
			// 248 = 4*62: bytes above it would favour the first letters.
			if b < 248 && len(out) < cap(out) {
				out = append(out, tokenAlphabet[b%62])
			}
		}
	}
	return string(out)
}

// HashToken returns the hex SHA-256 under which a token is stored.
func HashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// TokenMatches compares a presented token with a stored hash in constant
// time.
func TokenMatches(token, hash string) bool {
	return subtle.ConstantTimeCompare([]byte(HashToken(token)), []byte(hash)) == 1
}

// LooksLikeToken reports whether s has the shape of a Tolk token, so
// that garbage is refused without a lookup.
func LooksLikeToken(s string) bool {
	if len(s) != len(UserTokenPrefix)+tokenRandomLen ||
		!(strings.HasPrefix(s, UserTokenPrefix) || strings.HasPrefix(s, ProjectTokenPrefix)) {
		return false
	}
	return onlyTokenAlphabet(s[len(UserTokenPrefix):])
}

// onlyTokenAlphabet reports whether s holds only letters of tokenAlphabet.
func onlyTokenAlphabet(s string) bool {
	for i := 0; i < len(s); i++ {
		if !strings.ContainsRune(tokenAlphabet, rune(s[i])) {
			return false
		}
	}
	return true
}

// Principal is who makes a request: a user with their grants, narrowed by
// the token they presented, or nobody (anonymous). The zero value is
// anonymous.
type Principal struct {
	User   *User // nil: anonymous
	Grants []Grant
	// Scope and ScopeProjectID narrow the user's rights to what the token
	// allows; ScopeAdmin and 0 narrow nothing.
	Scope          TokenScope
	ScopeProjectID int64
}

// Anonymous reports whether nobody is signed in.
func (p *Principal) Anonymous() bool { return p == nil || p.User == nil }

// Unscoped reports whether someone is signed in with a token that
// narrows nothing of its user's rights: scope admin and every project.
// Acting on one's own account needs that, since no permission names it.
func (p *Principal) Unscoped() bool {
	return !p.Anonymous() && p.User.IsActive && (p.Scope == "" || p.Scope == ScopeAdmin) && p.ScopeProjectID == 0
}

// Superuser reports whether the user may do anything, before any token
// scope.
func (p *Principal) Superuser() bool { return !p.Anonymous() && p.User.IsSuperuser && p.User.IsActive }

// Can reports whether the principal may do perm in the project with the
// given id (0 for site-wide permissions). Grants narrowed to a component
// or to languages do not count here: see CanComponent and
// CanTranslation.
func (p *Principal) Can(perm Permission, projectID int64) bool {
	return p.can(perm, target{projectID: projectID})
}

// CanComponent reports whether the principal may do perm on component
// c: what Can allows in its project, or a grant narrowed to c without
// languages.
func (p *Principal) CanComponent(perm Permission, c *Component) bool {
	return p.can(perm, target{projectID: c.ProjectID, componentID: c.ID})
}

// CanTranslation reports whether the principal may do perm on
// translation t (its Component filled): what CanComponent allows, or a
// grant narrowed to t's language.
func (p *Principal) CanTranslation(perm Permission, t *Translation) bool {
	return p.can(perm, target{projectID: t.Component.ProjectID, componentID: t.Component.ID,
		language: t.LanguageCode})
}

// can is every permission check's one path.
func (p *Principal) can(perm Permission, at target) bool {
	projectID := at.projectID
	if p.Anonymous() || !p.User.IsActive {
		return false
	}
	scope := p.Scope
	if scope == "" {
		scope = ScopeAdmin
	}
	if !scope.allows(perm) {
		return false
	}
	if p.ScopeProjectID != 0 && (projectID != p.ScopeProjectID || perm.IsGlobal()) {
		return false
	}
	if p.User.IsSuperuser {
		return true
	}
	for i := range p.Grants {
		if g := &p.Grants[i]; g.covers(perm, at) && g.has(perm) {
			return true
		}
	}
	return false
}

// CanView reports whether the principal may see a project at all: public
// and protected projects are seen by everyone, private ones by superusers
// and whoever holds a role in them.
func (p *Principal) CanView(project *Project) bool {
	if project.AccessControl != AccessPrivate {
		return true
	}
	if p.Anonymous() || !p.User.IsActive {
		return false
	}
	if p.ScopeProjectID != 0 && p.ScopeProjectID != project.ID {
		return false
	}
	if p.User.IsSuperuser {
		return true
	}
	for _, g := range p.Grants {
		if g.ProjectID == project.ID {
			return true
		}
	}
	return false
}

// Hidden returns the ids of the projects among projects that the
// principal may not see, in the order given, or nil when it sees them
// all. Lists leave out whatever belongs to them.
func (p *Principal) Hidden(projects []Project) []int64 {
	var out []int64
	for i := range projects {
		if !p.CanView(&projects[i]) {
			out = append(out, projects[i].ID)
		}
	}
	return out
}

// CanRead reports whether the principal may do perm in the project with
// the given id as far as its user's rights go, whatever kind of action
// the token's scope narrows it to; the token's project still holds. It is
// for reads the reference guards with a write permission (repository
// status, the full user details): looking changes nothing, and a
// read-only token for a dashboard is what scopes are for.
func (p *Principal) CanRead(perm Permission, projectID int64) bool {
	if p.Anonymous() {
		return false
	}
	unscoped := *p
	unscoped.Scope = ScopeAdmin
	return unscoped.Can(perm, projectID)
}

// repositoryPerms are the permissions any of which lets a user see a
// project's repository status (the reference's meta:vcs.status).
var repositoryPerms = []Permission{PermVCSPush, PermVCSCommit, PermVCSReset, PermVCSUpdate}

// CanViewRepository reports whether the principal may see the repository
// status of the project with the given id: it needs one of vcs.push,
// vcs.commit, vcs.reset or vcs.update there, as in the reference (read
// through CanRead).
func (p *Principal) CanViewRepository(projectID int64) bool {
	for _, perm := range repositoryPerms {
		if p.CanRead(perm, projectID) {
			return true
		}
	}
	return false
}
