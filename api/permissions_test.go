package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/internal/servertest"
)

// The permission matrix (issue 9): every write route × every kind of
// caller, each answer asserted. The expected status of a cell comes from
// a model written here, independently of index.Principal: the
// permissions a route needs, in the order its handler checks them, and
// the built-in roles' permissions (index.BuiltinRoles). A few rows also
// carry their statuses written out by hand, so that a wrong mapping in
// both the code and the model cannot pass silently.

// matrixPrincipal is who sends a write: a user with a role, a superuser
// or nobody, holding a token narrowed or expired as given.
type matrixPrincipal struct {
	name string // the subtest's
	user string // "" for anonymous
	role string // a built-in role's name
	// roleIn is the slug of the project the role is granted in: "" for
	// demo, "*" for site-wide.
	roleIn    string
	superuser bool
	expired   bool
	inactive  bool             // the account is deactivated, its token kept
	scope     index.TokenScope // "" narrows nothing
	// scopeProject is the slug of the one project the token may act in.
	scopeProject string
	// lang is the language this caller's POST of a translation adds, so
	// that callers who may add one do not add the same.
	lang string
	// team names the team (groups_matrix_test.go) that gives this caller
	// its rights instead of role.
	team string
}

// corePrincipals are the matrix's columns, in the order of a row's
// hard-coded statuses.
var corePrincipals = []matrixPrincipal{
	{name: "anonymous", lang: "fr"},
	{name: "no role", user: "nora", lang: "it"},
	{name: "translator", user: "anna", role: "Translate", lang: "es"},
	{name: "reviewer", user: "rita", role: "Review strings", lang: "nl"},
	{name: "repository manager", user: "rob", role: "Manage repository", lang: "sv"},
	{name: "project admin", user: "adam", role: "Administration", lang: "pl"},
	{name: "superuser", user: "root", superuser: true, lang: "cs"},
	{name: "expired", user: "old", superuser: true, expired: true, lang: "da"},
}

// morePrincipals are roles the matrix's columns lack: one that adds and
// removes strings without translating them, an administrator of another
// project (which grants nothing in demo), the site-wide roles that hold
// global permissions; a deactivated superuser, whose token is refused;
// and superusers whose tokens narrow what they may do: reading only,
// translating only, or acting in project other only.
var morePrincipals = []matrixPrincipal{
	{name: "string manager", user: "sam", role: "Manage strings", lang: "pt"},
	{name: "admin of other", user: "olga", role: "Administration", roleIn: "other", lang: "sk"},
	{name: "project creator", user: "carl", role: "Add projects", roleIn: "*", lang: "sl"},
	{name: "language manager", user: "lena", role: "Manage languages", roleIn: "*", lang: "hr"},
	{name: "deactivated", user: "gone", superuser: true, inactive: true, lang: "lt"},
	{name: "read token", user: "reader", superuser: true, scope: index.ScopeRead, lang: "fi"},
	{name: "translate token", user: "tessa", superuser: true, scope: index.ScopeTranslate, lang: "hu"},
	{name: "token of project other", user: "otto", superuser: true, scopeProject: "other", lang: "ro"},
}

var matrixPrincipals = slices.Concat(corePrincipals, morePrincipals)

// translateScope is what README promises a translate token: edits,
// suggestions, reviews and uploads, nothing that configures.
var translateScope = []index.Permission{index.PermUnitEdit, index.PermUnitReview, index.PermUnitAdd,
	index.PermSuggestionAdd, index.PermUploadPerform, index.PermUploadOverwrite,
	index.PermSuggestionAccept, index.PermSuggestionDelete, index.PermSuggestionVote, index.PermUnitOverride,
	index.PermCommentAdd, index.PermCommentResolve, index.PermMachineryView}

// permSelf is the model's pseudo-permission of acting on one's own
// account, which any user may with a token that narrows nothing.
const permSelf index.Permission = "matrix:self"

// has reports whether the model lets p do perm in the project with the
// given slug ("" for site-wide).
func (p matrixPrincipal) has(perm index.Permission, project string) bool {
	switch p.scope {
	case index.ScopeRead:
		return false
	case index.ScopeTranslate:
		if !slices.Contains(translateScope, perm) {
			return false
		}
	}
	switch perm {
	case permSelf:
		return p.scopeProject == ""
	}
	if p.scopeProject != "" && (perm.IsGlobal() || p.scopeProject != project) {
		return false
	}
	if p.superuser {
		return true
	}
	if p.team != "" {
		return teamHas(p, perm, project)
	}
	// A role in a project gives that project's permissions only, never a
	// global one.
	if in := p.roleProject(); in != "*" && (perm.IsGlobal() || in != project) {
		return false
	}
	role, ok := index.FindRole(p.role)
	return ok && role.Has(perm)
}

// roleProject is the slug of the project p's role is granted in, "*"
// for site-wide, "" for none.
func (p matrixPrincipal) roleProject() string {
	switch {
	case p.role == "":
		return ""
	case p.roleIn == "":
		return "demo"
	}
	return p.roleIn
}

// sees reports whether p may see a private project: superusers and
// those with a role in it, unless the token is for another project.
func (p matrixPrincipal) sees(project string) bool {
	return (p.scopeProject == "" || p.scopeProject == project) && (p.superuser || p.roleProject() == project ||
		teamSees(p, project))
}

// need is a permission a route checks and the detail of its refusal.
type need struct {
	perm   index.Permission
	denied string
}

// The details of 403s the routes share.
const (
	deniedDefault   = "You do not have permission to perform this action."
	deniedSaving    = "Insufficient privileges for saving translations."
	deniedTemplate  = "Insufficient privileges for editing source strings."
	deniedUsers     = "Can not manage Users"
	deniedLangs     = "Can not manage languages"
	deniedChecks    = "You do not have permission to dismiss checks."
	deniedResolve   = "You do not have permission to resolve this comment."
	deniedRemove    = "You do not have permission to remove this comment."
	machineryDenied = "Can not retrieve/edit machinery configuration"
)

// tokenRejected is the answer to an expired (or unknown) token.
const tokenRejected = `{"type":"client_error","errors":[{"code":"authentication_failed","detail":"Invalid token.","attr":null}]}`

