package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/gin-gonic/gin"
	"github.com/tolk-project/tolk/edge"
	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/langdata"
)

// Components is the git work behind the component writes: checking a
// repository before a component is saved, importing its files in the
// background, and keeping checkouts on disk in step with the index.
// *sync.Service satisfies it and cmd/tolk wires it (Options.Components),
// so api never imports sync or vcs. Methods must be safe for concurrent
// use.
type Components interface {
	// CheckComponent clones the component's repository and checks its
	// branch, filemask, template and new_base, as the reference validates
	// a component before saving it. Problems the client can fix are a
	// *index.FieldError on the field at fault. It returns the component
	// with Branch set to the remote's default when it was empty.
	CheckComponent(ctx context.Context, c index.Component) (index.Component, error)
	// StartImport imports the saved component's files in the background
	// and returns the task reporting it.
	StartImport(c index.Component) index.Task
	// Task returns a task by id; false when there is none.
	Task(id string) (index.Task, bool)
	// Tasks returns the tasks kept, newest first.
	Tasks() []index.Task
	// CancelTask cancels a task; false when there is none.
	CancelTask(id string) bool
	// RemoveCheckout deletes the checkout of a component removed from the
	// index, cancelling its tasks first.
	RemoveCheckout(ctx context.Context, c index.Component) error
	// MoveCheckout moves a component's checkout after its slug or its
	// project's slug changed from from's to to's.
	MoveCheckout(ctx context.Context, from, to index.Component) error
	// TranslationFilename returns the file of a new translation of c into
	// the language with the given code; false when the component's
	// filemask and language settings cannot name one that reads back.
	TranslationFilename(c index.Component, code string) (string, bool)
	// CheckMessage reports why a commit, add, delete, merge, add-on or
	// pull message template does not render (it names the line), or nil.
	CheckMessage(tmpl string) error
}

// componentWriteStore is what the component writes need.
type componentWriteStore interface {
	// CreateComponent adds a component and records its creation by the
	// actor; a name or slug its project has is a *index.FieldError.
	CreateComponent(ctx context.Context, c index.Component, by index.Actor) (index.Component, error)
	// UpdateComponent applies update to the stored component in one
	// transaction and returns it before and after.
	UpdateComponent(ctx context.Context, id int64, update func(*index.Component) error) (before, after index.Component, err error)
	// DeleteComponent removes a component with its translations and
	// records the removal by the actor; it returns the component.
	DeleteComponent(ctx context.Context, id int64, by index.Actor) (index.Component, error)
}

// msgNoSharing is why POST .../links/ cannot succeed: sharing a
// component with other projects means listing it, its translations and
// its glossary in them, which Tolk does not do.
const msgNoSharing = "Sharing a component with other projects is not supported by Tolk."

// linkComponent serves POST .../components/P/C/links/ (the reference's
// project_slug body). The request is checked as the reference checks it
// — the right to edit the component, a project_slug naming a project
// the caller can see — and then refused with a 400 that says why, rather
// than a 403 that would send the caller looking for a permission.
func (s *Server) linkComponent(c *gin.Context) {
	comp, err := s.writableComponent(c, index.PermComponentEdit, "Can not edit component")
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	p, err := readPayload(c)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	slug, ok := p.text("project_slug", true, false)
	if ok {
		target, err := s.store.FindProject(c.Request.Context(), slug)
		switch {
		case errors.Is(err, index.ErrNotFound) || (err == nil && edge.Visible(c, &target) != nil):
			p.fail("project_slug", "invalid", "Project not found.")
		case err != nil:
			s.edge.Fail(c, err)
			return
		case target.ID == comp.ProjectID:
			p.fail("project_slug", "invalid", "The component already belongs to this project.")
		default:
			p.fail("project_slug", "invalid", msgNoSharing)
		}
	}
	s.edge.Fail(c, p.err())
}

