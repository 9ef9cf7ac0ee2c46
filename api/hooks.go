package api

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"

	"github.com/gin-gonic/gin"
	"github.com/tolk-project/tolk/edge"
	"github.com/tolk-project/tolk/index"
)

// HookUpdater starts the update an incoming webhook asks for: fetch the
// component's remote and re-import what changed, in the background, and
// return the task reporting it. It may return a task already queued for
// the component that has yet to fetch. *sync.Service satisfies it; it
// must be safe for concurrent use.
type HookUpdater interface {
	StartUpdate(c index.Component) index.Task
}

// hookStore is what the incoming webhooks read and write.
type hookStore interface {
	// FindComponents returns the components of every project when
	// projectID is 0, each with its project (and its hook secret).
	FindComponents(ctx context.Context, projectID int64) ([]index.Component, error)
	// RecordComponentChange records a change about a whole component.
	RecordComponentChange(ctx context.Context, c index.Change) error
}

// maxHookBody bounds a webhook delivery. GitHub caps its payloads at
// 25 MB, but a push event that large lists thousands of commits Tolk
// does not read; 10 MiB keeps a flood of deliveries cheap.
const maxHookBody = 10 << 20

// hookServices are the Git hosts whose push events Tolk reads, and how.
// The reference also reads gitee, pagure and azure; Tolk does not yet.
var hookServices = map[string]hookService{
	"github":    {parse: parseGitHub, verify: verifyGitHub},
	"gitlab":    {parse: parseGitLab, verify: verifyGitLab},
	"gitea":     {parse: parseGitea, verify: verifyHexHMAC("X-Gitea-Signature")},
	"forgejo":   {parse: parseGitea, verify: verifyForgejo},
	"bitbucket": {parse: parseBitbucket, verify: verifyBitbucket},
}

// hookService reads one host's deliveries. parse returns the push event
// of a payload, or nil for anything else (a ping); verify checks the
// delivery's signature with a secret, reporting whether the header was
// present and whether it verified.
type hookService struct {
	parse  func(h http.Header, p hookPayload) (*hookEvent, error)
	verify func(h http.Header, body []byte, secret string) (present, ok bool)
}

// hookEvent is what a push event says: the URLs its repository may be
// configured under, the branch pushed and the repository's full name.
type hookEvent struct {
	Repos    []string `json:"repos"`
	Branch   string   `json:"branch"`
	FullName string   `json:"full_name"`
	RepoURL  string   `json:"repo_url"`
}

// hookMatch is the reference's match_status, plus the components whose
// delivery verified (signature_matches), which the reference never
// checks.
type hookMatch struct {
	Repository int `json:"repository_matches"`
	Branch     int `json:"branch_matches"`
	Enabled    int `json:"enabled_hook_matches"`
	Signature  int `json:"signature_matches"`
}

// hookResponseJSON is the reference's HookResponseSerializer.
type hookResponseJSON struct {
	Message           string     `json:"message"`
	Status            string     `json:"status"`
	MatchStatus       *hookMatch `json:"match_status"`
	UpdatedComponents []string   `json:"updated_components"`
}

// Errors of a hook delivery, in the reference's words where it has them.
var (
	errHooksDisabled = &edge.RequestError{Status: http.StatusMethodNotAllowed, Code: "method_not_allowed",
		Detail: "Incoming webhooks are disabled on this server."}
	errHookPayload = index.Errorf(index.ErrInvalid, "Invalid data in json payload!")
)

// hookRoutes registers the incoming webhooks, outside /api/: no token
// is needed and no rate limit applies, as in the reference. The
// no-slash forms are the reference's compatibility URLs.
func (s *Server) hookRoutes(r *edge.Router) {
	r.Handle(http.MethodPost, "/hooks/:service/", s.serveHook)
	r.Handle(http.MethodPost, "/hooks/:service", s.serveHook)
}