// matrixRow is one write request: a route, a body that succeeds for who
// may send it, and what each refusal says.
type matrixRow struct {
	method, route string
	// params fill the route's :name segments where matrixParams does not
	// say what they should; values in braces are the environment's.
	params map[string]string
	// project is the slug of the project the route acts in, whose
	// visibility it checks first; "" for site-wide routes.
	project string
	needs   []need // in the order the handler checks them
	// asField names the field of the 400 that refuses a permission where
	// the reference answers it as a problem of the field asking for it,
	// not with a 403.
	asField map[index.Permission]string
	// fieldCode is the code of asField's 400s; "" is "invalid".
	fieldCode string
	// hiddenAsField refuses who may not see the project as the first
	// need's asField problem, not with a 404: the route names the
	// project in a hyperlinked field of its body (POST /api/categories/).
	hiddenAsField bool
	status        int // the answer to who may: 2xx, or 404 for a missing object
	body          func(p matrixPrincipal) any
	// upload is a multipart file sent in place of body, with method
	// translate and the form's fields (names and values in turn).
	upload string
	form   []string
	// destructive rows remove their object: each success runs on an
	// environment of its own, after which GET gone (as a superuser)
	// answers 404; the refusals leave it in place.
	destructive bool
	gone        string
	notFound    string // the 404's detail for who may not see demo; "" is "Not found."
	// want are the statuses of corePrincipals written out by hand, for
	// demo public and private; "" leaves the model alone.
	want [2]string
}

// matrixParams are the objects the routes act on unless a row says.
var matrixParams = map[string]string{"project": "demo", "component": "app", "language": "de",
	"id": "{save}", "task": "{task}", "category": "{category}", "addon": "{addon}", "username": "victim", "code": "fr"}

const (
	componentRoute   = "/api/components/:project/:component/"
	translationRoute = "/api/translations/:project/:component/:language/"
	unitRoute        = "/api/units/:id/"
	userRoute        = "/api/users/:username/"
	languageRoute    = "/api/languages/:code/"
	addonRoute       = "/api/addons/:addon/"
	categoryRoute    = "/api/categories/:category/"
)

// webhookAddon is the body that installs a webhook.
var webhookAddon = map[string]any{"name": "weblate.webhook.webhook",
	"configuration": map[string]any{"webhook_url": "https://example.com/hook"}}

// matrixUpload is the app's German file for uploads: one string it
// lacks, translated.
const matrixUpload = `{"quit": "Beenden"}`

// matrixMemory is a memory import in the reference's JSON: one entry.
const matrixMemory = `[{"source": "Quit", "target": "Beenden", "source_language": "en", "target_language": "de"}]`

// jsonBody is a body that is the same for every principal.
func jsonBody(v map[string]any) func(matrixPrincipal) any {
	return func(matrixPrincipal) any { return v }
}

