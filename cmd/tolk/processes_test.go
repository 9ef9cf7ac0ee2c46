package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tolk-project/tolk/index/indextest"
)

// TestTwoServersOneDatabase runs two tolk serve binaries on one
// PostgreSQL database, each with a data directory of its own, as two
// instances behind a load balancer run:
//   - a write acknowledged by one is seen by the next read on the other,
//     pages each had cached before included;
//   - their git jobs for the demo component (pushes asked of both at
//     once, B's scheduled pulls) take turns: no edit is committed twice
//     or lost;
//   - A killed (SIGKILL) at a different moment of each round while it
//     commits and pushes leaves nothing stuck: B's push right after
//     succeeds;
//   - downloads and the Git export answer the same from both.
func TestTwoServersOneDatabase(t *testing.T) {
	bin, dataA, dataB, db := twoServers(t)
	a := runTolk(t, bin, dataA, "--demo", "--db", db)
	token := a.token
	if token == "" {
		t.Fatal("no administrator token on A's first start")
	}
	b := runTolk(t, bin, dataB, "--db", db, "--pull-interval", "200ms")

	// Read your writes, each way, with the other's caches warm.
	units := crashUnits(t, a, token, "de")
	if len(units) < 4 {
		t.Fatalf("%d German units, want at least 4", len(units))
	}
	for i, u := range units[:4] {
		writer, reader := a, b
		if i%2 == 1 {
			writer, reader = b, a
		}
		unitURL := "/api/units/" + strconv.FormatInt(u.ID, 10) + "/"
		before := changeCount(t, reader, token)
		crashUnits(t, reader, token, "de")
		getAs(t, reader.base+unitURL, "Token "+token).Body.Close()

		text := fmt.Sprintf("written on %s, read on %s", processName(writer, a), processName(reader, a))
		if code, body := send(t, http.MethodPatch, writer.base+unitURL, token,
			map[string]any{"target": []string{text}, "state": 20}); code != http.StatusOK {
			t.Fatalf("PATCH %s: %d %v", u.Context, code, body)
		}
		var got apiUnit
		readJSON(t, reader.base+unitURL, token, &got)
		if len(got.Target) != 1 || got.Target[0] != text || !got.Pending {
			t.Errorf("%s: unit on the other process = %q pending %v, want %q pending", u.Context, got.Target, got.Pending, text)
		}
		found := false
		for _, v := range crashUnits(t, reader, token, "de") {
			if v.ID == u.ID {
				found = len(v.Target) == 1 && v.Target[0] == text
			}
		}
		if !found {
			t.Errorf("%s: the other process's units page lacks %q", u.Context, text)
		}
		if got, want := changeCount(t, reader, token), changeCount(t, writer, token); got != want || got <= before {
			t.Errorf("%s: the other process counts %d changes after the edit (%d before), the writer %d", u.Context, got, before, want)
		}

	}

	bare := filepath.Join(dataA, "demo", "app.git")
	last := map[string]string{} // "lang/key" → the last text acknowledged
	var texts []string
	for round := range 6 {
		for _, lang := range []string{"de", "fr"} {
			for i, u := range crashUnits(t, b, token, lang) {
				if (i+round)%3 != 0 {
					continue
				}
				text := fmt.Sprintf("round %d %s %s", round, lang, u.Context)
				if code, body := send(t, http.MethodPatch, b.base+"/api/units/"+strconv.FormatInt(u.ID, 10)+"/", token,
					map[string]any{"target": []string{text}, "state": 20}); code != http.StatusOK {
					t.Fatalf("PATCH %s %s: %d %v", lang, u.Context, code, body)
				}
				last[lang+"/"+u.Context] = text
				texts = append(texts, text)
			}
		}
		// Both are asked to push at once; A dies while it may hold the
		// component, at a later moment each round.
		var pushes sync.WaitGroup
		pushes.Go(func() { postPush(a.base, token) })
		time.Sleep(time.Duration(round) * 25 * time.Millisecond)
		pushes.Go(func() { postPush(b.base, token) })
		time.Sleep(time.Duration(round) * 25 * time.Millisecond)
		a.kill()
		pushes.Wait()
		// Where the kill landed, for the log.
		aLog := a.log.String()
		committed := strings.Contains(aLog, `msg="pending edits committed"`)
		answered := strings.Contains(aLog, "path=/api/projects/demo/repository/")

		// B takes the component at once: nothing waits on the dead A.
		start := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		code, body := sendContext(ctx, t, http.MethodPost, b.base+"/api/projects/demo/repository/", token, map[string]any{"operation": "push"})
		cancel()
		if code != http.StatusOK || body["result"] != true {
			t.Fatalf("round %d: B's push after A's death: %d %v", round, code, body)
		}
		t.Logf("round %d: A killed %d ms after its push began (had committed: %v, answered: %v); B pushed in %v",
			round, round*50, committed, answered, time.Since(start).Round(time.Millisecond))
		a = runTolk(t, bin, dataA, "--demo", "--db", db)
	}

	for _, p := range []*tolkProcess{a, b} {
		for _, lang := range []string{"de", "fr"} {
			for _, u := range crashUnits(t, p, token, lang) {
				if u.Pending {
					t.Errorf("%s: %s %s still pending after B's last push", processName(p, a), lang, u.Context)
				}
			}
		}
	}
	upstream := map[string]string{}
	for _, lang := range []string{"de", "fr"} {
		upstream[lang] = gitRun(t, bare, "show", "main:locales/"+lang+".json")
	}
	for key, text := range last {
		lang, _, _ := strings.Cut(key, "/")
		if !strings.Contains(upstream[lang], strconv.Quote(text)) {
			t.Errorf("upstream %s.json lacks the last edit %q", lang, text)
		}
	}
	added := timesAdded(t, bare, texts)
	for text, n := range added {
		if n > 1 {
			t.Errorf("%q was committed %d times", text, n)
		}
	}
	if t.Failed() {
		t.Logf("upstream's history:\n%s", gitRun(t, bare, "log", "-p", "--format=%h %s %ad", "main"))
	}

	// Whichever process answers, the same bytes.
	for _, lang := range []string{"de", "fr"} {
		path := "/api/translations/demo/app/" + lang + "/file/"
		codeA, fileA := get(t, a.base+path, "Token "+token)
		codeB, fileB := get(t, b.base+path, "Token "+token)
		if codeA != http.StatusOK || codeB != http.StatusOK || fileA != fileB {
			t.Errorf("download of %s: A %d\n%s\nB %d\n%s", lang, codeA, fileA, codeB, fileB)
		}
		if strings.TrimSpace(fileA) != strings.TrimSpace(upstream[lang]) {
			t.Errorf("download of %s:\n%s\nwant upstream's\n%s", lang, fileA, upstream[lang])
		}
	}
	headA := lsRemote(t, a.base+"/git/demo/app/")
	headB := lsRemote(t, b.base+"/git/demo/app/")
	if want := gitRun(t, bare, "rev-parse", "main"); headA != want || headB != want {
		t.Errorf("git export heads: A %s, B %s; want upstream's %s", headA, headB, want)
	}
}

