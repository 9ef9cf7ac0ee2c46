package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/tolk-project/tolk/api"
	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/sqlstore"
)

// webResult is the web section: the human pages of issue 16, one
// browser at a time (a translator's view: latency, not throughput).
type webResult struct {
	Translation string // the translation whose pages are timed
	Points      []webPoint
}

// webPoint is one timed page or round trip.
type webPoint struct {
	Name, Path string
	Bytes      int
	Stats      loadStats
	Failure    string
}

// webTarget is the page-time target the issue sets.
const webTarget = 100 * time.Millisecond

// benchWeb times the translation page, the editor and save-and-next
// over the 1x index, signed in with a session as a browser is.
func benchWeb(ctx context.Context, cfg config, rep *report, in *instance, logf func(string, ...any)) error {
	cookie, err := benchSession(ctx, in.db)
	if err != nil {
		return fmt.Errorf("web: session: %w", err)
	}
	srv, err := serve(serverHandler(in.db, api.Options{}))
	if err != nil {
		return err
	}
	defer srv.Close()
	b := &webClient{client: newClient(), base: srv.base(), cookie: cookie}
	defer b.client.CloseIdleConnections()

	tr := "/bench/jellyfin/" + loadLanguage + "/"
	res := &webResult{Translation: "jellyfin/" + loadLanguage}
	rep.Web = res
	n := min(cfg.MaxRequests, 200)
	if cfg.Quick {
		n = min(n, 20)
	}
	logf("web: pages of %s, %d times each", res.Translation, n)
	pages := []struct{ name, path string }{
		{"translation page", "/projects" + tr},
		{"editor, first string", "/translate" + tr},
		{"editor, strings needing editing", "/translate" + tr + "?q=is%3Afuzzy"},
		{"editor, all strings, string 500", "/translate" + tr + "?offset=500"},
		{"editor, search", "/translate" + tr + "?q=play"},
		{"editor, next string (script's partial page)", "/translate" + tr + "?after=1"},
		// The workspace's heaviest string: failing checks, other
		// languages, nearby strings, history (web_workspace.go).
		{"editor, a string with failing checks (workspace)", "/translate" + tr + "?q=has%3Acheck"},
	}
	for _, p := range pages {
		pt := webPoint{Name: p.name, Path: p.path}
		var s sample
		start := time.Now()
		for i := 0; i < n && ctx.Err() == nil; i++ {
			t0 := time.Now()
			body, err := b.get(ctx, p.path, strings.Contains(p.name, "partial"))
			if err != nil {
				s.errors++
				pt.Failure = err.Error()
				continue
			}
			s.lats = append(s.lats, time.Since(t0))
			pt.Bytes = len(body)
		}
		s.elapsed = time.Since(start)
		pt.Stats = s.stats()
		res.Points = append(res.Points, pt)
	}
	res.Points = append(res.Points, b.saveAndNext(ctx, "/translate"+tr, n))
	return nil
}

// benchSession signs the bench user in as a browser would end up: a
// stored session and its cookie.
func benchSession(ctx context.Context, db *sqlstore.DB) (string, error) {
	u, err := db.FindUser(ctx, "tolk-bench")
	if errors.Is(err, index.ErrNotFound) {
		u, err = db.SaveUser(ctx, index.User{Username: "tolk-bench", FullName: "tolk-bench", IsActive: true, IsSuperuser: true})
	}
	if err != nil {
		return "", err
	}
	cookie := index.NewToken(index.SessionPrefix)
	err = db.CreateSession(ctx, index.Session{Hash: index.HashToken(cookie), UserID: u.ID,
		Expires: time.Now().Add(time.Hour)})
	return cookie, err
}

// webClient is a browser's session against the pages.
type webClient struct {
	client *http.Client
	base   string
	cookie string
}

