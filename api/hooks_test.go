package api_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tolk-project/tolk/api"
	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/sqlstore"
	"github.com/tolk-project/tolk/internal/servertest"
	tolksync "github.com/tolk-project/tolk/sync"
)

// The service provides what the hooks declare.
var _ api.HookUpdater = (*tolksync.Service)(nil)

// hookSetup is what a hook test's server holds: one project "demo" with
// a component "app" on a real upstream repository.
type hookSetup struct {
	projectSecret string // the project's hook_secret
	siteSecret    string // Options.HookSecret
	disabled      bool   // the project's enable_hooks off
	branch        string // the component's branch; "" is main
	noHooks       bool   // Options.Hooks nil: hooks off site-wide
	// others are more projects, each with a component "app" on the
	// same upstream repository.
	others []index.Project
	// overHTTP serves the upstream over git's smart HTTP, counting its
	// fetches, instead of as a file:// path.
	overHTTP bool
	// updateInterval is the service's UpdateInterval; 0 is the tests'
	// 1ns.
	updateInterval time.Duration
}

type hookEnv struct {
	srv *servertest.Running
	db  *sqlstore.DB
	svc *tolksync.Service
	up  servertest.Upstream
	// repo is the component's repository URL; fetches counts what it
	// served with overHTTP.
	repo    string
	fetches *atomic.Int64
}

// mustHookEnv imports the demo app from a fresh upstream with a real
// sync.Service, which the server uses for hook updates.
func mustHookEnv(tb testing.TB, s hookSetup) hookEnv {
	tb.Helper()
	ctx := context.Background()
	db, svc := servertest.MustIndexAndService(tb, func(o *tolksync.Options) {
		if s.updateInterval != 0 {
			o.UpdateInterval = s.updateInterval
		}
	})
	up := servertest.MustUpstream(tb, "app")
	repo, fetches := up.URL, &atomic.Int64{}
	if s.overHTTP {
		repo, fetches = up.MustServeHTTP(tb)
	}
	if s.branch != "" {
		servertest.RunGit(tb, up.Work, "push", "--quiet", "origin", "main:"+s.branch)
	} else {
		s.branch = "main"
	}
	app := index.DefaultComponent()
	app.Name, app.Slug, app.Repo, app.Branch = "App", "app", repo, s.branch
	app.Filemask, app.Template = "locales/*.json", "locales/en.json"
	specs := []tolksync.ProjectSpec{{
		Project: index.Project{Name: "Demo", Slug: "demo", Web: "https://example.com/",
			EnableHooks: !s.disabled, HookSecret: s.projectSecret},
		Components: []index.Component{app},
	}}
	for _, p := range s.others {
		specs = append(specs, tolksync.ProjectSpec{Project: p, Components: []index.Component{app}})
	}
	if err := svc.Reconcile(ctx, specs); err != nil {
		tb.Fatal(err)
	}
	opts := servertest.Options{Repositories: svc, Files: svc, Components: svc, HookSecret: s.siteSecret}
	if !s.noHooks {
		opts.Hooks = svc
	}
	return hookEnv{srv: servertest.Serve(tb, db, opts), db: db, svc: svc, up: up, repo: repo, fetches: fetches}
}

// hookCount is the number of 53s recorded.
func (e hookEnv) hookCount(tb testing.TB) int {
	tb.Helper()
	_, n, err := e.db.FindChanges(context.Background(), index.ChangeFilter{Actions: []index.Action{index.ActionHook}})
	if err != nil {
		tb.Fatal(err)
	}
	return n
}

// waitIdle waits for the service's tasks, so that a test ends with no
// import running. It asks the service, which shows private projects'
// tasks too.
func (e hookEnv) waitIdle(tb testing.TB) {
	tb.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for _, t := range e.svc.Tasks() {
		for !t.Completed {
			if time.Now().After(deadline) {
				tb.Fatalf("task %s did not complete", t.ID)
			}
			time.Sleep(20 * time.Millisecond)
			t, _ = e.svc.Task(t.ID)
		}
	}
}

// delivery is one request a Git host sends.
type delivery struct {
	header http.Header
	body   []byte
}