// twoServers skips unless the tests run on PostgreSQL (and not -short),
// and returns a tolk binary built for the test, two data directories
// and the index (--db) the two servers share.
func twoServers(t *testing.T) (bin, dataA, dataB, db string) {
	t.Helper()
	if indextest.Engine() != indextest.Postgres {
		t.Skip("processes share one index on PostgreSQL only")
	}
	if testing.Short() {
		t.Skip("builds tolk and runs two servers")
	}
	bin = buildTolk(t)
	dataA, dataB = t.TempDir(), t.TempDir()
	return bin, dataA, dataB, testDB(t, dataA)
}

// processName names p in the log: "A" when it is a, else "B".
func processName(p, a *tolkProcess) string {
	if p == a {
		return "A"
	}
	return "B"
}

// changeCount is the number of changes of the demo's German
// translation, as p answers.
func changeCount(t *testing.T, p *tolkProcess, token string) int {
	t.Helper()
	var page struct {
		Count int `json:"count"`
	}
	readJSON(t, p.base+"/api/translations/demo/app/de/changes/", token, &page)
	return page.Count
}

// readJSON GETs url with token and decodes its 200 answer into v.
func readJSON(t *testing.T, url, token string, v any) {
	t.Helper()
	code, body := get(t, url, "Token "+token)
	if code != http.StatusOK {
		t.Fatalf("GET %s: %d %s", url, code, body)
	}
	if err := json.Unmarshal([]byte(body), v); err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
}