// serveHook answers a Git host's delivery: it reads the push event,
// matches the components configured with its repository and branch, and
// starts an update of each whose project accepts hooks and whose secret,
// if any, signed the delivery.
func (s *Server) serveHook(c *gin.Context) {
	name := c.Param("service")
	svc, ok := hookServices[name]
	if !ok {
		s.edge.Fail(c, index.Errorf(index.ErrNotFound, "Hook %s not supported", name))
		return
	}
	if s.opts.Hooks == nil {
		s.edge.Fail(c, errHooksDisabled)
		return
	}
	body, p, err := readHookPayload(c)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	ev, err := svc.parse(c.Request.Header, p)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	if ev == nil {
		s.edge.WriteJSON(c, http.StatusCreated, hookResponseJSON{Message: "Hook working", Status: "success"})
		return
	}
	all, err := s.store.FindComponents(c.Request.Context(), 0)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	verified := func(secret string) (present, ok bool) {
		return svc.verify(c.Request.Header, body, secret)
	}
	// Hosts call anonymously: the answer must not name to whoever
	// guessed a repository's URL the private components that use it.
	canView := edge.Principal(c).CanView
	m, update, refused := s.matchHook(all, ev, verified, canView)
	if len(update) == 0 && refused != "" {
		s.edge.Fail(c, index.Errorf(index.ErrPermission, "%s", refused))
		return
	}
	if len(update) == 0 {
		s.edge.WriteJSON(c, http.StatusAccepted, hookResponseJSON{Message: "No matching repositories found!",
			Status: "failure", MatchStatus: &m})
		return
	}
	out := hookResponseJSON{Status: "success", MatchStatus: &m}
	var names []string
	if out.UpdatedComponents, names, err = s.startHookUpdates(c, name, ev, update, canView); err != nil {
		s.edge.Fail(c, err)
		return
	}
	out.Message = "Update triggered"
	if len(names) > 0 {
		out.Message += ": " + strings.Join(names, ", ")
	}
	s.edge.WriteJSON(c, http.StatusOK, out)
}

// startHookUpdates records a 53 (no user, no author; details say which
// service asked and what it named) for each component and starts its
// update. It returns the API URLs and "project/component" names of those
// whose project the caller may see (canView).
func (s *Server) startHookUpdates(c *gin.Context, service string, ev *hookEvent,
	update []index.Component, canView func(*index.Project) bool) (urls, names []string, err error) {
	details, _ := json.Marshal(struct {
		Service string `json:"service"`
		*hookEvent
		MatchMethod string `json:"match_method"`
	}{service, ev, "exact"})
	u := s.edge.URLsFor(c)
	// Once one update has started, the others must too, even if the host
	// hangs up: a half-handled delivery would not be sent again.
	ctx := context.WithoutCancel(c.Request.Context())
	log := edge.RequestLogger(c, s.log)
	for _, comp := range update {
		if err := s.store.RecordComponentChange(ctx, index.Change{Action: index.ActionHook,
			ProjectID: comp.ProjectID, ComponentID: comp.ID, Details: string(details)}); err != nil {
			return nil, nil, err
		}
		task := s.opts.Hooks.StartUpdate(comp)
		log.Info("webhook update started", "service", service, "project", comp.Project.Slug,
			"component", comp.Slug, "task", task.ID)
		if canView(&comp.Project) {
			names = append(names, comp.Project.Slug+"/"+comp.Slug)
			urls = append(urls, u.Component(comp.Project.Slug, comp.FullSlug(), ""))
		}
	}
	return urls, names, nil
}

// matchHook filters the components as the reference does: repository
// (after normalising each URL), then branch, then the project's
// enable_hooks; Tolk then requires the signature of every component whose
// project, or the server, has a hook secret. refused is why the last
// component whose signature failed was left out: the 403's message when
// no component is left to update. It names the component only when the
// caller may see its project (canView).
func (s *Server) matchHook(all []index.Component, ev *hookEvent, verified func(secret string) (present, ok bool),
	canView func(*index.Project) bool) (m hookMatch, update []index.Component, refused string) {
	candidates := map[string]bool{}
	for _, r := range ev.Repos {
		if n := normalizeRepoURL(r); n != "" {
			candidates[n] = true
		}
	}
	for _, comp := range all {
		if comp.Repo == "" || comp.VCS == "local" || !candidates[normalizeRepoURL(comp.Repo)] {
			continue
		}
		m.Repository++
		if ev.Branch != "" && comp.Branch != ev.Branch {
			continue
		}
		m.Branch++
		if !comp.Project.EnableHooks {
			continue
		}
		m.Enabled++
		secret := comp.Project.HookSecret
		if secret == "" {
			secret = s.opts.HookSecret
		}
		if secret != "" {
			who, accepts, its := "the matching components", "accept", "their"
			if canView(&comp.Project) {
				who, accepts, its = comp.Project.Slug+"/"+comp.Slug, "accepts", "its"
			}
			switch present, ok := verified(secret); {
			case !present:
				refused = fmt.Sprintf("The webhook signature is missing: %s %s only signed deliveries.", who, accepts)
				continue
			case !ok:
				refused = fmt.Sprintf("The webhook signature is wrong: %s %s only deliveries signed with %s secret.",
					who, accepts, its)
				continue
			}
		}
		m.Signature++
		update = append(update, comp)
	}
	return m, update, refused
}