var matrixRows = []matrixRow{
	{method: "POST", route: "/api/projects/", needs: []need{{index.PermProjectAdd, "Can not create projects"}},
		status: 201, body: func(p matrixPrincipal) any {
			return map[string]any{"name": "New " + p.user, "slug": "new-" + p.user, "web": "https://example.org/"}
		}, want: [2]string{"401 403 403 403 403 403 201 401", "401 403 403 403 403 403 201 401"}},
	{method: "PUT", route: "/api/projects/:project/", project: "demo",
		needs: []need{{index.PermProjectEdit, "Can not edit project"}}, status: 200,
		body: jsonBody(map[string]any{"name": "Demo", "slug": "demo", "web": "https://example.com/"})},
	{method: "PATCH", route: "/api/projects/:project/", project: "demo",
		needs: []need{{index.PermProjectEdit, "Can not edit project"}}, status: 200,
		body: jsonBody(map[string]any{"instructions": "Be kind."}),
		want: [2]string{"401 403 403 403 403 200 200 401", "401 404 403 403 403 200 200 401"}},
	{method: "DELETE", route: "/api/projects/:project/", project: "demo",
		needs: []need{{index.PermProjectEdit, "Can not delete project"}}, status: 204,
		destructive: true, gone: "/api/projects/demo/",
		want: [2]string{"401 403 403 403 403 204 204 401", "401 404 403 403 403 204 204 401"}},
	{method: "POST", route: "/api/projects/:project/lock/", project: "demo",
		needs: []need{{index.PermProjectEdit, deniedDefault}}, status: 200, body: jsonBody(map[string]any{"lock": false})},
	{method: "POST", route: "/api/projects/:project/repository/", project: "demo",
		needs: []need{{index.PermVCSCommit, deniedDefault}}, status: 200,
		body: jsonBody(map[string]any{"operation": "commit"}),
		want: [2]string{"401 403 403 403 200 200 200 401", "401 404 403 403 200 200 200 401"}},
	{method: "POST", route: "/api/projects/:project/components/", project: "demo",
		needs: []need{{index.PermProjectEdit, "Can not create components"}}, status: 201,
		body: func(p matrixPrincipal) any {
			return map[string]any{"name": "Web " + p.user, "slug": "web-" + p.user, "repo": "{repo}",
				"filemask": "locales/*.json", "template": "locales/en.json", "file_format": "json"}
		}},
	{method: "PUT", route: componentRoute, project: "demo",
		needs: []need{{index.PermComponentEdit, "Can not edit component"}}, status: 200,
		body: jsonBody(map[string]any{"name": "App", "slug": "app", "repo": "file:///srv/repos/app.git",
			"filemask": "locales/*.json", "file_format": "json"})},
	{method: "PATCH", route: componentRoute, project: "demo",
		needs: []need{{index.PermComponentEdit, "Can not edit component"}}, status: 200,
		body: jsonBody(map[string]any{"license": "MIT"})},
	{method: "DELETE", route: componentRoute, project: "demo",
		needs: []need{{index.PermComponentEdit, "Can not delete component"}}, status: 204,
		destructive: true, gone: "/api/components/demo/app/"},
	{method: "POST", route: componentRoute + "lock/", project: "demo",
		needs: []need{{index.PermComponentLock, deniedDefault}}, status: 200, body: jsonBody(map[string]any{"lock": false}),
		want: [2]string{"401 403 403 403 200 200 200 401", "401 404 403 403 200 200 200 401"}},
	{method: "POST", route: componentRoute + "repository/", project: "demo",
		needs: []need{{index.PermVCSCommit, deniedDefault}}, status: 200,
		body: jsonBody(map[string]any{"operation": "commit"})},
	{method: "POST", route: componentRoute + "translations/", project: "demo",
		needs: []need{{index.PermTranslationAdd, "Can not create translation"}}, status: 201,
		body: func(p matrixPrincipal) any { return map[string]any{"language_code": p.lang} },
		want: [2]string{"401 403 403 403 403 201 201 401", "401 404 403 403 403 201 201 401"}},
	// Component links are checked as the reference checks them, then
	// refused with a 400 saying Tolk does not share components.
	{method: "POST", route: componentRoute + "links/", project: "demo",
		needs:  []need{{index.PermComponentEdit, "Can not edit component"}},
		status: 400, body: jsonBody(map[string]any{"project_slug": "other"}),
		want: [2]string{"401 403 403 403 403 400 400 401", "401 404 403 403 403 400 400 401"}},
	{method: "DELETE", route: translationRoute, project: "demo",
		needs: []need{{index.PermTranslationDelete, "Can not delete translation"}}, status: 204,
		destructive: true, gone: "/api/translations/demo/app/de/"},
	{method: "POST", route: translationRoute + "repository/", project: "demo",
		needs: []need{{index.PermVCSCommit, deniedDefault}}, status: 200,
		body: jsonBody(map[string]any{"operation": "commit"})},
	// Strings of a monolingual component are added to its template,
	// which also needs unit.template.
	{method: "POST", route: translationRoute + "units/", params: map[string]string{"language": "en"}, project: "demo",
		needs: []need{{index.PermUnitAdd, deniedSaving}, {index.PermUnitTemplate, deniedTemplate}}, status: 200,
		body: func(p matrixPrincipal) any {
			return map[string]any{"key": "key_" + p.user, "value": []string{"New string"}}
		},
		want: [2]string{"401 403 403 403 403 200 200 401", "401 404 403 403 403 200 200 401"}},
	{method: "POST", route: translationRoute + "file/", project: "demo", upload: matrixUpload,
		needs: []need{{index.PermUploadPerform, deniedSaving}, {index.PermUnitEdit, deniedDefault}}, status: 200,
		want: [2]string{"401 403 200 200 403 200 200 401", "401 404 200 200 403 200 200 401"}},
	{method: "PUT", route: translationRoute + "file/", project: "demo", upload: matrixUpload,
		needs: []need{{index.PermUploadPerform, deniedSaving}, {index.PermUnitEdit, deniedDefault}}, status: 200},
	// Overwriting translations is a right of its own, refused as a
	// problem of the conflicts field; the reference's translators have
	// it (TRANSLATE_PERMS in weblate/auth/data.py), so that wlc upload
	// --overwrite works for them.
	{method: "POST", route: translationRoute + "file/", project: "demo", upload: matrixUpload,
		form: []string{"conflicts", "replace-translated"},
		needs: []need{{index.PermUploadPerform, deniedSaving}, {index.PermUnitEdit, deniedDefault},
			{index.PermUploadOverwrite, "You can not overwrite existing translations."}}, status: 200,
		asField: map[index.Permission]string{index.PermUploadOverwrite: "conflicts"},
		want:    [2]string{"401 403 200 200 403 200 200 401", "401 404 200 200 403 200 200 401"}},
	{method: "PATCH", route: unitRoute, project: "demo", needs: []need{{index.PermUnitEdit, deniedSaving}}, status: 200,
		body: jsonBody(map[string]any{"target": []string{"Alles speichern"}, "state": 20}),
		want: [2]string{"401 403 200 200 403 200 200 401", "401 404 200 200 403 200 200 401"}},
	{method: "PUT", route: unitRoute, project: "demo", needs: []need{{index.PermUnitEdit, deniedSaving}}, status: 200,
		body: jsonBody(map[string]any{"target": []string{"Alles speichern"}, "state": 20})},
	{method: "DELETE", route: unitRoute, params: map[string]string{"id": "{about}"}, project: "demo",
		needs: []need{{index.PermUnitDelete, deniedSaving}, {index.PermUnitTemplate, deniedTemplate}}, status: 204,
		destructive: true, gone: "/api/units/{about}/"},
	// Dismissing and restoring a failing check ("Datei öffnen…" fails
	// end_ellipsis) is the reviewers' unit.check, on Tolk's own endpoint:
	// the reference has none. Both are idempotent, so every caller may
	// run them on the same environment.
	{method: "POST", route: unitRoute + "checks/:check/dismiss/", params: map[string]string{"id": "{open}", "check": "end_ellipsis"},
		project: "demo", needs: []need{{index.PermUnitCheck, deniedChecks}}, status: 200,
		want: [2]string{"401 403 403 200 403 200 200 401", "401 404 403 200 403 200 200 401"}},
	{method: "DELETE", route: unitRoute + "checks/:check/dismiss/", params: map[string]string{"id": "{open}", "check": "end_ellipsis"},
		project: "demo", needs: []need{{index.PermUnitCheck, deniedChecks}}, status: 200},
	// Comments: adding one is every translator's comment.add; resolving
	// a comment victim wrote is the reviewers' comment.resolve, removing
	// it the administrators' comment.delete (the author's own right is
	// tested in comments_test.go).
	{method: "POST", route: unitRoute + "comments/", project: "demo",
		needs: []need{{index.PermCommentAdd, deniedDefault}}, status: 201,
		body: func(p matrixPrincipal) any {
			return map[string]any{"scope": "translation", "comment": "Hi from " + p.name}
		},
		want: [2]string{"401 403 201 201 403 201 201 401", "401 404 201 201 403 201 201 401"}},
	{method: "PATCH", route: "/api/comments/:id/", params: map[string]string{"id": "{comment}"}, project: "demo",
		needs: []need{{index.PermCommentResolve, deniedResolve}}, status: 200, body: jsonBody(map[string]any{"resolved": true}),
		want: [2]string{"401 403 403 200 403 200 200 401", "401 404 403 200 403 200 200 401"}},
	{method: "DELETE", route: "/api/comments/:id/", params: map[string]string{"id": "{comment}"}, project: "demo",
		needs: []need{{index.PermCommentDelete, deniedRemove}}, status: 204, destructive: true, gone: "/api/comments/{comment}/",
		want: [2]string{"401 403 403 403 403 204 204 401", "401 404 403 403 403 204 204 401"}},
	// Labels are the project's: project.edit.
	{method: "POST", route: "/api/projects/:project/labels/", project: "demo",
		needs: []need{{index.PermProjectEdit, "Can not create labels"}}, status: 201,
		body: func(p matrixPrincipal) any { return map[string]any{"name": "Label of " + p.name, "color": "teal"} }},
	{method: "DELETE", route: "/api/projects/:project/labels/:id/", params: map[string]string{"id": "{label}"}, project: "demo",
		needs: []need{{index.PermProjectEdit, "Can not delete labels"}}, status: 204, destructive: true,
		want: [2]string{"401 403 403 403 403 204 204 401", "401 404 403 403 403 204 204 401"}},
	// Add-ons: installing one on a component takes component.edit, on a
	// project project.edit; changing one, the right that installs it.
	{method: "POST", route: componentRoute + "addons/", project: "demo",
		needs: []need{{index.PermComponentEdit, deniedDefault}}, status: 201, body: jsonBody(webhookAddon),
		want: [2]string{"401 403 403 403 403 201 201 401", "401 404 403 403 403 201 201 401"}},
	{method: "POST", route: "/api/projects/:project/addons/", project: "demo",
		needs: []need{{index.PermProjectEdit, deniedDefault}}, status: 201, body: jsonBody(webhookAddon)},
	{method: "PUT", route: addonRoute, project: "demo", needs: []need{{index.PermComponentEdit, deniedDefault}},
		status: 200, body: jsonBody(webhookAddon)},
	{method: "PATCH", route: addonRoute, project: "demo", needs: []need{{index.PermComponentEdit, deniedDefault}},
		status: 200, body: jsonBody(map[string]any{"configuration": map[string]any{"webhook_url": "https://example.com/v2"}})},
	{method: "DELETE", route: addonRoute, project: "demo", needs: []need{{index.PermComponentEdit, deniedDefault}},
		status: 204, destructive: true, gone: "/api/addons/{addon}/"},
	// Categories are the project's: project.edit. As in the reference,
	// POST names its project in a field that offers only the projects
	// the caller may edit, so a refusal is that field's 400.
	{method: "POST", route: "/api/categories/", project: "demo", status: 201,
		needs:     []need{{index.PermProjectEdit, "Invalid hyperlink - Object does not exist."}},
		asField:   map[index.Permission]string{index.PermProjectEdit: "project"},
		fieldCode: "does_not_exist", hiddenAsField: true,
		body: func(p matrixPrincipal) any {
			return map[string]any{"name": "Category of " + p.name, "slug": "cat-" + p.user, "project": "/api/projects/demo/"}
		},
		want: [2]string{"401 400 400 400 400 201 201 401", "401 400 400 400 400 201 201 401"}},
	{method: "PUT", route: categoryRoute, project: "demo", status: 200,
		needs: []need{{index.PermProjectEdit, "Can not edit category"}},
		body:  jsonBody(map[string]any{"name": "Matrix", "slug": "matrix", "project": "/api/projects/demo/"})},
	{method: "PATCH", route: categoryRoute, project: "demo", status: 200,
		needs: []need{{index.PermProjectEdit, "Can not edit category"}}, body: jsonBody(map[string]any{"name": "Matrix 2"}),
		want: [2]string{"401 403 403 403 403 200 200 401", "401 404 403 403 403 200 200 401"}},
	{method: "DELETE", route: categoryRoute, project: "demo", status: 204, destructive: true, gone: "/api/categories/{category}/",
		needs: []need{{index.PermProjectEdit, "Can not delete category"}}},
	// Triggering an add-on takes what changing it takes.
	{method: "POST", route: addonRoute + "trigger/", params: map[string]string{"addon": "{cleanupaddon}"}, project: "demo",
		needs: []need{{index.PermComponentEdit, deniedDefault}}, status: 202},
	// A project's add-on is the project's to change.
	{method: "PATCH", route: addonRoute, params: map[string]string{"addon": "{projectaddon}"}, project: "demo",
		needs: []need{{index.PermProjectEdit, deniedDefault}}, status: 200,
		body: jsonBody(map[string]any{"configuration": map[string]any{"webhook_url": "https://example.com/v3"}})},
	// Machine translation settings (issue 29): project.edit for every
	// method, with the reference's message. POST installs a service once
	// per environment, so each success runs on its own.
	{method: "POST", route: "/api/projects/:project/machinery_settings/", project: "demo",
		needs: []need{{index.PermProjectEdit, machineryDenied}}, status: 201, destructive: true,
		body: jsonBody(map[string]any{"service": "libretranslate",
			"configuration": map[string]any{"url": "https://libretranslate.example.com/", "key": "k"}}),
		want: [2]string{"401 403 403 403 403 201 201 401", "401 404 403 403 403 201 201 401"}},
	{method: "PATCH", route: "/api/projects/:project/machinery_settings/", project: "demo",
		needs: []need{{index.PermProjectEdit, machineryDenied}}, status: 200,
		body: jsonBody(map[string]any{"service": "deepl", "configuration": map[string]any{"key": "secret:fx"}})},
	{method: "PUT", route: "/api/projects/:project/machinery_settings/", project: "demo",
		needs: []need{{index.PermProjectEdit, machineryDenied}}, status: 201,
		body: jsonBody(map[string]any{"apertium-apy": map[string]any{"url": "https://apy.example.com"}})},
	// Automatic translation (issue 29): translation.auto, with the
	// reference's message; suggest needs nothing more.
	{method: "POST", route: translationRoute + "autotranslate/", project: "demo",
		needs: []need{{index.PermTranslationAuto, "Can not auto translate"}}, status: 200,
		body: jsonBody(map[string]any{"mode": "suggest", "auto_source": "others", "threshold": 80}),
		want: [2]string{"401 403 403 403 403 200 200 401", "401 404 403 403 403 200 200 401"}},
	{method: "DELETE", route: "/api/tasks/:task/", project: "demo", notFound: "Invalid task",
		needs: []need{{index.PermComponentEdit, deniedDefault}}, status: 204},
	// Suggestions (reference workspace §2.4): the matrix's app has
	// voting on (without auto-accept, which would change who may PATCH),
	// and a suggestion {suggestion} on "save" by a user none of the
	// principals is, so that only the right to delete anyone's counts.
	{method: "POST", route: unitRoute + "suggestions/", project: "demo",
		needs: []need{{index.PermSuggestionAdd, deniedDefault}}, status: 201,
		body: func(p matrixPrincipal) any { return map[string]any{"target": []string{"Vorschlag von " + p.user}} },
		want: [2]string{"401 403 201 201 403 201 201 401", "401 404 201 201 403 201 201 401"}},
	{method: "POST", route: "/api/suggestions/:id/vote/", params: map[string]string{"id": "{suggestion}"}, project: "demo",
		needs: []need{{index.PermSuggestionVote, deniedDefault}}, status: 200, body: jsonBody(map[string]any{"value": 1}),
		want: [2]string{"401 403 200 200 403 200 200 401", "401 404 200 200 403 200 200 401"}},
	{method: "POST", route: "/api/suggestions/:id/accept/", params: map[string]string{"id": "{suggestion}"}, project: "demo",
		needs: []need{{index.PermSuggestionAccept, deniedDefault}}, status: 200, body: jsonBody(map[string]any{"approve": false}),
		destructive: true, gone: "/api/suggestions/{suggestion}/",
		want: [2]string{"401 403 200 200 403 200 200 401", "401 404 200 200 403 200 200 401"}},
	{method: "DELETE", route: "/api/suggestions/:id/", params: map[string]string{"id": "{suggestion}"}, project: "demo",
		needs: []need{{index.PermSuggestionDelete, deniedDefault}}, status: 204,
		destructive: true, gone: "/api/suggestions/{suggestion}/",
		want: [2]string{"401 403 403 204 403 204 204 401", "401 404 403 204 403 204 204 401"}},
	{method: "POST", route: "/api/users/", needs: []need{{index.PermUserEdit, deniedUsers}}, status: 201,
		body: func(p matrixPrincipal) any {
			return map[string]any{"username": "new_" + p.user, "full_name": "New User", "email": "new_" + p.user + "@example.com"}
		},
		want: [2]string{"401 403 403 403 403 403 201 401", "401 403 403 403 403 403 201 401"}},
	{method: "PUT", route: userRoute, needs: []need{{index.PermUserEdit, deniedUsers}}, status: 200,
		body: jsonBody(map[string]any{"username": "victim", "full_name": "Victim Example"})},
	{method: "PATCH", route: userRoute, needs: []need{{index.PermUserEdit, deniedUsers}}, status: 200,
		body: jsonBody(map[string]any{"full_name": "Vic Tim"})},
	{method: "DELETE", route: userRoute, needs: []need{{index.PermUserEdit, deniedUsers}}, status: 204, destructive: true},
	// Removing users is refused before the user is looked up, as the
	// reference checks the right first: a missing one is 404 only to
	// who may remove users.
	{method: "DELETE", route: userRoute, params: map[string]string{"username": "nobody-here"},
		needs: []need{{index.PermUserEdit, deniedUsers}}, status: 404,
		want: [2]string{"401 403 403 403 403 403 404 401", "401 403 403 403 403 403 404 401"}},
	// One's own account needs no permission, but a token that narrows
	// nothing.
	{method: "PUT", route: userRoute, params: map[string]string{"username": "{self}"},
		needs: []need{{permSelf, deniedUsers}}, status: 200,
		body: func(p matrixPrincipal) any { return map[string]any{"username": p.user, "full_name": "Me Myself"} }},
	{method: "PATCH", route: userRoute, params: map[string]string{"username": "{self}"},
		needs: []need{{permSelf, deniedUsers}}, status: 200, body: jsonBody(map[string]any{"full_name": "Me"}),
		want: [2]string{"401 200 200 200 200 200 200 401", "401 200 200 200 200 200 200 401"}},
	{method: "POST", route: "/api/languages/", needs: []need{{index.PermLanguageEdit, deniedLangs}}, status: 201,
		body: func(p matrixPrincipal) any {
			return map[string]any{"code": "x_" + p.user, "name": "Language " + p.user,
				"plural": map[string]any{"number": 2, "formula": "n != 1"}}
		},
		want: [2]string{"401 403 403 403 403 403 201 401", "401 403 403 403 403 403 201 401"}},
	{method: "PUT", route: languageRoute, needs: []need{{index.PermLanguageEdit, deniedLangs}}, status: 200,
		body: jsonBody(map[string]any{"code": "fr", "name": "French", "plural": map[string]any{"number": 2, "formula": "n > 1"}})},
	{method: "PATCH", route: languageRoute, needs: []need{{index.PermLanguageEdit, deniedLangs}}, status: 200,
		body: jsonBody(map[string]any{"name": "French"})},
	// As for users, the right to manage languages comes before the
	// lookup.
	{method: "PATCH", route: languageRoute, params: map[string]string{"code": "zz-none"},
		needs: []need{{index.PermLanguageEdit, deniedLangs}}, status: 404, body: jsonBody(map[string]any{"name": "None"})},
	{method: "DELETE", route: languageRoute, params: map[string]string{"code": "zz-none"},
		needs: []need{{index.PermLanguageEdit, deniedLangs}}, status: 404},
	// Japanese: a language no translation uses, which may go.
	{method: "DELETE", route: languageRoute, params: map[string]string{"code": "ja"},
		needs: []need{{index.PermLanguageEdit, deniedLangs}}, status: 204, destructive: true, gone: "/api/languages/ja/"},
	// The translation memory (api/memory.go): a lookup needs only a
	// signed-in caller (the reference's); importing into a project's
	// memory takes memory.edit there; deleting one of its imported
	// entries memory.delete.
	{method: "POST", route: "/api/memory/lookup/", status: 200,
		body: jsonBody(map[string]any{"source_language": "en", "target_language": "de", "strings": []string{"Save", "Open"}}),
		want: [2]string{"401 200 200 200 200 200 200 401", "401 200 200 200 200 200 200 401"}},
	{method: "POST", route: "/api/memory/import/", project: "demo", upload: matrixMemory, form: []string{"project", "demo"},
		needs: []need{{index.PermMemoryEdit, deniedDefault}}, status: 200,
		want: [2]string{"401 403 403 403 403 200 200 401", "401 404 403 403 403 200 200 401"}},
	{method: "DELETE", route: "/api/memory/:id/", params: map[string]string{"id": "{memory}"}, project: "demo",
		needs: []need{{index.PermMemoryDelete, deniedDefault}}, status: 204, destructive: true, gone: "/api/memory/{memory}/",
		want: [2]string{"401 403 403 403 403 204 204 401", "401 404 403 403 403 204 204 401"}},
}