func (b *webClient) do(ctx context.Context, method, path string, header http.Header, body io.Reader) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, b.base+path, body)
	if err != nil {
		return nil, err
	}
	for k, v := range header {
		req.Header[k] = v
	}
	req.AddCookie(&http.Cookie{Name: "tolk_session", Value: b.cookie})
	resp, err := b.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("%s %s: %d %.200s", method, path, resp.StatusCode, data)
	}
	return data, err
}

func (b *webClient) get(ctx context.Context, path string, partial bool) ([]byte, error) {
	h := http.Header{}
	if partial {
		h.Set("X-Tolk-Partial", "1")
	}
	return b.do(ctx, "GET", path, h, nil)
}

var (
	webIDRE      = regexp.MustCompile(`name="id" value="(\d+)"`)
	webVersionRE = regexp.MustCompile(`name="version" value="([0-9a-f]+)"`)
	webCSRFRE    = regexp.MustCompile(`name="csrf_token" value="([0-9a-f]+)"`)
)

// saveAndNext times what Ctrl+Enter does in the editor: the save (JSON
// POST) and the next string's partial page, n times along the list of
// all strings (the corpus's German is fully translated), each save
// changing one.
func (b *webClient) saveAndNext(ctx context.Context, editor string, n int) webPoint {
	pt := webPoint{Name: "save and next (POST save + next string's partial page)", Path: editor + "save/"}
	page, err := b.get(ctx, editor, true)
	var s sample
	start := time.Now()
	for i := 0; i < n && err == nil && ctx.Err() == nil; i++ {
		id, version, token := webIDRE.FindSubmatch(page), webVersionRE.FindSubmatch(page), webCSRFRE.FindSubmatch(page)
		if id == nil || version == nil || token == nil {
			err = fmt.Errorf("editor page without a string to save: %.300s", page)
			break
		}
		body, _ := json.Marshal(map[string]any{"id": json.Number(id[1]), "version": string(version[1]),
			"target": []string{"tolk-bench " + string(id[1])}})
		t0 := time.Now()
		var answer []byte
		answer, err = b.do(ctx, "POST", editor+"save/", http.Header{"Content-Type": {"application/json"},
			"X-Csrf-Token": {string(token[1])}}, bytes.NewReader(body))
		if err != nil {
			break
		}
		var saved struct{ Next string }
		if err = json.Unmarshal(answer, &saved); err != nil {
			break
		}
		u, perr := url.Parse(saved.Next)
		if perr != nil {
			err = perr
			break
		}
		if page, err = b.get(ctx, u.RequestURI(), true); err != nil {
			break
		}
		s.lats = append(s.lats, time.Since(t0))
		pt.Bytes = len(page)
	}
	if err != nil {
		s.errors++
		pt.Failure = err.Error()
	}
	s.elapsed = time.Since(start)
	pt.Stats = s.stats()
	return pt
}

func webTable(b *strings.Builder, wr *webResult) {
	w := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	w("Pages of issue 16 for the translation %s, signed in with a session cookie as a browser is, one request at a time "+
		"(a translator's view), through the real API on 127.0.0.1, Go client in the same process; latency is send to "+
		"last body byte, the browser's own rendering aside. Target: every page under %s.\n\n", wr.Translation, fmtDur(webTarget))
	w("| page | path | bytes | requests | p50 | p99 | under target |\n|---|---|---:|---:|---:|---:|---|\n")
	for _, p := range wr.Points {
		if p.Failure != "" {
			w("| %s | `%s` | | %d | error: %s | | |\n", p.Name, p.Path, p.Stats.Requests, strings.NewReplacer("|", "/", "\n", " ").Replace(p.Failure))
			continue
		}
		ok := "yes"
		if p.Stats.P99 >= webTarget {
			ok = "**no**"
		}
		w("| %s | `%s` | %s | %d | %s | %s | %s |\n", p.Name, p.Path, fmtInt(p.Bytes), p.Stats.Requests,
			fmtDur(p.Stats.P50), fmtDur(p.Stats.P99), ok)
	}
	w("\n")
}
