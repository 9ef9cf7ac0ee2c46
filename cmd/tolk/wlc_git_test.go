package main

import (
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// gitRun runs the git command line in dir and returns its trimmed
// output; a failure fails the test.
func gitRun(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	// No user or system configuration leaks in; the upstream developer
	// is named on the command line.
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_AUTHOR_NAME=Upstream Dev", "GIT_AUTHOR_EMAIL=dev@example.com",
		"GIT_COMMITTER_NAME=Upstream Dev", "GIT_COMMITTER_EMAIL=dev@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// apiUnit is what the test reads of a unit.
type apiUnit struct {
	ID      int64    `json:"id"`
	Context string   `json:"context"`
	Target  []string `json:"target"`
	Pending bool     `json:"pending"`
}

// TestWLCGitOperations drives wlc's repository commands (commit, push,
// pull, reset, cleanup) against a running tolk serve --demo at
// translation, component and project level, and checks after each with
// the git command line what the demo's upstream repository, Tolk's
// checkout and the Git export hold. wlc 1.13 has no command to edit a
// string, so translators edit through the API, as a script would.
func TestWLCGitOperations(t *testing.T) {
	needWLC(t)
	p := startTolk(t)
	bare := filepath.Join(p.data, "demo", "app.git")
	checkout := filepath.Join(p.data, "repos", "demo", "app")

	// A second translator, so that a commit has two authors.
	mustCLI(t, "user", "add", "anna", "--email", "anna@example.com", "--full-name", "Anna Translator", "--data", p.data)
	mustCLI(t, "user", "grant", "anna", "translator", "--project", "demo", "--data", p.data)
	anna := strings.TrimSpace(mustCLI(t, "token", "create", "anna", "--data", p.data))
	const (
		adminSig = "Demo Administrator <admin@example.com>"
		annaSig  = "Anna Translator <anna@example.com>"
		tolkSig  = "Tolk <noreply@tolk.invalid>"
		subject  = "Translated using Tolk (German)"
	)

	wlc := func(args ...string) string {
		t.Helper()
		out, code := wlcRun(t, p, p.token, args...)
		if code != 0 {
			t.Fatalf("wlc %s: exit %d\n%s", strings.Join(args, " "), code, out)
		}
		return out
	}
	wantRepo := func(path string, want ...string) {
		t.Helper()
		out := wlc("repo", path)
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("wlc repo %s: output lacks %q:\n%s", path, w, out)
			}
		}
	}
	units := func(lang string) map[string]apiUnit {
		t.Helper()
		resp := getAs(t, p.base+"/api/translations/demo/app/"+lang+"/units/?page_size=1000", "Token "+p.token)
		defer resp.Body.Close()
		var page struct {
			Next    *string   `json:"next"`
			Results []apiUnit `json:"results"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&page); err != nil || resp.StatusCode != http.StatusOK || page.Next != nil {
			t.Fatalf("units of %s: %d %v, next %v", lang, resp.StatusCode, err, page.Next)
		}
		out := map[string]apiUnit{}
		for _, u := range page.Results {
			out[u.Context] = u
		}
		return out
	}
	target := func(u apiUnit) string { return strings.Join(u.Target, "|") }
	wantTargets := func(step string, want map[string]string, pending bool) {
		t.Helper()
		got := units("de")
		for key, text := range want {
			if u := got[key]; target(u) != text || u.Pending != pending {
				t.Errorf("%s: de %s = %q pending %v, want %q pending %v", step, key, target(u), u.Pending, text, pending)
			}
		}
	}
	// edit translates German strings (context → text) with key.
	edit := func(key string, texts map[string]string) {
		t.Helper()
		de := units("de")
		for ctx, text := range texts {
			u, ok := de[ctx]
			if !ok {
				t.Fatalf("no German unit %q", ctx)
			}
			code, body := send(t, http.MethodPatch, p.base+"/api/units/"+strconv.FormatInt(u.ID, 10)+"/", key,
				map[string]any{"target": []string{text}, "state": 20})
			if code != http.StatusOK {
				t.Fatalf("PATCH unit %s: %d %v", ctx, code, body)
			}
		}
	}
	upstreamFile := func(path string) string { return gitRun(t, bare, "show", "main:"+path) }
	// newCommits lists "author | committer | subject | files" of the
	// commits in dir from since to rev, oldest first.
	newCommits := func(dir, since, rev string) []string {
		t.Helper()
		out := gitRun(t, dir, "log", "--reverse", "--format=@@%an <%ae> | %cn <%ce> | %s", "--name-only", since+".."+rev)
		var commits []string
		for _, block := range strings.Split(out, "@@")[1:] {
			lines := slices.DeleteFunc(strings.Split(block, "\n"), func(l string) bool { return l == "" })
			commits = append(commits, lines[0]+" | "+strings.Join(lines[1:], ","))
		}
		return commits
	}
	// onlyChanged checks that after differs from before only in the lines
	// holding the given old values (JSON strings), which hold the new ones.
	onlyChanged := func(step, before, after string, changed map[string]string) {
		t.Helper()
		bl, al := strings.Split(before, "\n"), strings.Split(after, "\n")
		if len(bl) != len(al) {
			t.Errorf("%s: de.json went from %d to %d lines:\n%s", step, len(bl), len(al), after)
			return
		}
		seen := 0
		for i, line := range bl {
			want := line
			for old, text := range changed {
				if strings.HasSuffix(strings.TrimSuffix(line, ","), ": "+jsonString(old)) {
					want = strings.Replace(line, ": "+jsonString(old), ": "+jsonString(text), 1)
					seen++
				}
			}
			if al[i] != want {
				t.Errorf("%s: de.json line %d = %q, want %q", step, i+1, al[i], want)
			}
		}
		if seen != len(changed) {
			t.Errorf("%s: %d of the edited lines found in\n%s", step, seen, before)
		}
	}

	// 1 and 2. At each level: two translators edit, wlc commits (Tolk's
	// checkout has one commit per author, upstream nothing yet), wlc
	// pushes (upstream has exactly those commits, and only the edited
	// lines changed).
	rounds := []struct {
		level       string
		admin, anna map[string]string
	}{
		{"demo/app/de", map[string]string{"greeting": "Hallo du, {name}!"}, map[string]string{"app.title": "Tolk Demo 1"}},
		{"demo/app", map[string]string{"menu.file": "Datei 2"}, map[string]string{"menu.edit": "Bearbeiten 2"}},
		{"demo", map[string]string{"app.title": "Tolk Demo 3"}, map[string]string{"greeting": "Servus, {name}!"}},
	}
	for _, r := range rounds {
		step := "round " + r.level
		upHead := gitRun(t, bare, "rev-parse", "main")
		before := upstreamFile("locales/de.json")
		old := map[string]string{}
		for ctx, u := range units("de") {
			old[ctx] = target(u)
		}
		edit(p.token, r.admin)
		edit(anna, r.anna)
		wantRepo(r.level, "needs_commit: True")
		if r.level == "demo/app/de" {
			// As in the reference, a translation with nothing pending
			// commits nothing, and says so.
			out, code := wlcRun(t, p, p.token, "commit", "demo/app/fr")
			if code != 1 || !strings.Contains(out, "There are no pending changes to commit in this translation.") {
				t.Errorf("wlc commit demo/app/fr with nothing pending there: exit %d\n%s", code, out)
			}
		}
		wlc("commit", r.level)
		wantRepo("demo/app", "needs_commit: False", "needs_push: True")
		if got := gitRun(t, bare, "rev-parse", "main"); got != upHead {
			t.Errorf("%s: commit moved upstream main to %s", step, got)
		}
		want := []string{
			adminSig + " | " + tolkSig + " | " + subject + " | locales/de.json",
			annaSig + " | " + tolkSig + " | " + subject + " | locales/de.json",
		}
		slices.Sort(want)
		got := newCommits(checkout, upHead, "HEAD")
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("%s: Tolk's checkout has the commits\n%s\nwant\n%s", step, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		if body := gitRun(t, checkout, "log", "-1", "--format=%b"); !strings.Contains(body, "Translation: Demo/App\nTranslate-URL: "+p.base+"/projects/demo/app/de/") {
			t.Errorf("%s: commit message body:\n%s", step, body)
		}
		committed := gitRun(t, checkout, "rev-parse", "HEAD")

		wlc("push", r.level)
		wantRepo("demo/app", "needs_commit: False", "needs_push: False")
		if got := gitRun(t, bare, "rev-parse", "main"); got != committed {
			t.Errorf("%s: upstream main is %s after the push, want Tolk's %s", step, got, committed)
		}
		got = newCommits(bare, upHead, "main")
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("%s: upstream has the commits\n%s\nwant\n%s", step, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		changed := map[string]string{}
		for _, texts := range []map[string]string{r.admin, r.anna} {
			for ctx, text := range texts {
				changed[old[ctx]] = text
			}
		}
		onlyChanged(step, before, upstreamFile("locales/de.json"), changed)
	}

	// 3. Upstream moves: a developer changes a German string and adds a
	// string to the template and the German file, while anna's edit of
	// another string waits. The pull shows both; anna's edit is committed
	// on top of upstream's commit.
	up := filepath.Join(t.TempDir(), "up")
	gitRun(t, ".", "clone", "-q", bare, up)
	rewrite := func(path string, pairs ...string) {
		t.Helper()
		file := filepath.Join(up, path)
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		s := string(data)
		for i := 0; i < len(pairs); i += 2 {
			if !strings.Contains(s, pairs[i]) {
				t.Fatalf("%s lacks %q:\n%s", path, pairs[i], s)
			}
			s = strings.Replace(s, pairs[i], pairs[i+1], 1)
		}
		if err := os.WriteFile(file, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// upstreamCommit brings the developer's clone up to date, lets change
	// edit it and commits and pushes what it did.
	upstreamCommit := func(msg string, change func()) string {
		t.Helper()
		gitRun(t, up, "pull", "-q", "--ff-only", "origin", "main")
		change()
		gitRun(t, up, "commit", "-q", "-a", "-m", msg)
		gitRun(t, up, "push", "-q", "origin", "HEAD:main")
		return gitRun(t, up, "rev-parse", "HEAD")
	}
	edit(anna, map[string]string{"greeting": "Grüß dich, {name}!"})
	upHead := upstreamCommit("Add close, retitle", func() {
		rewrite("locales/en.json", `"menu": {`, "\"menu\": {\n        \"close\": \"Close\",")
		rewrite("locales/de.json", `"menu": {`, "\"menu\": {\n        \"close\": \"Schliessen\",",
			`"app.title": "Tolk Demo 3"`, `"app.title": "Tolk-Demo \u00fcber \"upstream\""`)
	})
	before := upstreamFile("locales/de.json")
	wlc("pull", "demo/app")
	if out := wlc("show", "demo/app/de"); !strings.Contains(out, "total: 11") {
		t.Errorf("wlc show demo/app/de after the pull, want 11 strings:\n%s", out)
	}
	// The pull commits anna's edit on top of upstream's commit.
	wantTargets("after the pull", map[string]string{"menu.close": "Schliessen", "app.title": "Tolk-Demo über \"upstream\"",
		"greeting": "Grüß dich, {name}!"}, false)
	wantRepo("demo/app", "needs_commit: False", "needs_merge: False", "needs_push: True")
	if u := units("en")["menu.close"]; target(u) != "Close" {
		t.Errorf("after the pull: en menu.close = %q, want Close", target(u))
	}
	wlc("push", "demo/app")
	got := newCommits(bare, upHead, "main")
	if want := annaSig + " | " + tolkSig + " | " + subject + " | locales/de.json"; !slices.Equal(got, []string{want}) {
		t.Errorf("after pull and push: upstream has the commits\n%s\nwant anna's one", strings.Join(got, "\n"))
	}
	if parent := gitRun(t, bare, "rev-parse", "main^"); parent != upHead {
		t.Errorf("anna's commit has parent %s, want upstream's %s", parent, upHead)
	}
	onlyChanged("after pull and push", before, upstreamFile("locales/de.json"),
		map[string]string{"Servus, {name}!": "Grüß dich, {name}!"})

	// 4. A conflict, pulled at translation level: upstream changes the
	// string anna is editing. Anna's text stays and reaches upstream;
	// upstream's is in the history.
	edit(anna, map[string]string{"menu.edit": "Bearbeiten (Anna)"})
	upHead = upstreamCommit("Change edit", func() {
		rewrite("locales/de.json", `"edit": "Bearbeiten 2"`, `"edit": "Aendern (upstream)"`)
	})
	before = upstreamFile("locales/de.json")
	wlc("pull", "demo/app/de")
	wantTargets("after the conflicting pull", map[string]string{"menu.edit": "Bearbeiten (Anna)"}, false)
	wantRepo("demo/app", "needs_commit: False", "needs_merge: False", "needs_push: True")
	if out := wlc("changes", "demo/app"); !strings.Contains(out, "Aendern (upstream)") {
		t.Errorf("wlc changes demo/app lacks upstream's text:\n%s", out)
	}
	wlc("push", "demo/app")
	onlyChanged("after the conflict's push", before, upstreamFile("locales/de.json"),
		map[string]string{"Aendern (upstream)": "Bearbeiten (Anna)"})
	if got := newCommits(bare, upHead, "main"); len(got) != 1 || !strings.HasPrefix(got[0], annaSig) {
		t.Errorf("after the conflict's push upstream has\n%s\nwant anna's one commit", strings.Join(got, "\n"))
	}

	// A pull at project level: upstream removes the string it added.
	upHead = upstreamCommit("Remove close", func() {
		rewrite("locales/en.json", "\n        \"close\": \"Close\",", "")
		rewrite("locales/de.json", "\n        \"close\": \"Schliessen\",", "")
	})
	wlc("pull", "demo")
	if _, ok := units("de")["menu.close"]; ok {
		t.Error("after the project pull: de still has menu.close")
	}
	if out := wlc("show", "demo/app/de"); !strings.Contains(out, "total: 10") {
		t.Errorf("wlc show demo/app/de after the removal, want 10 strings:\n%s", out)
	}
	wantRepo("demo/app", "needs_commit: False", "needs_merge: False", "needs_push: False")
	if got := gitRun(t, checkout, "rev-parse", "HEAD"); got != upHead {
		t.Errorf("after the project pull Tolk's checkout is at %s, want upstream's %s", got, upHead)
	}

	// A push upstream rejects, at translation level: upstream moved
	// since Tolk last looked, so the push pulls, puts the commit on top
	// and pushes again.
	edit(p.token, map[string]string{"greeting": "Hallo Admin, {name}!"})
	wlc("commit", "demo/app/de")
	upHead = upstreamCommit("Change file", func() {
		rewrite("locales/de.json", `"file": "Datei 2"`, `"file": "Datei (upstream)"`)
	})
	before = upstreamFile("locales/de.json")
	wlc("push", "demo/app/de")
	wantRepo("demo/app", "needs_commit: False", "needs_merge: False", "needs_push: False")
	if got, want := newCommits(bare, upHead, "main"), adminSig+" | "+tolkSig+" | "+subject+" | locales/de.json"; !slices.Equal(got, []string{want}) {
		t.Errorf("after the rejected push upstream has\n%s\nwant the administrator's one commit", strings.Join(got, "\n"))
	}
	if parent := gitRun(t, bare, "rev-parse", "main^"); parent != upHead {
		t.Errorf("the re-pushed commit has parent %s, want upstream's %s", parent, upHead)
	}
	onlyChanged("after the rejected push", before, upstreamFile("locales/de.json"),
		map[string]string{"Grüß dich, {name}!": "Hallo Admin, {name}!"})
	wantTargets("after the rejected push", map[string]string{"menu.file": "Datei (upstream)"}, false)

	// 5. Reset, at each level, drops an unpushed commit and a pending
	// edit: the API shows upstream's texts again, nothing is left to
	// commit or push, upstream is untouched.
	upHead = gitRun(t, bare, "rev-parse", "main")
	upTargets := map[string]string{}
	for ctx, u := range units("de") {
		upTargets[ctx] = target(u)
	}
	for _, level := range []string{"demo/app/de", "demo/app", "demo"} {
		edit(p.token, map[string]string{"app.title": "Reset me 1"})
		wlc("commit", "demo/app")
		edit(p.token, map[string]string{"greeting": "Reset me 2"})
		wantRepo("demo/app", "needs_commit: True", "needs_push: True")
		wlc("reset", level)
		wantRepo("demo/app", "needs_commit: False", "needs_push: False")
		wantTargets("after wlc reset "+level, map[string]string{"app.title": upTargets["app.title"], "greeting": upTargets["greeting"]}, false)
		if got := gitRun(t, bare, "rev-parse", "main"); got != upHead {
			t.Errorf("wlc reset %s moved upstream main to %s", level, got)
		}
		if got := gitRun(t, checkout, "rev-parse", "HEAD"); got != upHead {
			t.Errorf("after wlc reset %s Tolk's checkout is at %s, want upstream's %s", level, got, upHead)
		}
	}

	// 6. Cleanup at the three levels; it removes what git does not track.
	for _, level := range []string{"demo/app/de", "demo/app", "demo"} {
		stray := filepath.Join(checkout, "stray.txt")
		if err := os.WriteFile(stray, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		wlc("cleanup", level)
		if _, err := os.Stat(stray); !os.IsNotExist(err) {
			t.Errorf("wlc cleanup %s left an untracked file (%v)", level, err)
		}
	}

	// Every operation is in the component's history.
	history := wlc("changes", "demo/app")
	for _, action := range []string{"Committed changes", "Changes pushed", "Repository rebased", "Repository reset", "Repository cleanup"} {
		if !strings.Contains(history, "action_name: "+action+"\n") {
			t.Errorf("wlc changes demo/app lacks %q", action)
		}
	}

	// 7. The Git export serves Tolk's checkout: a clone after a commit
	// has it at HEAD, before any push.
	edit(p.token, map[string]string{"greeting": "Exportiert, {name}!"})
	wlc("commit", "demo/app")
	head := gitRun(t, checkout, "rev-parse", "HEAD")
	m := regexp.MustCompile(`(?m)^git_export: (\S+)$`).FindStringSubmatch(wlc("show", "demo/app"))
	if m == nil || m[1] != p.base+"/git/demo/app/" {
		t.Fatalf("wlc show demo/app: git_export %v, want %s/git/demo/app/", m, p.base)
	}
	clone := filepath.Join(t.TempDir(), "export")
	gitRun(t, ".", "clone", "-q", m[1], clone)
	if got, want := gitRun(t, clone, "log", "-1", "--format=%H | %an <%ae> | %s"), head+" | "+adminSig+" | "+subject; got != want {
		t.Errorf("the export's clone: HEAD is %q, want %q", got, want)
	}
	if !strings.Contains(gitRun(t, clone, "show", "HEAD:locales/de.json"), `"greeting": "Exportiert, {name}!"`) {
		t.Error("the export's clone lacks the committed edit")
	}
	if got := gitRun(t, bare, "rev-parse", "main"); got == head {
		t.Error("upstream has the commit that was not pushed")
	}
	// A fetch into the clone negotiates with what it has.
	edit(p.token, map[string]string{"greeting": "Nochmal, {name}!"})
	wlc("commit", "demo/app")
	head = gitRun(t, checkout, "rev-parse", "HEAD")
	gitRun(t, clone, "pull", "-q", "--ff-only")
	if got := gitRun(t, clone, "rev-parse", "HEAD"); got != head {
		t.Errorf("the export's clone after a pull is at %s, want %s", got, head)
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