// readHookPayload reads the delivery's raw body (what hosts sign) and
// its payload: the JSON body, or the JSON of the form field "payload"
// (GitHub's form encoding), which must be a non-empty object.
func readHookPayload(c *gin.Context) ([]byte, hookPayload, error) {
	body, err := io.ReadAll(http.MaxBytesReader(c.Writer, c.Request.Body, maxHookBody))
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		return nil, nil, &edge.RequestError{Status: http.StatusRequestEntityTooLarge, Code: "request_too_large",
			Detail: fmt.Sprintf("The request body is larger than %d bytes.", maxHookBody)}
	case err != nil:
		return nil, nil, err
	}
	raw := body
	ctype, params, _ := mime.ParseMediaType(c.GetHeader("Content-Type"))
	if ctype == "application/x-www-form-urlencoded" || ctype == "multipart/form-data" {
		var form url.Values
		if ctype == "multipart/form-data" {
			f, ferr := multipart.NewReader(bytes.NewReader(body), params["boundary"]).ReadForm(maxHookBody)
			if ferr != nil {
				return nil, nil, &edge.RequestError{Status: http.StatusBadRequest, Code: "parse_error",
					Detail: "Multipart form parse error - " + ferr.Error()}
			}
			form = url.Values(f.Value)
		} else if form, err = url.ParseQuery(string(body)); err != nil {
			return nil, nil, &edge.RequestError{Status: http.StatusBadRequest, Code: "parse_error",
				Detail: "Form parse error - " + err.Error()}
		}
		if !form.Has("payload") {
			return nil, nil, index.FieldErr("payload", "required", "This field is required.")
		}
		raw = []byte(form.Get("payload"))
		if !json.Valid(raw) {
			return nil, nil, index.FieldErr("payload", "invalid", "Value must be valid JSON.")
		}
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, nil, &edge.RequestError{Status: http.StatusBadRequest, Code: "parse_error",
			Detail: "JSON parse error - " + err.Error()}
	}
	obj, ok := v.(map[string]any)
	if !ok || len(obj) == 0 {
		return nil, nil, errHookPayload
	}
	return body, hookPayload(obj), nil
}

// hookPayload is a decoded delivery, read by dotted paths.
type hookPayload map[string]any

