package main

import (
	"archive/zip"
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tolk-project/tolk/index/indextest"
)

// tolkProcess is `tolk serve` running as its own process, as an operator
// starts it.
type tolkProcess struct {
	base  string // http://127.0.0.1:PORT
	token string // the demo administrator's token, printed on the first start
	data  string
	// kill ends the process at once (SIGKILL), as a crash would, and
	// waits for it; calling it again does nothing.
	kill func()
	// process is the running process; exited is closed once it has
	// exited.
	process *os.Process
	exited  chan struct{}
	// log is what the process wrote to stderr so far.
	log *logBuffer
	// signIn is the line of the demo's one-time sign-in link, printed
	// on every start.
	signIn string
}

// logBuffer is a bytes.Buffer a process writes while a test reads it.
type logBuffer struct {
	mu  sync.Mutex // guards buf
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// startTolk builds the tolk binary and starts `tolk serve --demo` on a
// free port with its data in a temporary directory; it is killed when the
// test ends.
func startTolk(t *testing.T, extra ...string) *tolkProcess {
	t.Helper()
	p := runTolk(t, buildTolk(t), t.TempDir(), append([]string{"--demo"}, extra...)...)
	if p.token == "" {
		t.Fatal("tolk serve --demo printed no administrator token")
	}
	return p
}

// buildTolk returns the tolk binary, built once per process (ten tests
// each built their own: a link of some 5-20 s a test under load) into a
// directory removed when the tests end. Nothing may change the binary.
// It records the checkout's revision when there is one (cliRevision).
func buildTolk(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		dir, err := os.MkdirTemp("", "tolk-bin-")
		if err != nil {
			built.err = err
			return
		}
		indextest.AtExit(func() { os.RemoveAll(dir) })
		built.bin = filepath.Join(dir, "tolk")
		args := []string{"build", "-o", built.bin}
		if rev := cliRevision(); rev != "" {
			// A worktree's build records no revision (go looks for a
			// .git directory), so it is given as the Dockerfile gives it.
			args = append(args, "-ldflags", "-X main.revision="+rev)
		}
		if out, err := exec.Command("go", append(args, ".")...).CombinedOutput(); err != nil {
			built.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.bin
}

// built is the binary buildTolk built, or why it could not.
var built struct {
	once sync.Once
	bin  string
	err  error
}

// cliRevision is the checkout's revision (git rev-parse HEAD), or ""
// outside a git checkout.
func cliRevision() string {
	head, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(head))
}

// runTolk starts `tolk serve` from bin on a free port with its data in
// data, and waits until its start-up import has ended (/readyz); it is
// killed when the test ends.
func runTolk(t *testing.T, bin, data string, args ...string) *tolkProcess {
	t.Helper()
	p := spawnTolk(t, bin, data, args...)
	deadline := time.Now().Add(60 * time.Second)
	for {
		res, err := http.Get(p.base + "/readyz")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return p
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("tolk serve not ready in 60 s: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// spawnTolk is runTolk without waiting for the import: it returns once
// the server listens.
func spawnTolk(t *testing.T, bin, data string, args ...string) *tolkProcess {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, withDB(t, append([]string{"serve", "--listen", "127.0.0.1:0", "--data", data}, args...)...)...)
	stderr := &logBuffer{}
	cmd.Stderr = stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &tolkProcess{data: data, process: cmd.Process, exited: make(chan struct{}), log: stderr}
	go func() {
		cmd.Wait()
		close(p.exited)
	}()
	p.kill = func() {
		cancel()
		<-p.exited
	}
	t.Cleanup(func() {
		p.kill()
		if t.Failed() {
			t.Logf("tolk serve log:\n%s", stderr.String())
		}
	})
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	serving := regexp.MustCompile(`^tolk serving on (http://[^/]+)/api/$`)
	timeout := time.After(60 * time.Second)
	for p.base == "" {
		select {
		case line, ok := <-lines:
			if !ok {
				t.Fatalf("tolk serve exited before serving:\n%s", stderr.String())
			}
			if tok := tokenRE.FindString(line); tok != "" {
				p.token = tok
			}
			if strings.Contains(line, "/accounts/login/link/?key=") {
				p.signIn = line
			}
			if m := serving.FindStringSubmatch(line); m != nil {
				p.base = m[1]
			}
		case <-timeout:
			t.Fatalf("tolk serve did not start in 60 s:\n%s", stderr.String())
		}
	}
	go func() {
		for range lines {
		}
	}()
	return p
}

// wlcRun runs Debian's wlc against p with the given key and returns its
// combined output and exit code.
func wlcRun(t *testing.T, p *tolkProcess, key string, args ...string) (string, int) {
	t.Helper()
	home := t.TempDir() // no user configuration leaks in
	full := append([]string{"--url", p.base + "/api/", "--key", key}, args...)
	cmd := exec.Command("wlc", full...)
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+home)
	cmd.Dir = home
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("wlc %s: %v", strings.Join(args, " "), err)
	}
	return string(out), code
}

// needWLC skips the test where the reference's client is not installed,
// except in CI, whose .ci/run installs it.
func needWLC(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("wlc"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("wlc is not installed; .ci/run installs Debian's wlc")
		}
		t.Skip("wlc is not installed (apt-get install wlc)")
	}
}

