package main

import (
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/tolk-project/tolk/edge"
)

// TestLinkWalk is what a client written for the reference does: start at
// /api/, follow every URL of this server found in any body, and expect
// each to answer. It runs the whole program on the demo (real
// repositories, real index, real HTTP), once plain and anonymous, and
// once with format=api, where every URL found must carry format=api too,
// and the administrator's token.
func TestLinkWalk(t *testing.T) {
	cfg := DefaultConfig()
	cfg.DataDir, cfg.Listen, cfg.Demo = t.TempDir(), "127.0.0.1:0", true
	// A walk is one client making thousands of requests, more than an
	// anonymous client may in a day; the limits stay on, raised, so that
	// every API answer is checked for their headers.
	cfg.RateLimitAnon = edge.RateLimit{Requests: 100_000, Period: 24 * time.Hour}
	cfg.RateLimitUser = cfg.RateLimitAnon
	m := mustRunConfig(t, cfg)
	defer m.Close()
	base := "http://" + m.Addr().String()

	for _, formatAPI := range []bool{false, true} {
		name, auth := "plain", ""
		start := base + "/api/"
		if formatAPI {
			name, start, auth = "format=api", start+"?format=api", adminToken(t, m)
		}
		t.Run(name, func(t *testing.T) {
			w := &walker{t: t, base: base, formatAPI: formatAPI, auth: auth, seen: map[string]bool{}}
			w.walk(start, 4000)
			w.requireFamilies()
		})
	}
}

// walker follows links breadth first. Every URL is fetched once.
type walker struct {
	t         *testing.T
	base      string
	formatAPI bool
	auth      string // the Authorization header, "" for anonymous
	seen      map[string]bool
	visited   []string // paths, for the family check
}

func (w *walker) walk(start string, limit int) {
	queue := []string{start}
	w.seen[start] = true
	for len(queue) > 0 {
		if len(w.visited) >= limit {
			w.t.Fatalf("walk did not end within %d requests: links keep growing", limit)
		}
		next := queue[0]
		queue = queue[1:]
		for _, link := range w.fetch(next) {
			if !w.seen[link] {
				w.seen[link] = true
				queue = append(queue, link)
			}
		}
	}
}

// fetch GETs one URL the way wlc does (Accept: application/json, also
// for downloads), checks the answer and returns this server's URLs found
// in a JSON body.
func (w *walker) fetch(target string) []string {
	t := w.t
	req, err := http.NewRequest(http.MethodGet, target, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "application/json")
	if w.auth != "" {
		req.Header.Set("Authorization", w.auth)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", target, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: %v", target, err)
	}
	u, _ := url.Parse(target)
	w.visited = append(w.visited, u.Path)
	if strings.HasPrefix(u.Path, "/api/") && resp.Header.Get("X-RateLimit-Remaining") == "" {
		t.Errorf("GET %s: no rate limit headers", target)
	}
	if resp.StatusCode != http.StatusOK && !w.noFile(u, resp.StatusCode, body) && !w.noRepository(u, resp.StatusCode) &&
		!w.signedInOnly(u, resp.StatusCode) && !w.creditsNeedRange(u, resp.StatusCode, body) {
		t.Errorf("GET %s: status %d, body %.300s", target, resp.StatusCode, body)
		return nil
	}
	ctype, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if !strings.HasPrefix(u.Path, "/api/") || strings.HasSuffix(u.Path, "/file/") {
		if ctype == "" {
			t.Errorf("GET %s: no Content-Type", target)
		}
		return nil // a page, a download or the Git export: not walked further
	}
	if ctype != "application/json" {
		t.Errorf("GET %s: Content-Type %q, want application/json", target, ctype)
		return nil
	}
	var doc any
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Errorf("GET %s: %v", target, err)
		return nil
	}
	var links []string
	collectStrings(doc, func(s string) {
		if !strings.HasPrefix(s, w.base+"/") {
			return // external: the project's home page, a license page
		}
		if has := strings.Contains(s, "format=api"); has != w.formatAPI {
			t.Errorf("GET %s: link %s: format=api present %v, want %v", target, s, has, w.formatAPI)
		}
		links = append(links, s)
	})
	return links
}