// The reference's messages for component settings that cannot work
// together (Component.clean_template, clean_repo and friends, and the
// serializer's creation-only fields).
const (
	msgMonolingualNoBase  = "You can not use a monolingual translation without a base file."
	msgBilingualBase      = "You can not use a base file for bilingual translation."
	msgNoPlaceholder      = "File mask does not contain * as a language placeholder!"
	msgOneFileMask        = "This file format keeps every language in one file: the file mask is that file's path, without *."
	msgSourceLanguage     = "Source language can not be changed, please recreate the component instead."
	msgLanguageNotFound   = "Language with this language code was not found."
	msgCreationOnly       = "This field is for creation only, use /file/ instead."
	msgAutoacceptNoVoting = "Accepting suggestions automatically only works with voting turned on."
)

// componentInput is a component write's body, read once to validate it
// and again onto the stored component inside the update's transaction.
type componentInput struct {
	pl      *payload
	formats []FileFormat // the formats file_format may name
	// source is the source language's canonical code when the body gives
	// one that exists, resolved before the transaction.
	source string
	// category is the category the body names (0: none, the project's
	// top level), when hasCategory; the store checks it is the project's.
	category    int64
	hasCategory bool
}

// read reads the component fields the body gives into c, recording
// problems; fields it lacks keep c's values. Unknown and read-only keys
// are ignored, as the reference ignores them.
func (in *componentInput) read(c *index.Component) {
	pl := in.pl
	readName(pl, &c.Name, &c.Slug, componentNameLength)
	pl.choice("vcs", &c.VCS, []string{"git"})
	pl.str("repo", &c.Repo, false)
	pl.str("branch", &c.Branch, true)
	pl.str("push", &c.Push, true)
	pl.str("push_branch", &c.PushBranch, true)
	pl.str("filemask", &c.Filemask, false)
	if pl.has("file_format") {
		var f string
		pl.str("file_format", &f, false)
		names := make([]string, len(in.formats))
		for i, ff := range in.formats {
			names[i] = ff.Name
		}
		if f != "" && !slices.Contains(names, f) {
			pl.fail("file_format", "invalid_choice", fmt.Sprintf("%q is not a valid choice. Supported formats: %s.",
				f, strings.Join(names, ", ")))
		} else if f != "" {
			c.FileFormat = f
		}
	}
	for _, f := range []stringField{
		{"template", &c.Template}, {"new_base", &c.NewBase}, {"intermediate", &c.Intermediate},
		{"license", &c.License}, {"agreement", &c.Agreement}, {"check_flags", &c.CheckFlags},
		{"repoweb", &c.Repoweb}, {"report_source_bugs", &c.ReportSourceBugs},
		{"language_regex", &c.LanguageRegex}, {"variant_regex", &c.VariantRegex},
		{"glossary_color", &c.GlossaryColor},
	} {
		pl.str(f.name, f.dst, true)
	}
	for _, f := range messageTemplates(c) {
		pl.str(f.name, f.dst, false) // the reference's message fields are not blank=True
	}
	for _, f := range []struct {
		name string
		dst  *bool
	}{
		{"edit_template", &c.EditTemplate}, {"restricted", &c.Restricted},
		{"allow_translation_propagation", &c.AllowTranslationPropagation}, {"manage_units", &c.ManageUnits},
		{"enable_suggestions", &c.EnableSuggestions}, {"suggestion_voting", &c.SuggestionVoting},
		{"push_on_commit", &c.PushOnCommit}, {"auto_lock_error", &c.AutoLockError}, {"is_glossary", &c.IsGlossary},
	} {
		pl.boolean(f.name, f.dst)
	}
	pl.choice("new_lang", &c.NewLang, []string{"add", "none", "contact", "url"})
	pl.choice("language_code_style", &c.LanguageCode, langdata.CodeStyles)
	pl.choice("merge_style", &c.MergeStyle, []string{"rebase", "merge"})
	pl.integer("priority", &c.Priority, 0, 1000)
	pl.integer("suggestion_autoaccept", &c.SuggestionAutoaccept, 0, 1000)
	pl.integer("commit_pending_age", &c.CommitPendingAge, 0, 24*365)
	pl.strList("enforced_checks", &c.EnforcedChecks)
	// The checks read these on every write: refuse what they cannot
	// parse rather than store it (the reference's validate_check_flags
	// and enforced checks validation).
	if pl.has("check_flags") {
		pl.fieldError(index.FlagsError("check_flags", c.CheckFlags))
	}
	if pl.has("enforced_checks") {
		pl.fieldError(index.EnforcedChecksError(c.EnforcedChecks))
	}
}

