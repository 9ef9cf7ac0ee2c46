package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tolk-project/tolk/index/indextest"
)

// TestKillDuringPush kills tolk serve (SIGKILL, as a crash) at a
// different moment of each round while it commits and pushes
// translators' edits, restarts it on the same data directory, and goes
// on. At the end every acknowledged edit's last text is upstream, and no
// text was committed twice: whatever the moment, nothing is lost or
// duplicated.
func TestKillDuringPush(t *testing.T) {
	bin, data, p := startCrashDemo(t)
	token := p.token
	bare := filepath.Join(data, "demo", "app.git")
	last := map[string]string{} // "lang/key" → the last text acknowledged
	var texts []string
	for round := range 14 {
		for _, lang := range []string{"de", "fr"} {
			units := crashUnits(t, p, token, lang)
			for i, u := range units {
				if (i+round)%3 != 0 {
					continue
				}
				text := fmt.Sprintf("r%d %s %s", round, lang, u.Context)
				code, body := send(t, http.MethodPatch, p.base+"/api/units/"+strconv.FormatInt(u.ID, 10)+"/", token,
					map[string]any{"target": []string{text}, "state": 20})
				if code != http.StatusOK {
					t.Fatalf("PATCH %s %s: %d %v", lang, u.Context, code, body)
				}
				last[lang+"/"+u.Context] = text
				texts = append(texts, text)
			}
		}
		// The push runs while the process dies: its answer never comes.
		go postPush(p.base, token)
		// From before the push starts to after it ends, on this machine:
		// a sweep rather than one guess of where the window is.
		time.Sleep(time.Duration(round) * 3 * time.Millisecond)
		p.kill()
		p = runTolk(t, bin, data, "--demo")
		// Where the kill landed, for the log: before the commit (edits
		// pending, HEAD unmoved), between git and the index (HEAD moved,
		// edits still pending), or before or after the push.
		pend := 0
		for _, lang := range []string{"de", "fr"} {
			for _, u := range crashUnits(t, p, token, lang) {
				if u.Pending {
					pend++
				}
			}
		}
		head, _ := exec.Command("git", "-C", filepath.Join(data, "repos", "demo", "app"), "rev-parse", "HEAD").CombinedOutput()
		up, _ := exec.Command("git", "-C", bare, "rev-parse", "main").CombinedOutput()
		t.Logf("round %d: killed after %d ms; restarted with %d edits pending, HEAD %.8s, upstream %.8s",
			round, round*3, pend, head, up)
	}
	code, body := send(t, http.MethodPost, p.base+"/api/projects/demo/repository/", token, map[string]any{"operation": "push"})
	if code != http.StatusOK || body["result"] != true {
		t.Fatalf("push after the last restart: %d %v", code, body)
	}
	if len(last) == 0 {
		t.Fatal("no edits made")
	}

	files := map[string]string{}
	for _, lang := range []string{"de", "fr"} {
		out, err := exec.Command("git", "-C", bare, "show", "main:locales/"+lang+".json").CombinedOutput()
		if err != nil {
			t.Fatalf("git show %s: %v\n%s", lang, err, out)
		}
		files[lang] = string(out)
	}
	for key, text := range last {
		lang, _, _ := strings.Cut(key, "/")
		if !strings.Contains(files[lang], strconv.Quote(text)) {
			t.Errorf("upstream %s.json lacks the last edit %q", lang, text)
		}
	}
	added := timesAdded(t, bare, texts)
	for text, n := range added {
		if n > 1 {
			t.Errorf("%q was committed %d times", text, n)
		}
	}
	for _, lang := range []string{"de", "fr"} {
		for _, u := range crashUnits(t, p, token, lang) {
			if u.Pending {
				t.Errorf("%s %s still pending after the final push", lang, u.Context)
			}
		}
	}
}

// timesAdded counts, for each of texts, the commits of the upstream
// bare repository's main (first parent, oldest first) whose demo
// translation files hold it where their parent's did not: more than one
// means the text was committed twice, or lost and committed again.
func timesAdded(t *testing.T, bare string, texts []string) map[string]int {
	t.Helper()
	added := map[string]int{}
	var before string
	for _, commit := range strings.Fields(gitRun(t, bare, "rev-list", "--first-parent", "--reverse", "main")) {
		var files strings.Builder
		for _, lang := range []string{"de", "fr"} {
			// A file the commit lacks holds nothing.
			out, _ := exec.Command("git", "-C", bare, "show", commit+":locales/"+lang+".json").Output()
			files.Write(out)
		}
		now := files.String()
		for _, text := range texts {
			quoted := strconv.Quote(text)
			if strings.Contains(now, quoted) && !strings.Contains(before, quoted) {
				added[text]++
			}
		}
		before = now
	}
	return added
}