// hmacHex is the hex HMAC-SHA256 of body under secret.
func hmacHex(secret string, body []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(body)
	return hex.EncodeToString(mac.Sum(nil))
}

func mustJSON(tb testing.TB, v any) []byte {
	tb.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// The payloads below are minimal push events shaped as each host
// documents them; clone is the repository's clone URL (a file:// URL
// in tests, the https one in life) and the other URLs are the host's.

func githubPush(tb testing.TB, clone, ref string) []byte {
	return mustJSON(tb, map[string]any{
		"ref": ref, "before": strings.Repeat("0", 40), "after": strings.Repeat("a", 40),
		"repository": map[string]any{
			"id": 1296269, "name": "app", "full_name": "acme/app",
			"owner":    map[string]any{"name": "acme", "login": "acme"},
			"html_url": "https://github.com/acme/app", "url": "https://github.com/acme/app",
			"clone_url": clone, "git_url": "git://github.com/acme/app.git",
			"ssh_url": "git@github.com:acme/app.git", "svn_url": "https://github.com/acme/app",
			"default_branch": "main",
		},
		"pusher":  map[string]any{"name": "dev", "email": "dev@example.com"},
		"commits": []any{},
	})
}

func gitlabPush(tb testing.TB, clone, ref string) []byte {
	return mustJSON(tb, map[string]any{
		"object_kind": "push", "event_name": "push", "ref": ref,
		"before": strings.Repeat("0", 40), "after": strings.Repeat("a", 40), "user_username": "dev",
		"project": map[string]any{"id": 15, "name": "app", "path_with_namespace": "acme/app",
			"web_url": "https://gitlab.com/acme/app", "git_http_url": clone,
			"git_ssh_url": "git@gitlab.com:acme/app.git", "default_branch": "main"},
		"repository": map[string]any{"name": "app", "url": "git@gitlab.com:acme/app.git",
			"homepage": "https://gitlab.com/acme/app", "git_http_url": clone,
			"git_ssh_url": "git@gitlab.com:acme/app.git"},
		"commits": []any{}, "total_commits_count": 0,
	})
}

func giteaPush(tb testing.TB, clone, ref string) []byte {
	return mustJSON(tb, map[string]any{
		"ref": ref, "before": strings.Repeat("0", 40), "after": strings.Repeat("a", 40),
		"repository": map[string]any{"id": 1, "name": "app", "full_name": "acme/app",
			"html_url": "https://gitea.example.com/acme/app", "clone_url": clone,
			"ssh_url": "git@gitea.example.com:acme/app.git", "default_branch": "main"},
		"pusher":  map[string]any{"login": "dev"},
		"commits": []any{},
	})
}

// bitbucketPush is a Bitbucket Server (Data Center) repo:refs_changed,
// whose repository lists its clone links.
func bitbucketPush(tb testing.TB, clone, branch string) []byte {
	return mustJSON(tb, map[string]any{
		"eventKey": "repo:refs_changed", "date": "2026-11-23T10:00:00+0000",
		"actor": map[string]any{"name": "dev"},
		"repository": map[string]any{"slug": "app", "name": "app",
			"project": map[string]any{"key": "ACME"},
			"links": map[string]any{"clone": []any{
				map[string]any{"href": clone, "name": "http"},
				map[string]any{"href": "ssh://git@bitbucket.example.com:7999/acme/app.git", "name": "ssh"},
			}}},
		"changes": []any{map[string]any{
			"ref":      map[string]any{"id": "refs/heads/" + branch, "displayId": branch, "type": "BRANCH"},
			"fromHash": strings.Repeat("0", 40), "toHash": strings.Repeat("a", 40), "type": "UPDATE",
		}},
	})
}

// signed is a delivery of service's payload for the clone URL and branch,
// signed with secret ("" for no signature) the way that host signs.
func signed(tb testing.TB, service, clone, branch, secret string) delivery {
	tb.Helper()
	h := http.Header{"Content-Type": {"application/json"}}
	var body []byte
	switch service {
	case "github":
		body = githubPush(tb, clone, "refs/heads/"+branch)
		h.Set("X-GitHub-Event", "push")
		if secret != "" {
			h.Set("X-Hub-Signature-256", "sha256="+hmacHex(secret, body))
		}
	case "gitlab":
		body = gitlabPush(tb, clone, "refs/heads/"+branch)
		h.Set("X-Gitlab-Event", "Push Hook")
		if secret != "" {
			h.Set("X-Gitlab-Token", secret)
		}
	case "gitea":
		body = giteaPush(tb, clone, "refs/heads/"+branch)
		h.Set("X-Gitea-Event", "push")
		if secret != "" {
			h.Set("X-Gitea-Signature", hmacHex(secret, body))
		}
	case "forgejo":
		body = giteaPush(tb, clone, "refs/heads/"+branch)
		h.Set("X-Forgejo-Event", "push")
		if secret != "" {
			h.Set("X-Forgejo-Signature", hmacHex(secret, body))
		}
	case "bitbucket":
		body = bitbucketPush(tb, clone, branch)
		h.Set("X-Event-Key", "repo:refs_changed")
		if secret != "" {
			h.Set("X-Hub-Signature", "sha256="+hmacHex(secret, body))
		}
	default:
		tb.Fatalf("no payload for %s", service)
	}
	return delivery{h, body}
}

func (e hookEnv) post(tb testing.TB, path string, d delivery) servertest.Response {
	tb.Helper()
	return servertest.DoBody(tb, http.MethodPost, e.srv.URL+path, d.header, strings.NewReader(string(d.body)))
}

// Responses, exactly.
func hookUpdated(base string) string {
	return `{"message":"Update triggered: demo/app","status":"success","match_status":` +
		`{"repository_matches":1,"branch_matches":1,"enabled_hook_matches":1,"signature_matches":1},` +
		`"updated_components":["` + base + `/api/components/demo/app/"]}`
}

func hookNoMatch(repo, branch, enabled int) string {
	return fmt.Sprintf(`{"message":"No matching repositories found!","status":"failure","match_status":`+
		`{"repository_matches":%d,"branch_matches":%d,"enabled_hook_matches":%d,"signature_matches":0},`+
		`"updated_components":null}`, repo, branch, enabled)
}

const hookPing = `{"message":"Hook working","status":"success","match_status":null,"updated_components":null}`

func hookRefused(detail string) string {
	return `{"type":"client_error","errors":[{"code":"permission_denied","detail":"` + detail + `","attr":null}]}`
}

const (
	sigMissing = "The webhook signature is missing: demo/app accepts only signed deliveries."
	sigWrong   = "The webhook signature is wrong: demo/app accepts only deliveries signed with its secret."
)

var hookServiceNames = []string{"github", "gitlab", "gitea", "forgejo", "bitbucket"}

// TestHookSignatures delivers each host's push with a good, a wrong and
// no signature, under a project secret and under a site-wide one: only
// the good one records a 53 and starts an update.
func TestHookSignatures(t *testing.T) {
	for _, scope := range []string{"project", "site"} {
		setup := hookSetup{projectSecret: "s3cret"}
		if scope == "site" {
			setup = hookSetup{siteSecret: "s3cret"}
		}
		e := mustHookEnv(t, setup)
		for _, service := range hookServiceNames {
			for _, tc := range []struct {
				name, secret, body string
				status, hooks      int
			}{
				{"good", "s3cret", hookUpdated(e.srv.URL), http.StatusOK, 1},
				{"wrong", "guess", hookRefused(sigWrong), http.StatusForbidden, 0},
				{"missing", "", hookRefused(sigMissing), http.StatusForbidden, 0},
			} {
				t.Run(scope+"/"+service+"/"+tc.name, func(t *testing.T) {
					before := e.hookCount(t)
					r := e.post(t, "/hooks/"+service+"/", signed(t, service, e.up.URL, "main", tc.secret))
					wantResponse(t, "hook", r, tc.status, tc.body)
					if got := e.hookCount(t) - before; got != tc.hooks {
						t.Errorf("53s recorded = %d, want %d", got, tc.hooks)
					}
					e.waitIdle(t)
				})
			}
		}
	}
}

// TestHookSecretPrecedence: a project's own secret replaces the
// site-wide one for its components.
func TestHookSecretPrecedence(t *testing.T) {
	e := mustHookEnv(t, hookSetup{projectSecret: "project", siteSecret: "site"})
	r := e.post(t, "/hooks/github/", signed(t, "github", e.up.URL, "main", "site"))
	wantResponse(t, "signed with the site's secret", r, http.StatusForbidden, hookRefused(sigWrong))
	r = e.post(t, "/hooks/github/", signed(t, "github", e.up.URL, "main", "project"))
	wantResponse(t, "signed with the project's secret", r, http.StatusOK, hookUpdated(e.srv.URL))
	e.waitIdle(t)
}

// TestHookMatching covers what is matched and why not, with no secret
// anywhere (the reference's behaviour).
func TestHookMatching(t *testing.T) {
	open := mustHookEnv(t, hookSetup{})
	disabled := mustHookEnv(t, hookSetup{disabled: true})
	off := mustHookEnv(t, hookSetup{noHooks: true})
	form := func(d delivery) delivery {
		h := d.header.Clone()
		h.Set("Content-Type", "application/x-www-form-urlencoded")
		return delivery{h, []byte(url.Values{"payload": {string(d.body)}}.Encode())}
	}
	raw := func(service, ctype, body string, header ...string) delivery {
		h := http.Header{"Content-Type": {ctype}}
		for i := 0; i+1 < len(header); i += 2 {
			h.Set(header[i], header[i+1])
		}
		return delivery{h, []byte(body)}
	}
	for _, tc := range []struct {
		name   string
		env    hookEnv
		path   string
		d      func(e hookEnv) delivery
		status int
		body   string // exact, or a prefix when it ends in "…"
	}{
		{"github", open, "/hooks/github/", func(e hookEnv) delivery { return signed(t, "github", e.up.URL, "main", "") },
			http.StatusOK, ""},
		{"no slash", open, "/hooks/gitlab", func(e hookEnv) delivery { return signed(t, "gitlab", e.up.URL, "main", "") },
			http.StatusOK, ""},
		{"github form", open, "/hooks/github/", func(e hookEnv) delivery {
			return form(signed(t, "github", e.up.URL, "main", ""))
		}, http.StatusOK, ""},
		{"url forms", open, "/hooks/gitea/", func(e hookEnv) delivery {
			// The clone URL as a user might configure it: with .git, a
			// trailing slash and another case of file scheme.
			return signed(t, "gitea", "FILE://"+strings.TrimPrefix(e.up.URL, "file://")+"/", "main", "")
		}, http.StatusOK, ""},
		{"wrong branch", open, "/hooks/github/", func(e hookEnv) delivery {
			return signed(t, "github", e.up.URL, "develop", "")
		}, http.StatusAccepted, hookNoMatch(1, 0, 0)},
		{"hooks disabled on the project", disabled, "/hooks/bitbucket/", func(e hookEnv) delivery {
			return signed(t, "bitbucket", e.up.URL, "main", "")
		}, http.StatusAccepted, hookNoMatch(1, 1, 0)},
		{"no match", open, "/hooks/github/", func(e hookEnv) delivery {
			return signed(t, "github", "https://github.com/acme/other.git", "main", "")
		}, http.StatusAccepted, hookNoMatch(0, 0, 0)},
		{"bitbucket cloud elsewhere", open, "/hooks/bitbucket/", func(hookEnv) delivery {
			return raw("bitbucket", "application/json", `{"repository":{"full_name":"acme/app","links":{"html":`+
				`{"href":"https://bitbucket.org/acme/app"}}},"push":{"changes":[{"new":{"type":"branch","name":"main"}}]}}`,
				"X-Event-Key", "repo:push")
		}, http.StatusAccepted, hookNoMatch(0, 0, 0)},
		{"github ping", open, "/hooks/github/", func(hookEnv) delivery {
			return raw("github", "application/json", `{"zen":"Keep it logically awesome.","hook_id":1}`,
				"X-GitHub-Event", "ping")
		}, http.StatusCreated, hookPing},
		{"gitlab without ref", open, "/hooks/gitlab/", func(hookEnv) delivery {
			return raw("gitlab", "application/json", `{"object_kind":"system_hook"}`)
		}, http.StatusCreated, hookPing},
		{"bitbucket other event", open, "/hooks/bitbucket/", func(hookEnv) delivery {
			return raw("bitbucket", "application/json", `{"test":true}`, "X-Event-Key", "diagnostics:ping")
		}, http.StatusCreated, hookPing},
		{"not json", open, "/hooks/github/", func(hookEnv) delivery {
			return raw("github", "application/json", `{"ref": `, "X-GitHub-Event", "push")
		}, http.StatusBadRequest, `{"type":"client_error","errors":[{"code":"parse_error","detail":"JSON parse error - …`},
		{"array", open, "/hooks/gitea/", func(hookEnv) delivery {
			return raw("gitea", "application/json", `[{"ref":"refs/heads/main"}]`)
		}, http.StatusBadRequest, `{"type":"validation_error","errors":[{"code":"invalid","detail":"Invalid data in json payload!","attr":null}]}`},
		{"empty object", open, "/hooks/gitea/", func(hookEnv) delivery {
			return raw("gitea", "application/json", `{}`)
		}, http.StatusBadRequest, `{"type":"validation_error","errors":[{"code":"invalid","detail":"Invalid data in json payload!","attr":null}]}`},
		{"missing ref", open, "/hooks/gitea/", func(e hookEnv) delivery {
			return raw("gitea", "application/json", `{"repository":{"clone_url":"`+e.up.URL+`"}}`)
		}, http.StatusBadRequest, `{"type":"validation_error","errors":[{"code":"invalid","detail":"Invalid data in json payload: Missing ref in payload","attr":null}]}`},
		{"form without payload", open, "/hooks/github/", func(hookEnv) delivery {
			return raw("github", "application/x-www-form-urlencoded", "ref=main", "X-GitHub-Event", "push")
		}, http.StatusBadRequest, invalid(required("payload"))},
		{"form payload not json", open, "/hooks/github/", func(hookEnv) delivery {
			return raw("github", "application/x-www-form-urlencoded", "payload=%7Bnope", "X-GitHub-Event", "push")
		}, http.StatusBadRequest, invalid([3]string{"payload", "invalid", "Value must be valid JSON."})},
		{"form not url-encoded", open, "/hooks/github/", func(hookEnv) delivery {
			return raw("github", "application/x-www-form-urlencoded", "payload=%zz", "X-GitHub-Event", "push")
		}, http.StatusBadRequest, `{"type":"client_error","errors":[{"code":"parse_error","detail":"Form parse error - …`},
		{"multipart cut short", open, "/hooks/github/", func(hookEnv) delivery {
			return raw("github", "multipart/form-data; boundary=XX",
				"--XX\r\nContent-Disposition: form-data; name=\"payload\"\r\n\r\n{\"ref\":", "X-GitHub-Event", "push")
		}, http.StatusBadRequest, `{"type":"client_error","errors":[{"code":"parse_error","detail":"Multipart form parse error - …`},
		{"unknown service", open, "/hooks/svn/", func(e hookEnv) delivery { return signed(t, "github", e.up.URL, "main", "") },
			http.StatusNotFound, `{"type":"client_error","errors":[{"code":"not_found","detail":"Hook svn not supported","attr":null}]}`},
		{"hooks off site-wide", off, "/hooks/github/", func(e hookEnv) delivery {
			return signed(t, "github", e.up.URL, "main", "")
		}, http.StatusMethodNotAllowed, `{"type":"client_error","errors":[{"code":"method_not_allowed","detail":"Incoming webhooks are disabled on this server.","attr":null}]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := tc.env.hookCount(t)
			r := tc.env.post(t, tc.path, tc.d(tc.env))
			want := tc.body
			if tc.status == http.StatusOK {
				want = hookUpdated(tc.env.srv.URL)
			}
			if prefix, ok := strings.CutSuffix(want, "…"); ok {
				if r.Status != tc.status || !strings.HasPrefix(string(r.Body), prefix) {
					t.Errorf("hook = %d %s\nwant %d %s…", r.Status, r.Body, tc.status, prefix)
				}
			} else {
				wantResponse(t, "hook", r, tc.status, want)
			}
			wantHooks := 0
			if tc.status == http.StatusOK {
				wantHooks = 1
			}
			if got := tc.env.hookCount(t) - before; got != wantHooks {
				t.Errorf("53s recorded = %d, want %d", got, wantHooks)
			}
			tc.env.waitIdle(t)
		})
	}
}

// TestHookSecretThroughAPI: hook_secret is written through the project
// API, never shown, and then required of deliveries.
func TestHookSecretThroughAPI(t *testing.T) {
	e := mustHookEnv(t, hookSetup{})
	admin := servertest.MustUser(t, e.db, "admin", true)
	r := servertest.DoJSON(t, http.MethodPatch, e.srv.URL+"/api/projects/demo/", admin, map[string]any{"hook_secret": "fromapi"})
	if r.Status != http.StatusOK || strings.Contains(string(r.Body), "fromapi") || strings.Contains(string(r.Body), "hook_secret") {
		t.Fatalf("PATCH hook_secret = %d %s; want 200 without the secret", r.Status, r.Body)
	}
	if got := servertest.Do(t, http.MethodGet, e.srv.URL+"/api/projects/demo/", nil); strings.Contains(string(got.Body), "fromapi") {
		t.Errorf("GET project shows the secret: %s", got.Body)
	}
	r = e.post(t, "/hooks/gitea/", signed(t, "gitea", e.up.URL, "main", ""))
	wantResponse(t, "unsigned after the secret was set", r, http.StatusForbidden, hookRefused(sigMissing))
	r = e.post(t, "/hooks/gitea/", signed(t, "gitea", e.up.URL, "main", "fromapi"))
	wantResponse(t, "signed", r, http.StatusOK, hookUpdated(e.srv.URL))
	e.waitIdle(t)
}

// TestHookUpdatesFromUpstream is the whole path on a real bare
// repository: upstream pushes a new string, GitHub calls, and the string
// is in the API once the update task is done; the 53 has no user.
func TestHookUpdatesFromUpstream(t *testing.T) {
	e := mustHookEnv(t, hookSetup{})
	en := string(e.up.Blob(t, "locales/en.json"))
	en = strings.Replace(en, `"farewell": "Good bye",`, `"farewell": "Good bye",`+"\n"+`    "hook.new": "Pulled by a webhook",`, 1)
	e.up.Commit(t, map[string]string{"locales/en.json": en}, "Add a string")

	r := e.post(t, "/hooks/github/", signed(t, "github", e.up.URL, "main", ""))
	wantResponse(t, "hook", r, http.StatusOK, hookUpdated(e.srv.URL))

	units := e.srv.URL + "/api/translations/demo/app/en/units/?q=" + url.QueryEscape(`key:"hook.new"`)
	deadline := time.Now().Add(30 * time.Second)
	for {
		list := servertest.GetObject(t, units)
		if res := servertest.Results(t, list); len(res) == 1 {
			if got := fmt.Sprint(res[0]["source"]); got != "[Pulled by a webhook]" {
				t.Errorf("source = %s", got)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the new string never appeared: %v", list)
		}
		time.Sleep(20 * time.Millisecond)
	}
	e.waitIdle(t)
	changes, _, err := e.db.FindChanges(context.Background(), index.ChangeFilter{Actions: []index.Action{index.ActionHook},
		Page: index.Page{Number: 1, Size: 10}})
	if err != nil || len(changes) != 1 {
		t.Fatalf("53s = %v, %v; want one", changes, err)
	}
	ch := changes[0]
	if ch.UserID != 0 || ch.AuthorID != 0 || ch.ComponentSlug != "app" ||
		!strings.Contains(ch.Details, `"service":"github"`) || !strings.Contains(ch.Details, `"branch":"main"`) {
		t.Errorf("53 = %+v; want no user or author, component app, details with service and branch", ch)
	}
}

// TestHookIntake: GitHub's form encoding is signed over the raw form
// body, a multipart form is read too, and an oversized delivery is
// refused before it is read whole.
func TestHookIntake(t *testing.T) {
	e := mustHookEnv(t, hookSetup{projectSecret: "s3cret"})
	push := githubPush(t, e.up.URL, "refs/heads/main")
	formBody := []byte(url.Values{"payload": {string(push)}}.Encode())
	h := http.Header{"Content-Type": {"application/x-www-form-urlencoded"}, "X-GitHub-Event": {"push"},
		"X-Hub-Signature-256": {"sha256=" + hmacHex("s3cret", formBody)}}
	r := e.post(t, "/hooks/github/", delivery{h, formBody})
	wantResponse(t, "signed form", r, http.StatusOK, hookUpdated(e.srv.URL))
	e.waitIdle(t)

	var mp strings.Builder
	mp.WriteString("--b\r\nContent-Disposition: form-data; name=\"payload\"\r\n\r\n")
	mp.Write(push)
	mp.WriteString("\r\n--b--\r\n")
	mpBody := []byte(mp.String())
	h = http.Header{"Content-Type": {"multipart/form-data; boundary=b"}, "X-GitHub-Event": {"push"},
		"X-Hub-Signature-256": {"sha256=" + hmacHex("s3cret", mpBody)}}
	r = e.post(t, "/hooks/github/", delivery{h, mpBody})
	wantResponse(t, "signed multipart form", r, http.StatusOK, hookUpdated(e.srv.URL))
	e.waitIdle(t)

	huge := append([]byte(`{"ref":"refs/heads/main","padding":"`), make([]byte, 10<<20)...)
	for i := len(huge) - 10<<20; i < len(huge); i++ {
		huge[i] = 'x'
	}
	huge = append(huge, `"}`...)
	r = e.post(t, "/hooks/gitea/", delivery{http.Header{"Content-Type": {"application/json"}}, huge})
	wantResponse(t, "oversized", r, http.StatusRequestEntityTooLarge,
		`{"type":"client_error","errors":[{"code":"request_too_large","detail":"The request body is larger than 10485760 bytes.","attr":null}]}`)
}

// TestHookSharedRepository: two projects use one repository; a delivery
// signed with one project's secret updates that project's component and
// the unprotected one, never the one whose secret it lacks, and the
// reply counts each filter.
func TestHookSharedRepository(t *testing.T) {
	e := mustHookEnv(t, hookSetup{projectSecret: "demo-secret", others: []index.Project{
		{Name: "Open", Slug: "open", Web: "https://example.com/", EnableHooks: true},
		{Name: "Locked", Slug: "locked", Web: "https://example.com/", EnableHooks: true, HookSecret: "other"},
		{Name: "Quiet", Slug: "quiet", Web: "https://example.com/"},
	}})
	r := e.post(t, "/hooks/forgejo/", signed(t, "forgejo", e.up.URL, "main", "demo-secret"))
	want := `{"message":"Update triggered: demo/app, open/app","status":"success","match_status":` +
		`{"repository_matches":4,"branch_matches":4,"enabled_hook_matches":3,"signature_matches":2},` +
		`"updated_components":["` + e.srv.URL + `/api/components/demo/app/","` + e.srv.URL + `/api/components/open/app/"]}`
	wantResponse(t, "shared repository", r, http.StatusOK, want)
	if got := e.hookCount(t); got != 2 {
		t.Errorf("53s recorded = %d, want 2", got)
	}
	e.waitIdle(t)
}

// TestHookFloodCoalesced: a flood of forged, unsigned deliveries for a
// component whose project has no secret (so each is accepted) fetches
// the real upstream once and queues one follow-up, which waits out the
// service's UpdateInterval: a delivery arriving while an update is
// queued or running adds nothing more.
func TestHookFloodCoalesced(t *testing.T) {
	e := mustHookEnv(t, hookSetup{overHTTP: true, updateInterval: time.Hour})
	comps, err := e.db.FindComponents(context.Background(), 0)
	if err != nil || len(comps) != 1 {
		t.Fatalf("components = %v, %v", comps, err)
	}
	// What one update costs the upstream, measured with an import, which
	// no interval holds back.
	before := e.fetches.Load()
	e.svc.StartImport(comps[0])
	e.waitIdle(t)
	perUpdate := e.fetches.Load() - before
	if perUpdate < 1 {
		t.Fatalf("an import fetched %d times", perUpdate)
	}
	known := map[string]bool{}
	for _, task := range e.svc.Tasks() {
		known[task.ID] = true
	}

	before = e.fetches.Load()
	var wg sync.WaitGroup
	for range 200 {
		wg.Go(func() {
			r := e.post(t, "/hooks/github/", signed(t, "github", e.repo, "main", ""))
			if r.Status != http.StatusOK {
				t.Errorf("hook = %d %s", r.Status, r.Body)
			}
		})
	}
	wg.Wait()
	// Wait for the update that runs at once; the follow-up waits an hour.
	var started, waiting int
	for deadline := time.Now().Add(30 * time.Second); ; {
		started, waiting = 0, 0
		for _, task := range e.svc.Tasks() {
			switch {
			case known[task.ID]:
			case task.Completed:
				started++
			default:
				waiting++
			}
		}
		if started >= 1 && waiting <= 1 || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if started < 1 {
		t.Fatalf("200 deliveries made no update run in 30s (%d waiting)", waiting)
	}
	if started+waiting > 2 || waiting > 1 {
		t.Errorf("200 deliveries made %d tasks, %d of them still waiting; want one run and at most one waiting",
			started+waiting, waiting)
	}
	if got := e.fetches.Load() - before; got < 1 || got > perUpdate {
		t.Errorf("200 deliveries fetched the upstream %d times; one update fetches %d", got, perUpdate)
	}
}

// TestHookHidesPrivate: the answer to a delivery names only the
// components its caller may see. Hosts call anonymously, so a private
// project's components are updated but never named, in the 200's list
// nor in a 403's reason, to whoever guessed their repository's URL; a
// caller with a token that sees them gets their names.
func TestHookHidesPrivate(t *testing.T) {
	e := mustHookEnv(t, hookSetup{others: []index.Project{
		{Name: "Secret", Slug: "secret", Web: "https://example.com/", EnableHooks: true, AccessControl: index.AccessPrivate},
		{Name: "Vault", Slug: "vault", Web: "https://example.com/", EnableHooks: true, AccessControl: index.AccessPrivate,
			HookSecret: "vault-secret"},
	}})
	counts := `{"repository_matches":3,"branch_matches":3,"enabled_hook_matches":3,"signature_matches":2}`
	r := e.post(t, "/hooks/github/", signed(t, "github", e.up.URL, "main", ""))
	wantResponse(t, "anonymous", r, http.StatusOK, `{"message":"Update triggered: demo/app","status":"success","match_status":`+
		counts+`,"updated_components":["`+e.srv.URL+`/api/components/demo/app/"]}`)
	if got := e.hookCount(t); got != 2 {
		t.Errorf("53s recorded = %d, want 2: the private component is updated all the same", got)
	}

	admin := servertest.MustUser(t, e.db, "admin", true)
	d := signed(t, "github", e.up.URL, "main", "")
	d.header.Set("Authorization", admin)
	r = e.post(t, "/hooks/github/", d)
	wantResponse(t, "superuser", r, http.StatusOK, `{"message":"Update triggered: demo/app, secret/app","status":"success","match_status":`+
		counts+`,"updated_components":["`+e.srv.URL+`/api/components/demo/app/","`+e.srv.URL+`/api/components/secret/app/"]}`)
	e.waitIdle(t)

	// Only the private, protected component matches the branch: the
	// refusal does not name it.
	servertest.RunGit(t, e.up.Work, "push", "--quiet", "origin", "main:stable")
	ctx := context.Background()
	vault, err := e.db.FindComponent(ctx, "vault", "app")
	if err != nil {
		t.Fatal(err)
	}
	vault.Branch = "stable"
	if _, _, err := e.db.SaveComponent(ctx, vault); err != nil {
		t.Fatal(err)
	}
	r = e.post(t, "/hooks/github/", signed(t, "github", e.up.URL, "stable", ""))
	wantResponse(t, "anonymous, refused", r, http.StatusForbidden,
		hookRefused("The webhook signature is missing: the matching components accept only signed deliveries."))
	d = signed(t, "github", e.up.URL, "stable", "")
	d.header.Set("Authorization", admin)
	r = e.post(t, "/hooks/github/", d)
	wantResponse(t, "superuser, refused", r, http.StatusForbidden,
		hookRefused("The webhook signature is missing: vault/app accepts only signed deliveries."))
}
