package vcs

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
)

// mustExport serves r's checkout read-only under /git/demo/app/ and
// returns the clone URL.
func mustExport(tb testing.TB, r *Repo) string {
	tb.Helper()
	srv := httptest.NewServer(&Export{Dir: r.Dir(), Lock: &sync.Mutex{}})
	tb.Cleanup(srv.Close)
	return srv.URL + "/git/demo/app/"
}

func TestExportGitCLI(t *testing.T) {
	t.Parallel()
	r := mustClone(t, mustBareRepo(t, sampleFiles))
	url := mustExport(t, r)

	dst := filepath.Join(t.TempDir(), "clone")
	mustGit(t, "/", "clone", "--quiet", url, dst)
	if got, want := mustGit(t, dst, "rev-parse", "HEAD"), mustHead(t, r); got != want {
		t.Errorf("clone HEAD = %s, want %s", got, want)
	}
	if got := mustGit(t, dst, "symbolic-ref", "HEAD"); got != "refs/heads/main" {
		t.Errorf("clone checked out %s, want refs/heads/main", got)
	}
	for p, content := range sampleFiles {
		b, err := os.ReadFile(filepath.Join(dst, filepath.FromSlash(p)))
		if err != nil || string(b) != content {
			t.Errorf("%s = %q, %v; want %q", p, b, err, content)
		}
	}
	// The checkout's remote-tracking branch is not part of the export.
	if refs := mustGit(t, dst, "ls-remote", url); strings.Contains(refs, "refs/remotes/") {
		t.Errorf("ls-remote shows remote-tracking refs:\n%s", refs)
	}

	// A fetch negotiates: the clone has the old HEAD in common.
	next := mustCommit(t, r, map[string]string{"locales/de.json": `{"hello": "Moin"}`})
	mustGit(t, dst, "fetch", "--quiet", "origin")
	if got := mustGit(t, dst, "rev-parse", "origin/main"); got != next {
		t.Errorf("origin/main after fetch = %s, want %s", got, next)
	}
	mustGit(t, dst, "merge", "--quiet", "--ff-only", "origin/main")
	if got := mustGit(t, dst, "show", "HEAD:locales/de.json"); got != `{"hello": "Moin"}` {
		t.Errorf("de.json after fetch = %q", got)
	}
	mustGit(t, dst, "fsck", "--no-progress")

	// Pushing is refused.
	writeFiles(t, dst, map[string]string{"locales/fr.json": "{}"})
	mustGit(t, dst, "add", "-A")
	mustGit(t, dst, "commit", "--quiet", "-m", "Sneaky")
	cmd := exec.Command("git", "push", "origin", "main")
	cmd.Dir = dst
	cmd.Env = append(os.Environ(), gitEnv...)
	if out, err := cmd.CombinedOutput(); err == nil {
		t.Errorf("git push succeeded:\n%s", out)
	}
	if got := mustHead(t, r); got != next {
		t.Errorf("checkout HEAD = %s after push, want %s", got, next)
	}
}

func TestExportGoGit(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r := mustClone(t, mustBareRepo(t, sampleFiles))
	url := mustExport(t, r)

	dst := filepath.Join(t.TempDir(), "clone")
	repo, err := git.PlainCloneContext(ctx, dst, false, &git.CloneOptions{URL: url})
	if err != nil {
		t.Fatalf("go-git clone: %v", err)
	}
	head, err := repo.Head()
	if err != nil {
		t.Fatal(err)
	}
	if head.Name() != plumbing.NewBranchReferenceName("main") || head.Hash().String() != mustHead(t, r) {
		t.Errorf("clone HEAD = %s %s, want refs/heads/main %s", head.Name(), head.Hash(), mustHead(t, r))
	}
	for p, content := range sampleFiles {
		b, err := os.ReadFile(filepath.Join(dst, filepath.FromSlash(p)))
		if err != nil || string(b) != content {
			t.Errorf("%s = %q, %v; want %q", p, b, err, content)
		}
	}

	// go-git sends its haves with "done" in one request.
	next := mustCommit(t, r, map[string]string{"locales/de.json": "{}"})
	if err := repo.FetchContext(ctx, &git.FetchOptions{}); err != nil {
		t.Fatalf("go-git fetch: %v", err)
	}
	ref, err := repo.Reference(plumbing.NewRemoteReferenceName("origin", "main"), true)
	if err != nil || ref.Hash().String() != next {
		t.Errorf("origin/main after fetch = %v, %v; want %s", ref, err, next)
	}
}

func TestExportRefusals(t *testing.T) {
	t.Parallel()
	r := mustClone(t, mustBareRepo(t, sampleFiles))
	url := mustExport(t, r)
	tests := []struct {
		name, method, path, body string
		status                   int
	}{
		{"receive-pack advertisement", "GET", "info/refs?service=git-receive-pack", "", http.StatusForbidden},
		{"receive-pack", "POST", "git-receive-pack", "0000", http.StatusForbidden},
		{"dumb protocol", "GET", "info/refs", "", http.StatusForbidden},
		{"upload-pack by GET", "GET", "git-upload-pack", "", http.StatusMethodNotAllowed},
		{"other path", "GET", "objects/info/packs", "", http.StatusNotFound},
		{"garbage request", "POST", "git-upload-pack", "hello", http.StatusBadRequest},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequest(tc.method, url+tc.path, strings.NewReader(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tc.status {
				t.Errorf("%s %s = %d, want %d", tc.method, tc.path, resp.StatusCode, tc.status)
			}
		})
	}

	t.Run("inflating body", func(t *testing.T) {
		// 11 MiB of haves after a want, gzipped to a few kilobytes: the
		// inflated request is bounded like a plain one, not read whole.
		head, err := r.Head()
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		io.WriteString(zw, pkt("want "+head+" ofs-delta\n")+"0000")
		have := pkt("have " + head + "\n")
		for n := 0; n < 11<<20; n += len(have) {
			io.WriteString(zw, have)
		}
		zw.Close()
		req, err := http.NewRequest("POST", url+"git-upload-pack", &buf)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Encoding", "gzip")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("status %d, want 400", resp.StatusCode)
		}
	})

	t.Run("unadvertised want", func(t *testing.T) {
		// The blob of en.json exists but is no tip.
		blob, err := r.BlobHash("locales/en.json")
		if err != nil {
			t.Fatal(err)
		}
		body := pkt("want "+blob+" ofs-delta\n") + "0000" + pkt("done\n")
		resp, err := http.Post(url+"git-upload-pack", "application/x-git-upload-pack-request", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if !strings.Contains(string(b), "ERR upload-pack: not our ref "+blob) {
			t.Errorf("response = %q, want an ERR line", b)
		}
	})
}

// pkt frames s as one pkt-line.
func pkt(s string) string {
	const hex = "0123456789abcdef"
	n := len(s) + 4
	return string([]byte{hex[n>>12&15], hex[n>>8&15], hex[n>>4&15], hex[n&15]}) + s
}