// startCrashDemo builds tolk and starts tolk serve --demo on a new data
// directory, for a test that kills and restarts it.
func startCrashDemo(t *testing.T) (bin, data string, p *tolkProcess) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and restarts tolk serve")
	}
	bin, data = buildTolk(t), t.TempDir()
	p = runTolk(t, bin, data, "--demo")
	if p.token == "" {
		t.Fatal("no administrator token on the first start")
	}
	return bin, data, p
}

// crashUnits lists a demo translation's units through the API.
func crashUnits(t *testing.T, p *tolkProcess, token, lang string) []apiUnit {
	t.Helper()
	resp := getAs(t, p.base+"/api/translations/demo/app/"+lang+"/units/?page_size=1000", "Token "+token)
	defer resp.Body.Close()
	var page struct {
		Results []apiUnit `json:"results"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&page); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("units of %s: %d %v", lang, resp.StatusCode, err)
	}
	var out []apiUnit
	for _, u := range page.Results {
		// Read-only and plural units are not what a translator edits.
		if len(u.Target) == 1 {
			out = append(out, u)
		}
	}
	return out
}

// TestKillAfterAcknowledgedEdits has 8 clients edit at once, so that
// their edits share transactions (group commit), kills tolk serve
// (SIGKILL) while they are still sending, and restarts it: every edit
// answered 200 before the kill is in the index afterwards, as its
// unit's change, and each unit holds the text of its newest change.
func TestKillAfterAcknowledgedEdits(t *testing.T) {
	bin, data, p := startCrashDemo(t)
	token := p.token
	var units []apiUnit
	for _, lang := range []string{"de", "fr"} {
		units = append(units, crashUnits(t, p, token, lang)...)
	}
	client := &http.Client{Timeout: 10 * time.Second}
	var mu sync.Mutex
	acked := map[string]int64{} // text → unit
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				u := units[(w*7+n*3)%len(units)]
				text := fmt.Sprintf("client %d edit %d", w, n)
				body, _ := json.Marshal(map[string]any{"target": []string{text}, "state": 20})
				req, _ := http.NewRequest(http.MethodPatch, p.base+"/api/units/"+strconv.FormatInt(u.ID, 10)+"/", bytes.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Authorization", "Token "+token)
				resp, err := client.Do(req)
				if err != nil {
					return // the server is gone
				}
				resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
					mu.Lock()
					acked[text] = u.ID
					mu.Unlock()
				}
			}
		}()
	}
	time.Sleep(1500 * time.Millisecond)
	p.kill()
	close(stop)
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	if len(acked) < 50 {
		t.Fatalf("only %d edits acknowledged before the kill", len(acked))
	}

	p = runTolk(t, bin, data, "--demo")
	db := indextest.OpenRaw(t, indexAt(t, data))
	recorded := map[string]int64{}
	rows := db.Query(t, `SELECT unit_id, target FROM changes WHERE unit_id IS NOT NULL AND target LIKE 'client %'`)
	for rows.Next() {
		var unit int64
		var text string
		if err := rows.Scan(&unit, &text); err != nil {
			t.Fatal(err)
		}
		recorded[text] = unit
	}
	rows.Close()
	lost := 0
	for text, unit := range acked {
		if recorded[text] != unit {
			lost++
			if lost <= 5 {
				t.Errorf("acknowledged edit %q of unit %d is not in the index after the kill", text, unit)
			}
		}
	}
	if lost > 0 {
		t.Errorf("%d of %d acknowledged edits lost", lost, len(acked))
	}
	var mismatched int
	if err := db.QueryRow(`SELECT count(*) FROM units u WHERE u.target != (SELECT target FROM changes
		WHERE unit_id = u.id AND action IN (2, 5, 37) ORDER BY id DESC LIMIT 1)`).Scan(&mismatched); err != nil {
		t.Fatal(err)
	}
	if mismatched != 0 {
		t.Errorf("%d units hold another text than their newest change", mismatched)
	}
	t.Logf("%d edits acknowledged before the kill, %d recorded", len(acked), len(recorded))
	for _, lang := range []string{"de", "fr"} {
		if got := crashUnits(t, p, token, lang); len(got) == 0 {
			t.Errorf("no units of %s served after the restart", lang)
		}
	}
}