// path is the row's route with its parameters filled in, still holding
// the environment's placeholders.
func (r *matrixRow) path() string {
	segs := strings.Split(r.route, "/")
	for i, s := range segs {
		if name, ok := strings.CutPrefix(s, ":"); ok {
			segs[i] = matrixParams[name]
			if v, ok := r.params[name]; ok {
				segs[i] = v
			}
		}
	}
	return strings.Join(segs, "/")
}

func (r *matrixRow) name() string {
	name := r.method + " " + r.path()
	for i := 0; i+1 < len(r.form); i += 2 {
		name += " " + r.form[i] + "=" + r.form[i+1]
	}
	return name
}

// expect is the model's answer to p: a status and, for refusals, the
// exact body.
func (r *matrixRow) expect(p matrixPrincipal, private bool) (int, string) {
	switch {
	case p.user == "":
		return http.StatusUnauthorized, notSignedIn
	case p.expired || p.inactive:
		return http.StatusUnauthorized, tokenRejected
	case private && r.project != "" && !p.sees(r.project) && r.hiddenAsField:
		return http.StatusBadRequest, r.fieldProblem(r.needs[0])
	case private && r.project != "" && !p.sees(r.project):
		detail := r.notFound
		if detail == "" {
			detail = "Not found."
		}
		return http.StatusNotFound, errJSON("client_error", [3]string{"not_found", detail, ""})
	}
	for _, n := range r.needs {
		if p.has(n.perm, r.project) {
			continue
		}
		if _, ok := r.asField[n.perm]; ok {
			return http.StatusBadRequest, r.fieldProblem(n)
		}
		return http.StatusForbidden, denied(n.denied)
	}
	return r.status, ""
}