// noFile reports the one documented answer that is not a 200: the
// file_url of a translation that has no file of its own (the source of a
// bilingual glossary) gets the reference's 404 "No translation file!".
// It holds only when the translation itself says its filename is empty.
func (w *walker) noFile(u *url.URL, status int, body []byte) bool {
	if status != http.StatusNotFound || !strings.HasSuffix(u.Path, "/file/") ||
		!strings.Contains(string(body), `"detail":"No translation file!"`) {
		return false
	}
	resp, err := http.Get(w.base + strings.TrimSuffix(u.Path, "file/"))
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	var tr struct {
		Filename *string `json:"filename"`
	}
	return json.NewDecoder(resp.Body).Decode(&tr) == nil && tr.Filename != nil && *tr.Filename == ""
}

// noRepository reports the other documented answer: an anonymous reader
// may not see repository status (a 403, as in the reference).
func (w *walker) noRepository(u *url.URL, status int) bool {
	return w.auth == "" && status == http.StatusForbidden && strings.HasSuffix(u.Path, "/repository/")
}

// signedInOnly reports the translation memory's answer to an anonymous
// reader: the root links it, and its list is for signed-in users only
// (a 401, as in the reference).
func (w *walker) signedInOnly(u *url.URL, status int) bool {
	return w.auth == "" && status == http.StatusUnauthorized && u.Path == "/api/memory/"
}

// creditsNeedRange reports the credits_url's answers to a bare GET, as
// in the reference: an anonymous reader gets a 401, a signed-in one a
// 400 naming the start and end the report needs.
func (w *walker) creditsNeedRange(u *url.URL, status int, body []byte) bool {
	if !strings.HasSuffix(u.Path, "/credits/") {
		return false
	}
	if w.auth == "" {
		return status == http.StatusUnauthorized
	}
	return status == http.StatusBadRequest && strings.Contains(string(body), `"attr":"start"`) &&
		strings.Contains(string(body), `"attr":"end"`)
}

func collectStrings(v any, fn func(string)) {
	switch v := v.(type) {
	case string:
		fn(v)
	case []any:
		for _, e := range v {
			collectStrings(e, fn)
		}
	case map[string]any:
		for _, e := range v {
			collectStrings(e, fn)
		}
	}
}

// families are the kinds of resource a walk of the demo must reach, so a
// walk that stops early cannot pass.
var families = []string{
	`^/api/$`,
	`^/api/projects/$`, `^/api/projects/demo/$`, `^/api/projects/demo/components/$`,
	`^/api/projects/demo/statistics/$`, `^/api/projects/demo/changes/$`, `^/api/projects/demo/languages/$`,
	`^/api/projects/demo/repository/$`,
	`^/api/components/$`, `^/api/components/demo/app/$`, `^/api/components/demo/glossary/$`,
	`^/api/components/demo/app/translations/$`, `^/api/components/demo/app/statistics/$`,
	`^/api/components/demo/app/changes/$`, `^/api/components/demo/app/lock/$`,
	`^/api/components/demo/app/links/$`, `^/api/components/demo/app/repository/$`,
	`^/api/translations/$`, `^/api/translations/demo/app/de/$`, `^/api/translations/demo/glossary/de/$`,
	`^/api/translations/demo/app/de/units/$`, `^/api/translations/demo/app/de/changes/$`,
	`^/api/translations/demo/app/de/statistics/$`, `^/api/translations/demo/app/de/repository/$`,
	`^/api/translations/demo/app/de/file/$`,
	`^/api/units/$`, `^/api/units/\d+/$`, `^/api/changes/$`, `^/api/changes/\d+/$`,
	`^/api/languages/$`, `^/api/languages/de/$`, `^/api/languages/de/statistics/$`,
	`^/api/users/$`,
	`^/projects/demo/$`, `^/projects/demo/app/$`, `^/projects/demo/app/de/$`, `^/translate/demo/app/de/$`,
	`^/engage/demo/-/de/$`, `^/languages/de/$`, `^/git/demo/app/$`,
}

func (w *walker) requireFamilies() {
	for _, f := range families {
		re := regexp.MustCompile(f)
		found := false
		for _, p := range w.visited {
			if re.MatchString(p) {
				found = true
				break
			}
		}
		if !found {
			w.t.Errorf("the walk never reached %s", f)
		}
	}
	if w.t.Failed() {
		sort.Strings(w.visited)
		w.t.Logf("visited %d URLs", len(w.visited))
	}
}