// stringField is a component's string setting under its attribute name.
type stringField struct {
	name string
	dst  *string
}

// messageTemplates are a component's message templates.
func messageTemplates(c *index.Component) []stringField {
	return []stringField{
		{"commit_message", &c.CommitMessage}, {"add_message", &c.AddMessage},
		{"delete_message", &c.DeleteMessage}, {"merge_message", &c.MergeMessage},
		{"addon_message", &c.AddonMessage}, {"pull_message", &c.PullMessage},
	}
}

// msgTemplateInvalid prefixes why a message template does not render,
// as the reference words its validation of one.
const msgTemplateInvalid = "Failed to render template: "

// checkMessages records each message template of c that does not
// render. A template the stored component already has is left alone
// (stored is nil when creating), as a stored repository address is.
func (s *Server) checkMessages(c, stored *index.Component, fe *index.FieldError) {
	if s.opts.Components == nil {
		return // no component write gets this far without them
	}
	var was []stringField
	if stored != nil {
		was = messageTemplates(stored)
	}
	for i, m := range messageTemplates(c) {
		if was != nil && *was[i].dst == *m.dst {
			continue
		}
		if err := s.opts.Components.CheckMessage(*m.dst); err != nil {
			fe.Add(m.name, "invalid", msgTemplateInvalid+err.Error())
		}
	}
}

// creationOnly are the reference's create-time sources of files, which
// Tolk does not take: it imports from a repository only.
var creationOnly = []string{"zipfile", "docfile", "from_component"}

// readSourceLanguage reads source_language, given as a code or as
// {"code": …} (the reference accepts both, reading a bare code as the
// object), and resolves it to a canonical code. It returns "" when the
// body does not give one or gives one that does not exist (a problem is
// recorded then, on "source_language.code" as the reference words it).
func (s *Server) readSourceLanguage(c *gin.Context, pl *payload) (string, error) {
	v, present := pl.value("source_language")
	if !present {
		return "", nil
	}
	var code string
	switch v.(type) {
	case string:
		pl.str("source_language", &code, false)
	case map[string]any:
		sub, _ := pl.object("source_language")
		sub.require("code")
		sub.str("code", &code, false)
	default:
		pl.fail("source_language", "invalid", fmt.Sprintf("Invalid data. Expected a dictionary, but got %s.", jsonKind(v)))
	}
	if code == "" {
		return "", nil
	}
	l, err := s.store.FindLanguage(c.Request.Context(), code)
	if errors.Is(err, index.ErrNotFound) {
		pl.fail("source_language.code", "invalid", msgLanguageNotFound)
		return "", nil
	}
	return l.Code, err
}