// postPush asks base to push the demo project and ignores the answer,
// which a killed process never gives.
func postPush(base, token string) {
	body, _ := json.Marshal(map[string]string{"operation": "push"})
	req, _ := http.NewRequest(http.MethodPost, base+"/api/projects/demo/repository/", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Token "+token)
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
	}
}

// lsRemote is the HEAD the Git export at url advertises, as the git
// command line reads it.
func lsRemote(t *testing.T, url string) string {
	t.Helper()
	out, err := exec.Command("git", "ls-remote", url, "HEAD").CombinedOutput()
	if err != nil {
		t.Fatalf("git ls-remote %s: %v\n%s", url, err, out)
	}
	head, _, _ := strings.Cut(string(out), "\t")
	return strings.TrimSpace(head)
}

// TestSoloServerSeesCLIWrites: a server alone on its PostgreSQL database
// becomes solo (it logs so), answering cached reads without asking the
// database for other processes' writes; a command run beside it (tolk
// token revoke --db) opens the database, which makes the server step
// down before the command's first write, so a token the server had
// cached is refused as soon as the command has revoked it.
func TestSoloServerSeesCLIWrites(t *testing.T) {
	f := newSoloServer(t)
	a, cli, status, id := f.a, f.cli, f.status, f.id
	// newSoloServer's commands made the server step down already: the
	// revoke's command must make it step down once more.
	const stepDown = "another process shares the database"
	before := strings.Count(a.log.String(), stepDown)
	cli("token", "revoke", id)
	if got := status(); got != http.StatusUnauthorized {
		t.Errorf("carol's token revoked by a command beside the solo server: %d, want 401", got)
	}
	after := strings.Count(a.log.String(), stepDown)
	for deadline := time.Now().Add(5 * time.Second); after <= before && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond) // the server's log is read from its pipe
		after = strings.Count(a.log.String(), stepDown)
	}
	if after <= before {
		t.Errorf("the server did not step down for the revoke's command (%d times before, %d after):\n%s", before, after, a.log.String())
	}
}

// soloServer is a solo tolk serve on PostgreSQL, beside which commands
// (tolk ... --db) run: carol's read token (id, tok) made by commands and
// cached by the server, which is solo again after them.
type soloServer struct {
	t       *testing.T
	a       *tolkProcess
	bin, db string
	dataCLI string
	id, tok string
}

func newSoloServer(t *testing.T) *soloServer {
	bin, dataA, dataCLI, db := twoServers(t)
	f := &soloServer{t: t, a: runTolk(t, bin, dataA, "--demo", "--db", db), bin: bin, db: db, dataCLI: dataCLI}
	f.solo(1)
	f.cli("user", "add", "carol")
	f.tok = strings.TrimSpace(f.cli("token", "create", "carol", "--scope", "read"))
	f.id = strings.Fields(strings.Split(f.cli("token", "list", "carol"), "\n")[1])[0]
	f.solo(2)     // again, after the commands closed
	for range 3 { // the token's user cached
		if got := f.status(); got != http.StatusOK {
			t.Fatalf("carol's token: %d, want 200", got)
		}
	}
	return f
}