// get returns the value at the dotted path, or nil.
func (p hookPayload) get(path string) any {
	var v any = map[string]any(p)
	for _, k := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

// str returns the string at the dotted path, or "".
func (p hookPayload) str(path string) string {
	s, _ := p.get(path).(string)
	return s
}

// strs returns the non-empty strings at the dotted paths.
func (p hookPayload) strs(paths ...string) []string {
	var out []string
	for _, path := range paths {
		if s := p.str(path); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// branchOf is a pushed ref's branch name; a ref that is not a string or
// is empty is the reference's "Missing ref in payload".
func branchOf(p hookPayload) (string, error) {
	ref := p.str("ref")
	if ref == "" {
		return "", index.Errorf(index.ErrInvalid, "Invalid data in json payload: Missing ref in payload")
	}
	return strings.TrimPrefix(ref, "refs/heads/"), nil
}

// parseGitHub reads a GitHub push event; any other X-GitHub-Event (ping
// included) is a ping, as in the reference.
func parseGitHub(h http.Header, p hookPayload) (*hookEvent, error) {
	if h.Get("X-GitHub-Event") != "push" {
		return nil, nil
	}
	branch, err := branchOf(p)
	if err != nil {
		return nil, err
	}
	owner := p.str("repository.owner.login")
	if owner == "" {
		owner = p.str("repository.owner.name")
	}
	full := owner + "/" + p.str("repository.name")
	repos := p.strs("repository.clone_url", "repository.git_url", "repository.ssh_url",
		"repository.svn_url", "repository.html_url", "repository.url")
	if p.str("repository.clone_url") == "" {
		repos = append(repos, "https://github.com/"+full, "git@github.com:"+full)
	}
	return &hookEvent{Repos: repos, Branch: branch, FullName: full, RepoURL: p.str("repository.url")}, nil
}

// parseGitLab reads a GitLab push event; a payload without "ref" is a
// ping, as in the reference.
func parseGitLab(_ http.Header, p hookPayload) (*hookEvent, error) {
	if _, ok := p["ref"]; !ok {
		return nil, nil
	}
	branch, err := branchOf(p)
	if err != nil {
		return nil, err
	}
	return &hookEvent{Repos: p.strs("repository.url", "repository.homepage", "repository.git_http_url",
		"repository.git_ssh_url"), Branch: branch, FullName: p.str("project.path_with_namespace"),
		RepoURL: p.str("repository.homepage")}, nil
}

// parseGitea reads a Gitea or Forgejo push event: the reference treats
// every delivery as one.
func parseGitea(_ http.Header, p hookPayload) (*hookEvent, error) {
	branch, err := branchOf(p)
	if err != nil {
		return nil, err
	}
	return &hookEvent{Repos: p.strs("repository.clone_url", "repository.ssh_url", "repository.html_url"),
		Branch: branch, FullName: p.str("repository.full_name"), RepoURL: p.str("repository.html_url")}, nil
}

// bitbucketEvents are the X-Event-Key values the reference reads, of
// Bitbucket Cloud and Bitbucket Server; the rest are pings.
var bitbucketEvents = map[string]bool{"repo:push": true, "repo:refs_changed": true,
	"pullrequest:fulfilled": true, "pr:merged": true}

// parseBitbucket reads a Bitbucket Cloud or Server push (or merged pull
// request): the repository's clone links, or its https and ssh forms on
// bitbucket.org, and the branch of the last change.
func parseBitbucket(h http.Header, p hookPayload) (*hookEvent, error) {
	if !bitbucketEvents[h.Get("X-Event-Key")] {
		return nil, nil
	}
	repo := "repository"
	if p.get(repo) == nil {
		repo = "pullRequest.fromRef.repository"
	}
	full := p.str(repo + ".full_name")
	if full == "" {
		if key, slug := p.str(repo+".project.key"), p.str(repo+".slug"); key != "" && slug != "" {
			full = key + "/" + slug
		}
	}
	var repos []string
	clones, _ := p.get(repo + ".links.clone").([]any)
	for _, l := range clones {
		if m, ok := l.(map[string]any); ok {
			repos = append(repos, hookPayload(m).str("href"))
		}
	}
	html := p.str(repo + ".links.html.href")
	if html != "" {
		repos = append(repos, html)
	}
	if len(clones) == 0 && full != "" {
		repos = append(repos, "https://bitbucket.org/"+full, "git@bitbucket.org:"+full)
	}
	branch := bitbucketBranch(p)
	if branch == "" {
		return nil, index.Errorf(index.ErrInvalid, "Invalid data in json payload: Missing branch in payload")
	}
	return &hookEvent{Repos: repos, Branch: branch, FullName: full, RepoURL: html}, nil
}

// bitbucketBranch is the branch of the last change of a push (Cloud's
// push.changes, Server's changes), or a merged pull request's target.
func bitbucketBranch(p hookPayload) string {
	for _, path := range []string{"push.changes", "changes"} {
		changes, _ := p.get(path).([]any)
		if len(changes) == 0 {
			continue
		}
		last, _ := changes[len(changes)-1].(map[string]any)
		ch := hookPayload(last)
		for _, k := range []string{"new.name", "old.name", "ref.displayId"} {
			if b := ch.str(k); b != "" {
				return b
			}
		}
	}
	for _, k := range []string{"pullrequest.destination.branch.name", "pullRequest.toRef.displayId"} {
		if b := p.str(k); b != "" {
			return b
		}
	}
	return ""
}

// normalizeRepoURL reduces a repository URL to host and path, so that
// the https, ssh, scp-like ("git@host:path") and git forms of one
// repository compare equal: no scheme, no user or password, no default
// port, no ".git" and no trailing slash; the host is lower-cased. A
// file:// URL keeps its path. It returns "" for what is no URL.
func normalizeRepoURL(raw string) string {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return ""
	}
	if !strings.Contains(raw, "://") {
		// scp-like: [user@]host:path.
		hostPart, path, ok := strings.Cut(raw, ":")
		if !ok || strings.Contains(hostPart, "/") {
			return ""
		}
		if _, host, ok := strings.Cut(hostPart, "@"); ok {
			hostPart = host
		}
		return trimRepoPath(strings.ToLower(hostPart) + "/" + strings.TrimPrefix(path, "/"))
	}
	u, err := url.Parse(raw)
	if err != nil || !repoSchemes[strings.ToLower(u.Scheme)] {
		return "" // weblate://project/component links a component, not a repository
	}
	host := strings.ToLower(u.Hostname())
	if port := u.Port(); port != "" && port != defaultPorts[strings.ToLower(u.Scheme)] {
		host += ":" + port
	}
	return trimRepoPath(host + "/" + strings.TrimPrefix(u.Path, "/"))
}

// repoSchemes are the schemes of repository URLs a hook may name.
var repoSchemes = map[string]bool{"http": true, "https": true, "ssh": true, "git": true,
	"git+ssh": true, "ssh+git": true, "file": true}

// defaultPorts are the ports a repository URL may leave out.
var defaultPorts = map[string]string{"http": "80", "https": "443", "ssh": "22", "git": "9418"}

func trimRepoPath(s string) string {
	s = strings.TrimRight(s, "/")
	s = strings.TrimSuffix(s, ".git")
	return strings.TrimRight(s, "/")
}

// Signatures. Each host signs a delivery its own way; all are compared
// with hmac.Equal, in constant time.

// verifyGitHub checks X-Hub-Signature-256: "sha256=" and the hex
// HMAC-SHA256 of the body.
func verifyGitHub(h http.Header, body []byte, secret string) (present, ok bool) {
	return verifyPrefixedHMAC(h.Get("X-Hub-Signature-256"), body, secret)
}

// verifyBitbucket checks X-Hub-Signature, which Bitbucket writes as
// GitHub writes X-Hub-Signature-256.
func verifyBitbucket(h http.Header, body []byte, secret string) (present, ok bool) {
	return verifyPrefixedHMAC(h.Get("X-Hub-Signature"), body, secret)
}

// verifyGitLab checks X-Gitlab-Token, which is the secret itself.
func verifyGitLab(h http.Header, _ []byte, secret string) (present, ok bool) {
	token := h.Get("X-Gitlab-Token")
	return token != "", hmac.Equal([]byte(token), []byte(secret))
}

// verifyForgejo checks X-Forgejo-Signature, or the X-Gitea-Signature
// Forgejo also sends.
func verifyForgejo(h http.Header, body []byte, secret string) (present, ok bool) {
	if h.Get("X-Forgejo-Signature") != "" {
		return verifyHexHMAC("X-Forgejo-Signature")(h, body, secret)
	}
	return verifyHexHMAC("X-Gitea-Signature")(h, body, secret)
}

// verifyHexHMAC checks a header holding the bare hex HMAC-SHA256 of the
// body, as Gitea and Forgejo send it.
func verifyHexHMAC(header string) func(http.Header, []byte, string) (bool, bool) {
	return func(h http.Header, body []byte, secret string) (present, ok bool) {
		sig := h.Get(header)
		return sig != "", sig != "" && hmacMatches(sig, body, secret)
	}
}

func verifyPrefixedHMAC(header string, body []byte, secret string) (present, ok bool) {
	if header == "" {
		return false, false
	}
	hexSig, found := strings.CutPrefix(header, "sha256=")
	return true, found && hmacMatches(hexSig, body, secret)
}

// hmacMatches reports whether hexSig is the hex HMAC-SHA256 of body
// under secret.
func hmacMatches(hexSig string, body []byte, secret string) bool {
	got, err := hex.DecodeString(strings.TrimSpace(hexSig))
	if err != nil {
		return false
	}
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(body)
	return hmac.Equal(got, mac.Sum(nil))
}