// checkComponentSettings checks what can be checked of a component
// without its repository: settings that exclude each other, patterns
// and message templates that do not compile and repository addresses
// the server refuses. An
// address the stored component already has (stored is nil when
// creating) is not a client's to answer for: the operator configured it,
// and a local one must not stop a PATCH of other settings.
func (s *Server) checkComponentSettings(c, stored *index.Component) error {
	var fe index.FieldError
	ff, _ := s.opts.fileFormat(c.FileFormat)
	switch {
	case ff.Monolingual && c.Template == "":
		fe.Add("template", "invalid", msgMonolingualNoBase)
	case ff.Name != "" && !ff.Monolingual && !ff.TemplateOptional && c.Template != "":
		fe.Add("template", "invalid", msgBilingualBase)
		fe.Add("file_format", "invalid", msgBilingualBase)
	}
	switch n := strings.Count(c.Filemask, "*"); {
	case ff.OneFile && n > 0:
		// Tolk's own rule: the reference has no format whose one file
		// holds every language.
		fe.Add("filemask", "invalid", msgOneFileMask)
	case ff.OneFile:
	case n == 0:
		fe.Add("filemask", "invalid", msgNoPlaceholder)
	case n > 1:
		fe.Add("filemask", "invalid", "File mask must contain exactly one * as the language placeholder.")
	}
	if c.Intermediate != "" {
		fe.Add("intermediate", "invalid", "Intermediate language files are not supported by Tolk.")
	}
	for _, r := range []struct{ attr, expr string }{{"language_regex", c.LanguageRegex}, {"variant_regex", c.VariantRegex}} {
		if _, err := regexp.Compile(r.expr); err != nil {
			fe.Add(r.attr, "invalid", "Compilation failed: "+err.Error())
		}
	}
	if c.SuggestionAutoaccept > 0 && !c.SuggestionVoting {
		fe.Add("suggestion_autoaccept", "invalid", msgAutoacceptNoVoting)
		fe.Add("suggestion_voting", "invalid", msgAutoacceptNoVoting)
	}
	s.checkMessages(c, stored, &fe)
	if stored == nil || c.Repo != stored.Repo {
		if msg := s.refuseRepo(c.Repo); msg != "" {
			fe.Add("repo", "invalid", msg)
		}
	}
	if c.Push != "" && (stored == nil || c.Push != stored.Push) {
		if msg := s.refuseRepo(c.Push); msg != "" {
			fe.Add("push", "invalid", msg)
		}
	}
	return fe.Err()
}

// scpLike matches the scp-style address of an ssh repository,
// user@host:path.
var scpLike = regexp.MustCompile(`^[A-Za-z0-9._~-]+@[A-Za-z0-9.-]+:[^/]`)

// refuseRepo says why the server will not use a repository address, or
// "" when it will. Only network addresses are taken from clients: a
// local path (or file:// URL) would let anyone with project rights read
// any repository on the server's disk, so file:// is for deployments
// that allow it (tolk serve --allow-local-repos; tests).
func (s *Server) refuseRepo(repo string) string {
	if scpLike.MatchString(repo) || index.IsLink(repo) {
		return "" // a link to another component is judged when checked and saved
	}
	u, err := url.Parse(repo)
	if err != nil || u.Scheme == "" {
		return "Enter a repository URL: https://, http://, ssh:// or user@host:path."
	}
	switch strings.ToLower(u.Scheme) {
	case "https", "http", "ssh":
		if u.Host == "" {
			return "Enter a repository URL with a host."
		}
		return ""
	case "file":
		if s.opts.AllowLocalRepos {
			return ""
		}
		return "Local repositories are not allowed on this server."
	}
	return fmt.Sprintf("Unsupported repository URL scheme %q: use https://, http://, ssh:// or user@host:path.", u.Scheme)
}

// withoutCredentials removes the user name and password from a
// repository URL, as the reference hides them (HIDE_REPO_CREDENTIALS):
// responses and logs never carry them.
func withoutCredentials(repo string) string {
	if !strings.Contains(repo, "@") {
		return repo // no user information to remove, and no parse per body
	}
	u, err := url.Parse(repo)
	if err != nil || u.User == nil || u.Scheme == "" {
		return repo
	}
	u.User = nil
	return u.String()
}

// importSettingsChanged reports whether what an import reads differs
// between two versions of a component, so that the repository is checked
// and the files imported again.
func importSettingsChanged(a, b *index.Component) bool {
	return a.VCS != b.VCS || a.Repo != b.Repo || a.Branch != b.Branch || a.Filemask != b.Filemask ||
		a.Template != b.Template || a.NewBase != b.NewBase || a.FileFormat != b.FileFormat ||
		a.LanguageRegex != b.LanguageRegex
}

// components returns the configured Components, or fails the request:
// without them no component can be checked or imported.
func (s *Server) components(c *gin.Context) (Components, bool) {
	if s.opts.Components == nil {
		s.edge.Fail(c, edge.ErrNotImplemented)
		return nil, false
	}
	return s.opts.Components, true
}