// TestWLC drives the reference's own command-line client (Debian's wlc
// 1.13) against a running tolk serve on the demo (four languages, nested
// JSON, a TBX glossary), asserting on what wlc prints.
func TestWLC(t *testing.T) {
	needWLC(t)
	p := startTolk(t)
	demoDE, err := os.ReadFile("../../testdata/demo/app/locales/de.json")
	if err != nil {
		t.Fatal(err)
	}

	// The German file with one more string translated and a key the
	// template lacks, and a file that does not parse.
	upload := filepath.Join(t.TempDir(), "de.json")
	if err := os.WriteFile(upload, []byte(`{
    "app.title": "Tolk-Demo",
    "greeting": "Hallo, {name}!",
    "menu": {
        "file": "Datei",
        "edit": "Bearbeiten",
        "view": "Ansicht"
    },
    "nope": "x"
}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	replace := filepath.Join(t.TempDir(), "replace.json")
	if err := os.WriteFile(replace, []byte(`{"greeting": "Servus, {name}!"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	malformed := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(malformed, []byte("{\n  \"greeting\": \n"), 0o644); err != nil {
		t.Fatal(err)
	}

	type step struct {
		args     []string
		key      string // "" uses the administrator's token
		wantCode int
		want     []string // substrings of the output
		reject   []string // must not appear
		// before, when set, runs first: a setting wlc 1.13 cannot change
		// (it has no command to edit projects or components), made
		// through the API as a script would.
		before func()
	}
	patch := func(path, body string) func() {
		return func() {
			req, _ := http.NewRequest("PATCH", p.base+path, strings.NewReader(body))
			req.Header.Set("Authorization", "Token "+p.token)
			req.Header.Set("Content-Type", "application/json")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			out, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("PATCH %s %s: %d %s", path, body, resp.StatusCode, out)
			}
		}
	}
	wantStat := func(path, field string, want float64) func() {
		return func() {
			req, _ := http.NewRequest("GET", p.base+path, nil)
			req.Header.Set("Authorization", "Token "+p.token)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var body map[string]any
			if err := json.NewDecoder(resp.Body).Decode(&body); err != nil || body[field] != want {
				t.Errorf("GET %s: %s = %v (%v), want %v", path, field, body[field], err, want)
			}
		}
	}
	steps := []step{
		{args: []string{"list-projects"}, want: []string{"slug: demo", "url: " + p.base + "/api/projects/demo/"}},
		{args: []string{"list-components"}, want: []string{"slug: app", "slug: glossary", "file_format: tbx", "filemask: locales/*.json"}},
		{args: []string{"list-languages"}, want: []string{"code: de", "code: pt_BR", "name: German"}},
		{args: []string{"list-translations"}, want: []string{"language_code: fr", "filename: locales/pt_BR.json", "is_template: True"}},
		{args: []string{"ls", "demo"}, want: []string{"slug: app", "slug: glossary"}},
		{args: []string{"ls", "demo/app"}, want: []string{"language_code: de", "language_code: fr"}},
		{args: []string{"show", "demo/app/de"}, want: []string{"filename: locales/de.json", "total: 10", "translated: 4"}},
		{args: []string{"show", "demo/glossary/de"}, want: []string{"filename: de.tbx"}},
		{args: []string{"stats", "demo/app/de"}, want: []string{"translated: 4", "total: 10", "translated_percent: 40.0"}},
		{args: []string{"stats", "demo/app"}, want: []string{"code: pt_BR", "translated: 2"}},
		{args: []string{"changes", "demo/app/de"}, want: []string{"action_name: Resource update", "translation: de"}},
		{args: []string{"download", "demo/app/de"}, want: []string{string(demoDE)}},
		{args: []string{"repo", "demo/app"}, want: []string{"needs_commit: False", "needs_merge: False", "url: " + p.base + "/api/components/demo/app/repository/"}},
		{args: []string{"lock-status", "demo/app"}, want: []string{"locked: False"}},
		// Uploads, method by method: wlc prints nothing on success, so
		// the statistics and the download show what happened.
		// method=suggest first (reference workspace §2.4: wlc's only way
		// to suggest): "view", untranslated, becomes a suggestion; the
		// strings the file repeats are skipped, "nope" is not found.
		{args: []string{"upload", "demo/app/de", "-i", upload, "--method", "suggest"}},
		{before: wantStat("/api/translations/demo/app/de/", "have_suggestion", 1),
			args: []string{"show", "demo/app/de"}, want: []string{"have_suggestion: 1", "translated: 4"}},
		{args: []string{"changes", "demo/app/de"}, want: []string{"action_name: Suggestion added"}},
		{args: []string{"upload", "demo/app/de", "-i", upload, "--method", "suggest"}, wantCode: 0},
		{before: wantStat("/api/translations/demo/app/de/statistics/", "suggestions", 1),
			args: []string{"upload", "demo/app/de", "-i", upload}},
		{args: []string{"stats", "demo/app/de"}, want: []string{"translated: 5", "translated_percent: 50.0"}},
		{args: []string{"download", "demo/app/de"}, want: []string{`"view": "Ansicht"`, `"greeting": "Hallo, {name}!"`},
			reject: []string{"nope"}},
		{args: []string{"repo", "demo/app"}, want: []string{"needs_commit: True"}},
		{args: []string{"repo", "demo"}, want: []string{"needs_commit: True"}},
		{args: []string{"repo", "demo/glossary"}, want: []string{"needs_commit: False"}},
		{args: []string{"upload", "demo/app/de", "-i", upload, "--method", "fuzzy"}},
		{args: []string{"stats", "demo/app/de"}, want: []string{"translated: 5", "fuzzy: 0"}}, // nothing overwritten
		{args: []string{"upload", "demo/app/de", "-i", upload, "--method", "fuzzy", "--overwrite"}},
		{args: []string{"stats", "demo/app/de"}, want: []string{"translated: 0", "fuzzy: 5"}},
		{args: []string{"upload", "demo/app/de", "-i", upload, "--method", "approve"}, wantCode: 1,
			want: []string{"HTTP error 400", "This method is not available here. Translation reviews are turned off."}},
		{args: []string{"upload", "demo/app/en", "-i", upload, "--method", "add"}, wantCode: 1,
			want: []string{"HTTP error 400", "Adding strings is disabled in the component configuration."}},
		// With reviews on, approve works; with strings managed on the
		// template, add does.
		{before: patch("/api/projects/demo/", `{"translation_review": true}`),
			args: []string{"upload", "demo/app/de", "-i", upload, "--method", "approve", "--overwrite"}},
		// wlc 1.13 prints no approved count; the API has it.
		{before: wantStat("/api/translations/demo/app/de/statistics/", "approved", 5),
			args: []string{"stats", "demo/app/de"}, want: []string{"translated: 5", "fuzzy: 0"}},
		{before: patch("/api/components/demo/app/", `{"manage_units": true, "edit_template": true}`),
			args: []string{"upload", "demo/app/en", "-i", upload, "--method", "add"}},
		{before: wantStat("/api/translations/demo/app/de/statistics/", "approved", 5),
			args: []string{"stats", "demo/app/de"}, want: []string{"total: 11", "translated: 5"}},
		{args: []string{"download", "demo/app/en"}, want: []string{`"nope": "x"`}},
		{args: []string{"upload", "demo/app/de", "-i", malformed}, wantCode: 1,
			want: []string{"HTTP error 400", "Could not parse uploaded file: line 3, column 1"}},
		{args: []string{"changes", "demo/app/de"}, want: []string{"action_name: File uploaded", "action_name: Translation uploaded",
			"action_name: New contributor"}},
		// A locked component refuses edits until it is unlocked; both are
		// changes.
		{args: []string{"lock", "demo/app"}},
		{args: []string{"lock-status", "demo/app"}, want: []string{"locked: True"}},
		{args: []string{"upload", "demo/app/de", "-i", upload, "--overwrite"}, wantCode: 1,
			want: []string{"You don't have permission to access this object."}},
		{args: []string{"unlock", "demo/app"}},
		{args: []string{"lock-status", "demo/app"}, want: []string{"locked: False"}},
		// Approved strings stay (they need replace-approved); "nope", added
		// to the template above, is translated now.
		{args: []string{"upload", "demo/app/de", "-i", upload, "--overwrite"}},
		{args: []string{"stats", "demo/app/de"}, want: []string{"translated: 6", "total: 11", "fuzzy: 0"}},
		{args: []string{"changes", "demo/app"}, want: []string{"action_name: Component locked", "action_name: Component unlocked"}},
		// A replace leaves the translation holding what the file holds.
		{args: []string{"upload", "demo/app/de", "-i", replace, "--method", "replace"}},
		{args: []string{"stats", "demo/app/de"}, want: []string{"translated: 1", "total: 11"}},
		{args: []string{"download", "demo/app/de"}, want: []string{`"greeting": "Servus, {name}!"`, `"file": ""`}},
		// Deleting a translation.
		{args: []string{"delete", "demo/app/pt_BR"}},
		{args: []string{"ls", "demo/app"}, want: []string{"language_code: fr"}, reject: []string{"language_code: pt_BR"}},
		{args: []string{"changes", "demo/app"}, want: []string{"action_name: Translation removed"}},
		// Strings: a template string goes from every language (the
		// component manages its strings since above); a German one alone
		// cannot, even for a superuser, as in the reference.
		{args: []string{"show", "3"}, want: []string{"context: farewell", "translation: en"}},
		{args: []string{"delete", "3"}},
		{args: []string{"stats", "demo/app/de"}, want: []string{"total: 10"}},
		{args: []string{"show", "15"}, want: []string{"context: menu.file", "translation: de"}},
		{args: []string{"delete", "15"}, wantCode: 1, want: []string{"You don't have permission to access this object."}},
		{args: []string{"lock", "demo/app"}, key: "wlu_" + strings.Repeat("Z", 36), wantCode: 1,
			want: []string{"was rejected by server"}},
		{args: []string{"lock-status", "demo/app"}, want: []string{"locked: False"}},
		// Commit and push write the edits above to the demo's repository
		// (checked with git below); a pull with nothing new succeeds.
		{args: []string{"commit", "demo/app"}},
		{args: []string{"repo", "demo/app"}, want: []string{"needs_commit: False", "needs_push: True"}},
		{args: []string{"push", "demo"}},
		{args: []string{"pull", "demo/app"}},
		// Cleanup runs at project, component and translation level.
		{args: []string{"cleanup", "demo"}},
		{args: []string{"cleanup", "demo/app"}},
		{args: []string{"cleanup", "demo/app/de"}},
		{args: []string{"changes", "demo/app"}, want: []string{"action_name: Repository cleanup"}},
		// A token the server does not know is reported as rejected.
		{args: []string{"list-projects"}, key: "wlu_" + strings.Repeat("Z", 36), wantCode: 1,
			want: []string{"API key configured for " + p.base + "/api/ was rejected by server."}, reject: []string{"slug: demo"}},
		{args: []string{"show", "demo/app/de"}, key: "not-a-token", wantCode: 1, want: []string{"was rejected by server"}},
	}
	for _, st := range steps {
		if st.before != nil {
			st.before()
		}
		name := strings.Join(st.args, " ")
		key := st.key
		if key == "" {
			key = p.token
		}
		out, code := wlcRun(t, p, key, st.args...)
		if code != st.wantCode {
			t.Errorf("wlc %s: exit %d, want %d\n%s", name, code, st.wantCode, out)
			continue
		}
		for _, w := range st.want {
			if !strings.Contains(out, w) {
				t.Errorf("wlc %s: output lacks %q:\n%s", name, w, out)
			}
		}
		for _, r := range st.reject {
			if strings.Contains(out, r) {
				t.Errorf("wlc %s: output has %q:\n%s", name, r, out)
			}
		}
	}

	// The demo's bare repository holds the commits: pt_BR's file deleted,
	// the edits committed and the deleted string gone, by Tolk as
	// committer.
	bare := filepath.Join(p.data, "demo", "app.git")
	gitLog, err := exec.Command("git", "-C", bare, "log", "--format=%cn | %s", "main").CombinedOutput()
	if err != nil {
		t.Fatalf("git log: %v\n%s", err, gitLog)
	}
	if got := string(gitLog); !strings.Contains(got, "Tolk | Deleted translation using Tolk (Portuguese (Brazil))") ||
		!strings.Contains(got, "Tolk | Translated using Tolk (German)") {
		t.Errorf("demo repository log:\n%s\nwant the deletion of pt_BR and the German edits", got)
	}
	if out, err := exec.Command("git", "-C", bare, "cat-file", "-e", "main:locales/pt_BR.json").CombinedOutput(); err == nil {
		t.Errorf("pt_BR.json still at main: %s", out)
	}
	if en, err := exec.Command("git", "-C", bare, "show", "main:locales/en.json").CombinedOutput(); err != nil ||
		strings.Contains(string(en), `"farewell"`) {
		t.Errorf("en.json at main (%v):\n%s\nwant farewell removed", err, en)
	}

	// A component download is a zip of every translation file.
	dir := t.TempDir()
	if out, code := wlcRun(t, p, p.token, "download", "demo/app", "-o", dir); code != 0 {
		t.Fatalf("wlc download demo/app: exit %d\n%s", code, out)
	}
	zr, err := zip.OpenReader(filepath.Join(dir, "demo-app.zip"))
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
	}
	// pt_BR was deleted above.
	if got := fmt.Sprint(names); !strings.Contains(got, "locales/de.json") || !strings.Contains(got, "locales/fr.json") ||
		strings.Contains(got, "pt_BR") {
		t.Errorf("component zip holds %v, want de and fr and no pt_BR", names)
	}
}