// fieldProblem is the 400 refusing n as a problem of its asField.
func (r *matrixRow) fieldProblem(n need) string {
	code := r.fieldCode
	if code == "" {
		code = "invalid"
	}
	return errJSON("validation_error", [3]string{code, n.denied, r.asField[n.perm]})
}

// checkHardCoded compares the model with the statuses a row spells out.
func (r *matrixRow) checkHardCoded(t *testing.T, private bool) {
	t.Helper()
	want := r.want[0]
	if private {
		want = r.want[1]
	}
	if want == "" {
		return
	}
	var model []string
	for _, p := range corePrincipals {
		status, _ := r.expect(p, private)
		model = append(model, strconv.Itoa(status))
	}
	if got := strings.Join(model, " "); got != want {
		t.Errorf("the model expects %s, the row says %s", got, want)
	}
}

// matrixEnv is the demo served with the real sync service, a user for
// each principal, a task to cancel and a repository to make components
// of.
type matrixEnv struct {
	*crudEnv
	auth map[string]string // Authorization header by user name
	// vars fill the placeholders of paths and bodies.
	vars *strings.Replacer
	// pairs are vars' placeholders and values, those of the task and
	// the repository aside; jobs is the task's component (matrixTemplate).
	pairs []string
	jobs  index.Component
}