// checkComponentFree reports a name or slug the project already has
// before the repository is cloned; the store checks again when saving.
func (s *Server) checkComponentFree(ctx context.Context, c *index.Component) error {
	existing, err := s.store.FindComponents(ctx, c.ProjectID)
	if err != nil {
		return err
	}
	var fe index.FieldError
	for _, e := range existing {
		if e.ID == c.ID {
			continue
		}
		if e.Slug == c.Slug {
			fe.Add("slug", "unique", "Component with this URL slug already exists in the project.")
		}
		if e.Name == c.Name {
			fe.Add("name", "unique", "Component with this name already exists in the project.")
		}
	}
	return fe.Err()
}

// componentRequired are the fields a component's create and PUT need.
var componentRequired = []string{"name", "slug", "repo", "filemask", "file_format"}

// readComponentBody reads a component write's body onto a copy of comp
// and validates what can be validated without the repository: fields,
// settings that exclude each other, names the project has. creating
// tells a create (source_language sets the source; manage_units defaults
// to true for a monolingual component) from an update (source_language
// cannot change). It returns the body, for reading again onto the stored
// component, and the copy.
func (s *Server) readComponentBody(c *gin.Context, comp index.Component, required []string, creating bool) (*componentInput, index.Component, error) {
	pl, err := readPayload(c)
	if err != nil {
		return nil, comp, err
	}
	in := &componentInput{pl: pl, formats: s.opts.FileFormats}
	pl.require(required...)
	if in.source, err = s.readSourceLanguage(c, pl); err != nil {
		return nil, comp, err
	}
	current := comp.SourceLanguage
	if creating && in.source != "" {
		current = in.source
	}
	var stored *index.Component
	if !creating {
		before := comp
		stored = &before
	}
	in.read(&comp)
	in.checkSource(&comp, current)
	if in.category, in.hasCategory, err = s.readCategoryRef(c, pl, "category"); err != nil {
		return nil, comp, err
	}
	if in.hasCategory {
		comp.CategoryID = in.category
	}
	for _, f := range creationOnly {
		switch {
		case pl.has(f) && creating:
			pl.fail(f, "invalid", "This field is not supported by Tolk: give a repository instead.")
		case pl.has(f):
			pl.fail(f, "invalid", msgCreationOnly)
		}
	}
	if creating && !pl.has("manage_units") && comp.Template != "" {
		comp.ManageUnits = true // the reference's default for a monolingual component
	}
	err = pl.err()
	if err == nil {
		err = s.checkComponentSettings(&comp, stored)
	}
	if err == nil {
		err = s.checkComponentFree(c.Request.Context(), &comp)
	}
	return in, comp, err
}

// createComponent serves POST /api/projects/:project/components/: the
// reference's payload, validated and the repository checked while the
// client waits (a bad repo, branch or filemask is a 400 on that field);
// then the component is saved and its files import in the background.
// 201 with Location, the component and task_url.
func (s *Server) createComponent(c *gin.Context) {
	p, err := s.writableProject(c, index.PermProjectEdit, "Can not create components")
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	comps, ok := s.components(c)
	if !ok {
		return
	}
	fresh := index.DefaultComponent()
	fresh.ProjectID, fresh.Project = p.ID, p
	_, comp, err := s.readComponentBody(c, fresh, componentRequired, true)
	ctx := c.Request.Context()
	if err == nil {
		comp, err = comps.CheckComponent(ctx, comp)
	}
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	saved, err := s.store.CreateComponent(ctx, comp, index.UserActor(edge.Principal(c).User))
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	task := comps.StartImport(saved)
	body, err := s.componentBody(c, s.edge.URLsFor(c), &saved, &task)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	c.Header("Location", body.URL)
	s.edge.WriteJSON(c, http.StatusCreated, body)
}

// componentBody is the component's JSON with task_url pointing at task,
// when one runs.
func (s *Server) componentBody(c *gin.Context, u edge.URLs, comp *index.Component, task *index.Task) (componentJSON, error) {
	source, err := s.edge.SourceLanguage(c, comp.SourceLanguage)
	if err != nil {
		return componentJSON{}, err
	}
	body := newComponentJSON(u, comp, &source, s.addonURLs(c.Request.Context(), u, comp.ID))
	if task != nil {
		body.TaskURL = ptr(u.Task(task.ID))
	}
	return body, nil
}