// command is tolk with args on the server's database.
func (f *soloServer) command(args ...string) *exec.Cmd {
	return exec.Command(f.bin, append(args, "--db", f.db, "--data", f.dataCLI)...)
}

// cli runs a command and returns its standard output.
func (f *soloServer) cli(args ...string) string {
	f.t.Helper()
	out, err := f.command(args...).Output()
	if err != nil {
		f.t.Fatalf("tolk %s: %v", strings.Join(args, " "), err)
	}
	return string(out)
}

// solo waits for the server's n-th "alone on the database".
func (f *soloServer) solo(n int) {
	f.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for strings.Count(f.a.log.String(), "index: alone on the database:") < n {
		if time.Now().After(deadline) {
			f.t.Fatalf("the server did not become solo (%d times) in 30 s:\n%s", n, f.a.log.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// status is the server's answer to carol's token.
func (f *soloServer) status() int {
	f.t.Helper()
	res := getAs(f.t, f.a.base+"/api/projects/", "Token "+f.tok)
	res.Body.Close()
	return res.StatusCode
}

// TestSoloServerStopped: a solo tolk serve stopped (SIGSTOP) with its
// database sessions alive does not hold every other process's start: a
// command beside it starts after the lease's bounded wait, logs the
// stopped process's backend, and reads (tolk token list); its write
// (tolk token revoke) waits, fenced, while the server may still answer
// from its caches, and lands once the server resumes and steps down,
// which then refuses the revoked token. Before the bound, the command
// waited as long as the server was stopped.
func TestSoloServerStopped(t *testing.T) {
	f := newSoloServer(t)
	a, command, status, id := f.a, f.command, f.status, f.id
	// The token's uses are written after the answers: stopped inside
	// that transaction, the server would hold the write lock too, which
	// no lease can help (the command's migrations time out on it).
	time.Sleep(2 * time.Second)
	if err := a.process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	stopped := true
	resume := func() {
		if stopped {
			stopped = false
			if err := a.process.Signal(syscall.SIGCONT); err != nil {
				t.Error(err)
			}
		}
	}
	defer resume()
	// A read beside the stopped server: within the bound (5 soloTerms,
	// 7.5 s) and a loaded machine's slack.
	list := command("token", "list", "carol")
	var stderr bytes.Buffer
	list.Stderr = &stderr
	if err := list.Start(); err != nil {
		t.Fatal(err)
	}
	listed := make(chan error, 1)
	go func() { listed <- list.Wait() }()
	select {
	case err := <-listed:
		if err != nil {
			t.Fatalf("tolk token list beside the stopped server: %v\n%s", err, stderr.String())
		}
	case <-time.After(60 * time.Second):
		list.Process.Kill()
		<-listed
		t.Fatalf("tolk token list still waits 60 s beside the stopped server:\n%s", stderr.String())
	}
	if !strings.Contains(stderr.String(), "does not step down") || !strings.Contains(stderr.String(), "backend=") {
		t.Errorf("the command did not log what held it:\n%s", stderr.String())
	}
	// A write beside it waits (the fence) until the server steps down.
	revoke := command("token", "revoke", id)
	if err := revoke.Start(); err != nil {
		t.Fatal(err)
	}
	revoked := make(chan error, 1)
	go func() { revoked <- revoke.Wait() }()
	select {
	case err := <-revoked:
		t.Fatalf("tolk token revoke ended (%v) while the solo server was stopped", err)
	case <-time.After(15 * time.Second):
	}
	resume()
	select {
	case err := <-revoked:
		if err != nil {
			t.Fatalf("tolk token revoke after the server resumed: %v", err)
		}
	case <-time.After(60 * time.Second):
		revoke.Process.Kill()
		<-revoked
		t.Fatal("tolk token revoke still waits 60 s after the server resumed")
	}
	if got := status(); got != http.StatusUnauthorized {
		t.Errorf("carol's token revoked beside the stopped server, read after it resumed: %d, want 401", got)
	}
}