// buildMatrixEnv builds a matrix environment from nothing, its index as
// opts say (mustMatrixEnv copies one so built).
func buildMatrixEnv(t testing.TB, private bool, opts ...servertest.Option) *matrixEnv {
	t.Helper()
	ctx := context.Background()
	e := &matrixEnv{crudEnv: mustCrudEnv(t, opts...), auth: map[string]string{}}
	// Strings may be added to and removed from the app's template.
	(&writeEnv{db: e.db}).setComponent(t, "app", func(c *index.Component) { c.ManageUnits, c.EditTemplate = true, true })
	other := servertest.MustProject(t, e.db, index.Project{Name: "Other", Slug: "other", Web: "https://example.org/"})
	if private {
		(&writeEnv{db: e.db}).setProject(t, func(p *index.Project) { p.AccessControl = index.AccessPrivate })
	}
	for _, p := range matrixPrincipals {
		if p.user == "" {
			continue
		}
		tok := index.Token{Scope: p.scope}
		if tok.Scope == "" {
			tok.Scope = index.ScopeAdmin
		}
		if p.expired {
			tok.Expires = servertest.ClockStart.Add(-time.Hour)
		}
		if p.scopeProject != "" {
			tok.ProjectID = other.ID
		}
		var grants [][2]string
		if in := p.roleProject(); in == "*" {
			grants = append(grants, [2]string{p.role, ""}) // site-wide
		} else if in != "" {
			grants = append(grants, [2]string{p.role, in})
		}
		e.auth[p.user] = servertest.MustScopedUser(t, e.db, p.user, p.superuser, tok, grants...)
		if p.inactive {
			off := false
			if _, err := e.db.UpdateUser(ctx, p.user, index.UserUpdate{IsActive: &off}); err != nil {
				t.Fatal(err)
			}
		}
	}
	servertest.MustUser(t, e.db, "victim", false)
	victim, err := e.db.FindUser(ctx, "victim")
	if err != nil {
		t.Fatal(err)
	}

	// A task of project demo: the import of a component whose repository
	// does not exist, which fails at once.
	demo, err := e.db.FindProject(ctx, "demo")
	if err != nil {
		t.Fatal(err)
	}
	jobs := index.DefaultComponent()
	jobs.ProjectID, jobs.Name, jobs.Slug, jobs.Repo = demo.ID, "Jobs", "jobs", "file:///nonexistent/jobs.git"
	jobs.Filemask, jobs.Template = "locales/*.json", "locales/en.json"
	servertest.MustComponent(t, e.db, jobs)
	if jobs, err = e.db.FindComponent(ctx, "demo", "jobs"); err != nil {
		t.Fatal(err)
	}
	task := e.sync.StartImport(jobs)

	addon, err := e.db.CreateAddon(ctx, index.Addon{Name: index.AddonWebhook, ProjectID: demo.ID,
		ComponentID: jobs.ID, Webhook: index.Webhook{URL: "https://example.com/", Filter: index.EventsAll}})
	if err != nil {
		t.Fatal(err)
	}
	projectAddon, err := e.db.CreateAddon(ctx, index.Addon{Name: index.AddonWebhook, ProjectID: demo.ID,
		Webhook: index.Webhook{URL: "https://example.com/", Filter: index.EventsAll}})
	if err != nil {
		t.Fatal(err)
	}
	// An add-on to trigger: its task fails at once (jobs has no
	// repository), after the 202.
	cleanupAddon, err := e.db.CreateAddon(ctx, index.Addon{Name: index.AddonCleanupBlank, ProjectID: demo.ID,
		ComponentID: jobs.ID})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.db.ImportMemory(ctx, demo.ID, 0, []index.MemoryImportEntry{{SourceLanguage: "en",
		TargetLanguage: "de", Source: "Close", Target: "Schließen", Origin: "demo.tmx"}}); err != nil {
		t.Fatal(err)
	}
	memory, _, err := e.db.FindMemory(ctx, index.MemoryFilter{ProjectID: demo.ID, Source: "Close"}, index.Page{})
	if err != nil || len(memory) != 1 || !memory[0].Imported {
		t.Fatalf("the demo's imported memory entry: %+v, %v", memory, err)
	}
	units := &writeEnv{db: e.db}
	units.setComponent(t, "app", func(c *index.Component) { c.SuggestionVoting = true })
	sg, err := e.db.AddSuggestion(ctx, units.unitID(t, "app", "de", "save"),
		index.NewSuggestion{Target: []string{"Alles sichern"}, UserID: victim.ID},
		func(index.Unit, index.Translation) (index.SuggestionRights, error) {
			return index.SuggestionRights{}, nil
		})
	if err != nil {
		t.Fatal(err)
	}
	save := units.unitID(t, "app", "de", "save")
	comment, err := e.db.AddComment(ctx, save, index.UserActor(&victim), index.NewComment{Scope: index.ScopeTranslation,
		Comment: "Is this right?"}, func(index.Unit, index.Translation) (int64, error) { return save, nil })
	if err != nil {
		t.Fatal(err)
	}
	label, err := e.db.CreateLabel(ctx, index.Label{ProjectID: demo.ID, Name: "Matrix", Color: "red"},
		func() error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	category, err := e.db.CreateCategory(ctx, index.Category{ProjectID: demo.ID, Name: "Matrix", Slug: "matrix"})
	if err != nil {
		t.Fatal(err)
	}
	e.jobs = jobs
	e.pairs = slices.Concat(seedTeamMatrix(t, e, demo), []string{
		"{category}", strconv.FormatInt(category.ID, 10),
		"{suggestion}", strconv.FormatInt(sg.Suggestion.ID, 10),
		"{comment}", strconv.FormatInt(comment.ID, 10),
		"{label}", strconv.FormatInt(label.ID, 10),
		"{memory}", strconv.FormatInt(memory[0].ID, 10),
		"{projectaddon}", strconv.FormatInt(projectAddon.ID, 10),
		"{cleanupaddon}", strconv.FormatInt(cleanupAddon.ID, 10),
		"{addon}", strconv.FormatInt(addon.ID, 10),
		"{save}", strconv.FormatInt(units.unitID(t, "app", "de", "save"), 10),
		"{open}", strconv.FormatInt(units.unitID(t, "app", "de", "open"), 10),
		"{about}", strconv.FormatInt(units.unitID(t, "app", "en", "about"), 10),
	})
	e.vars = strings.NewReplacer(slices.Concat(e.pairs, []string{"{task}", task.ID, "{repo}", appRepo(t)})...)
	return e
}

// send makes p's request of row r.
func (e *matrixEnv) send(t *testing.T, r *matrixRow, p matrixPrincipal) servertest.Response {
	t.Helper()
	self := p.user
	if self == "" {
		self = "anonymous"
	}
	url := e.srv.URL + strings.ReplaceAll(e.vars.Replace(r.path()), "{self}", self)
	auth := e.auth[p.user]
	if r.upload != "" {
		return doUpload(t, r.method, url, auth, r.upload, append([]string{"method", "translate"}, r.form...)...)
	}
	var body any
	if r.body != nil {
		// Placeholders only ever fill string values, so the JSON stays
		// valid.
		b, err := json.Marshal(r.body(p))
		if err != nil {
			t.Fatal(err)
		}
		body = []byte(e.vars.Replace(string(b)))
	}
	return servertest.DoJSON(t, r.method, url, auth, body)
}

// check fails unless p's answer has the status and, for refusals, the
// exact body that the model expects.
func (r *matrixRow) check(t *testing.T, p matrixPrincipal, private bool, got servertest.Response) {
	t.Helper()
	status, body := r.expect(p, private)
	if got.Status != status || (body != "" && string(got.Body) != body) {
		t.Errorf("%s: %s = %d %s\nwant %d %s", p.name, r.name(), got.Status, got.Body, status, body)
	}
	// The reference's token authentication names itself on every 401.
	if got.Status == http.StatusUnauthorized && got.Header.Get("WWW-Authenticate") != "Token" {
		t.Errorf("%s: %s = 401 with WWW-Authenticate %q, want Token", p.name, r.name(), got.Header.Get("WWW-Authenticate"))
	}
}

// checkGone GETs a destructive row's object as a superuser and fails
// unless the answer has the status.
func (e *matrixEnv) checkGone(t *testing.T, r *matrixRow, status int) {
	t.Helper()
	if r.gone == "" {
		return
	}
	url := e.srv.URL + e.vars.Replace(r.gone)
	if got := servertest.Do(t, "GET", url, http.Header{"Authorization": {e.auth["root"]}}); got.Status != status {
		t.Errorf("after %s: GET %s = %d %s, want %d", r.name(), url, got.Status, got.Body, status)
	}
}

// TestPermissionMatrix sends every write route's request as every
// principal, with demo public and private. The refusals and the
// successes that leave their object in place share one environment; a
// success that removes its object has an environment of its own.
func TestPermissionMatrix(t *testing.T) {
	for _, private := range []bool{false, true} {
		t.Run(map[bool]string{false: "public", true: "private"}[private], func(t *testing.T) {
			t.Parallel()
			shared := mustMatrixEnv(t, private)
			type cell struct {
				row *matrixRow
				p   matrixPrincipal
			}
			var own []cell
			for i := range matrixRows {
				r := &matrixRows[i]
				t.Run(r.name(), func(t *testing.T) {
					r.checkHardCoded(t, private)
					for _, p := range matrixPrincipals {
						if status, _ := r.expect(p, private); r.destructive && status == r.status {
							own = append(own, cell{r, p})
							continue
						}
						r.check(t, p, private, shared.send(t, r, p))
					}
				})
			}
			// Nothing refused removed anything.
			for i := range matrixRows {
				shared.checkGone(t, &matrixRows[i], http.StatusOK)
			}
			for _, c := range own {
				t.Run(c.row.name()+" as "+c.p.name, func(t *testing.T) {
					t.Parallel()
					e := mustMatrixEnv(t, private)
					c.row.check(t, c.p, private, e.send(t, c.row, c.p))
					e.checkGone(t, c.row, http.StatusNotFound)
				})
			}
		})
	}
}

// TestPermissionMatrixCoversEveryWrite fails when a write route is
// missing from the matrix, or the matrix names one that does not exist.
func TestPermissionMatrixCoversEveryWrite(t *testing.T) {
	engine, ok := servertest.Handler(servertest.MustOpenDB(t), servertest.Options{}).(interface{ Routes() gin.RoutesInfo })
	if !ok {
		t.Fatal("the handler does not list its routes")
	}
	// Outside /api/ only these take writes, each tested where it lives:
	// the Git export's POST is upload-pack, a read, and its push is
	// refused (repository_test.go); webhooks need no account and are
	// tested for matching, signatures and bad input (hooks_test.go). A new
	// one must be added here knowingly. The pages' own writes (sign-in,
	// sign-out, the editor's save, comment and suggestions, the upload
	// form) check a CSRF token and the same permissions as the API
	// (web_auth_test.go, web_loginlink_test.go, web_editor_test.go, web_comments_test.go,
	// web_files_test.go). The editor's machine translation endpoint
	// stores nothing; it checks the CSRF token, machinery.view and
	// visibility (web_machinery_test.go).
	outside := []string{"POST /accounts/login/", "POST /accounts/login/link/", "POST /accounts/logout/",
		"POST /accounts/profile/", // web_profile_test.go
		"POST /git/:project/:component/*path",
		"POST /hooks/:service", "POST /hooks/:service/", "POST /js/translate/:service/:unit/",
		"POST /projects/:project/:component/:language/upload/",
		"POST /translate/:project/:component/:language/check/", // web_workspace_test.go
		"POST /translate/:project/:component/:language/comment/",
		"POST /translate/:project/:component/:language/comment/resolve/",
		"POST /translate/:project/:component/:language/revert/",
		"POST /translate/:project/:component/:language/save/",
		"POST /translate/:project/:component/:language/suggestions/"}
	var served, tested, elsewhere []string
	for _, ri := range engine.Routes() {
		if ri.Method == "GET" || ri.Method == "HEAD" || ri.Method == "OPTIONS" {
			continue
		}
		if strings.HasPrefix(ri.Path, "/api/") {
			served = append(served, ri.Method+" "+ri.Path)
		} else {
			elsewhere = append(elsewhere, ri.Method+" "+ri.Path)
		}
	}
	slices.Sort(elsewhere)
	if !slices.Equal(elsewhere, outside) {
		t.Errorf("write routes outside /api/ = %q, want %q", elsewhere, outside)
	}
	for _, r := range matrixRows {
		tested = append(tested, r.method+" "+r.route)
	}
	slices.Sort(served)
	slices.Sort(tested)
	tested = slices.Compact(tested)
	if !slices.Equal(served, tested) {
		t.Errorf("write routes served:\n%s\nin the matrix:\n%s", strings.Join(served, "\n"), strings.Join(tested, "\n"))
	}
}

// TestScopedTokens: a read token reads what its superuser reads, and a
// project's token acts in its project, while the matrix shows both
// refused every write elsewhere.
func TestScopedTokens(t *testing.T) {
	e := mustMatrixEnv(t, true)
	for _, path := range []string{"/api/projects/", "/api/projects/demo/", "/api/projects/demo/components/",
		"/api/projects/demo/lock/", "/api/components/demo/app/", "/api/components/demo/app/lock/",
		"/api/components/demo/app/translations/", "/api/translations/demo/app/de/",
		"/api/translations/demo/app/en/units/", "/api/units/{save}/", "/api/tasks/{task}/", "/api/users/victim/",
		"/api/languages/fr/", "/api/projects/demo/changes/", "/api/projects/demo/repository/"} {
		url := e.srv.URL + e.vars.Replace(path)
		if r := servertest.Do(t, "GET", url, http.Header{"Authorization": {e.auth["reader"]}}); r.Status != http.StatusOK {
			t.Errorf("read token: GET %s = %d %s", path, r.Status, r.Body)
		}
	}
	otto := e.auth["otto"]
	for _, w := range []struct {
		method, path string
		body         any
	}{
		{"PATCH", "/api/projects/other/", map[string]any{"instructions": "Ours."}},
		{"POST", "/api/projects/other/lock/", map[string]any{"lock": true}},
	} {
		wantResponse(t, "token of project other: "+w.method+" "+w.path,
			servertest.DoJSON(t, w.method, e.srv.URL+w.path, otto, w.body), http.StatusOK, "")
	}
}

// TestPeopleReadMatrix is the matrix's counterpart for the people reads
// (api/people.go), which change nothing and so are not matrix rows: who
// gets credits and a user's statistics, with demo public and private,
// and whose credits a reader gets: everyone's to who may edit the
// project, only their own to anyone else.
func TestPeopleReadMatrix(t *testing.T) {
	for _, private := range []bool{false, true} {
		e := mustMatrixEnv(t, private)
		// The translator and the reviewer each edit one string.
		for _, user := range []string{"anna", "rita"} {
			r := servertest.DoJSON(t, "PATCH", e.srv.URL+e.vars.Replace("/api/units/{save}/"), e.auth[user],
				map[string]any{"target": []string{"Speichern " + user}, "state": 20})
			if r.Status != http.StatusOK {
				t.Fatalf("%s edits: %d %s", user, r.Status, r.Body)
			}
		}
		credits := map[bool]string{false: "401 200 200 200 200 200 200 401", true: "404 404 200 200 200 200 200 401"}
		stats := map[bool]string{false: "200 200 200 200 200 200 200 401", true: "404 200 200 200 200 200 200 401"}
		// Whose credits each reader gets, by its number of authors: a
		// reader who did not edit gets none of its own.
		authors := map[string]int{"no role": 0, "translator": 1, "reviewer": 1, "repository manager": 0,
			"project admin": 2, "superuser": 2}
		var gotCredits, gotStats []string
		for _, p := range corePrincipals {
			auth := e.auth[p.user]
			r := servertest.DoJSON(t, "GET", e.srv.URL+"/api/projects/demo/credits/?start=2000-01-01&end=2100-01-01", auth, nil)
			gotCredits = append(gotCredits, strconv.Itoa(r.Status))
			if r.Status == http.StatusOK {
				var body []map[string][]map[string]any
				if err := json.Unmarshal(r.Body, &body); err != nil {
					t.Fatal(err)
				}
				n := 0
				for _, lang := range body {
					n += len(lang["German"])
				}
				if n != authors[p.name] {
					t.Errorf("private %v: %s gets %d authors' credits, want %d: %s", private, p.name, n, authors[p.name], r.Body)
				}
			}
			// anna acted in demo: anonymous readers see her only while
			// demo is public.
			r = servertest.DoJSON(t, "GET", e.srv.URL+"/api/users/anna/statistics/", auth, nil)
			gotStats = append(gotStats, strconv.Itoa(r.Status))
		}
		if got := strings.Join(gotCredits, " "); got != credits[private] {
			t.Errorf("private %v: credits = %s, want %s", private, got, credits[private])
		}
		if got := strings.Join(gotStats, " "); got != stats[private] {
			t.Errorf("private %v: statistics = %s, want %s", private, got, stats[private])
		}
	}
}