// writableComponent resolves the component of the request path for a
// write needing perm: 404 when the caller may not see its project, 403
// with denied when they may not change it.
func (s *Server) writableComponent(c *gin.Context, perm index.Permission, denied string) (index.Component, error) {
	comp, err := s.edge.FindComponent(c)
	if err != nil {
		return comp, err
	}
	return comp, edge.Authorize(c, perm, comp.ProjectID, denied)
}

// updateComponent serves PUT (partial false: name, slug, repo, filemask
// and file_format required) and PATCH on /api/components/P/C/. A change
// of what the import reads (repo, branch, filemask, template, …) is
// checked against the repository first and imports again in the
// background, with task_url in the answer.
func (s *Server) updateComponent(partial bool) gin.HandlerFunc {
	return func(c *gin.Context) {
		comp, err := s.writableComponent(c, index.PermComponentEdit, "Can not edit component")
		if err != nil {
			s.edge.Fail(c, err)
			return
		}
		comps, ok := s.components(c)
		if !ok {
			return
		}
		in, check, err := s.readComponentBody(c, comp, requiredUnless(partial, componentRequired...), false)
		ctx := c.Request.Context()
		reimport := importSettingsChanged(&comp, &check)
		if err == nil && reimport {
			check, err = comps.CheckComponent(ctx, check)
		}
		if err != nil {
			s.edge.Fail(c, err)
			return
		}
		before, after, err := s.store.UpdateComponent(ctx, comp.ID, func(q *index.Component) error {
			in.read(q)
			in.checkSource(q, q.SourceLanguage)
			if in.hasCategory {
				q.CategoryID = in.category
			}
			if reimport {
				q.Branch = check.Branch // the remote's default when the body cleared it
			}
			return in.pl.err()
		})
		if err != nil {
			s.edge.Fail(c, err)
			return
		}
		task := s.followComponentUpdate(c, comps, before, after)
		body, err := s.componentBody(c, s.edge.URLsFor(c), &after, task)
		if err != nil {
			s.edge.Fail(c, err)
			return
		}
		s.edge.WriteJSON(c, http.StatusOK, body)
	}
}

// followComponentUpdate does what a committed component update calls
// for on disk and in the background: the checkout follows a new slug,
// and a change of what the import reads starts an import, whose task it
// returns (nil for none).
func (s *Server) followComponentUpdate(c *gin.Context, comps Components, before, after index.Component) *index.Task {
	if before.Slug != after.Slug {
		ctx, cancel := cleanupContext(c)
		if err := comps.MoveCheckout(ctx, before, after); err != nil {
			edge.RequestLogger(c, s.log).Error("move checkout", "project", after.Project.Slug, "component", after.Slug, "err", err)
		}
		cancel()
	}
	if !importSettingsChanged(&before, &after) {
		return nil
	}
	task := comps.StartImport(after)
	return &task
}

// checkSource records the reference's refusal when the body's source
// language differs from the component's, current, which cannot change
// once the component exists, and keeps current.
func (in *componentInput) checkSource(c *index.Component, current string) {
	if in.source != "" && in.source != current {
		in.pl.fail("source_language", "invalid", msgSourceLanguage)
	}
	c.SourceLanguage = current
}

// deleteComponent serves DELETE /api/components/P/C/: 204 once the
// component is out of the index (one transaction, recording "Component
// removed") and its checkout off the disk. The reference answers before
// an asynchronous removal.
func (s *Server) deleteComponent(c *gin.Context) {
	comp, err := s.writableComponent(c, index.PermComponentEdit, "Can not delete component")
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	removed, err := s.store.DeleteComponent(c.Request.Context(), comp.ID, index.UserActor(edge.Principal(c).User))
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	s.removeCheckouts(c, removed)
	noContent(c)
}
