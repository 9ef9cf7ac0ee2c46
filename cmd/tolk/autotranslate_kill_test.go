package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/indextest"
	"github.com/tolk-project/tolk/index/sqlstore"
	"github.com/tolk-project/tolk/internal/servertest"
)

// killJobUnits is the size of the translation TestKillDuringAutoTranslate
// translates: enough batches (200 strings each) that a kill lands while
// the job runs. The kill follows the first batch's commit within a
// 5 ms poll, so 25 batches leave 24 to spare; 20,000 strings (100
// batches, four components' imports of 20,000 units) made the test
// 145 s of the package's run at load 30 (a kill after the job ended
// fails it, saying so).
const killJobUnits = 5000

// TestKillDuringAutoTranslate kills the real binary (SIGKILL, as a
// crash) while an automatic translation job of 5,000 strings is under
// way, restarts it on the same data directory, and waits: the next
// start resumes the job from its cursor, and at its end every string is
// translated once — one change 6 per unit, none twice —, the job's
// counts are the translation's, and the statistics are exact.
func TestKillDuringAutoTranslate(t *testing.T) {
	bin, data, p := startCrashDemo(t)
	token := p.token
	p.kill()

	// Two components of one project with the same source strings: the
	// job copies "strings"' German into "copy" (auto_source others).
	ctx := context.Background()
	loc := indexAt(t, data)
	db, err := indextest.ReopenWith(t, loc, sqlstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	proj := servertest.MustProject(t, db, index.Project{Name: "Big", Slug: "big"})
	var copyDE int64
	for _, slug := range []string{"strings", "copy"} {
		c := index.DefaultComponent()
		c.ProjectID, c.Name, c.Slug, c.Filemask, c.Template = proj.ID, slug, slug, "*.json", "en.json"
		c = servertest.MustComponent(t, db, c)
		source := make([]index.ImportUnit, killJobUnits)
		de := make([]index.ImportUnit, killJobUnits)
		for i := range killJobUnits {
			key, text := fmt.Sprintf("key.%05d", i), fmt.Sprintf("String number %d", i)
			source[i] = servertest.Unit(key, text, text, index.StateReadOnly)
			de[i] = servertest.Unit(key, text, "", index.StateEmpty)
			if slug == "strings" {
				de[i] = servertest.Unit(key, text, fmt.Sprint("Zeichenkette ", i), index.StateTranslated)
			}
		}
		src := servertest.MustImport(t, db, index.TranslationImport{ComponentID: c.ID, LanguageCode: "en",
			Filename: "en.json", Revision: "s", IsSource: true, IsTemplate: true, Monolingual: true, Units: source})
		id := servertest.MustImport(t, db, index.TranslationImport{ComponentID: c.ID, LanguageCode: "de",
			Filename: "de.json", Revision: "d", Monolingual: true, SourceTranslationID: src, Units: de})
		if slug == "copy" {
			copyDE = id
		}
	}
	db.Close()

	p = runTolk(t, bin, data, "--demo")
	raw := indextest.OpenRaw(t, loc)
	answered := make(chan string, 1)
	go func() {
		req, _ := http.NewRequest(http.MethodPost, p.base+"/api/translations/big/copy/de/autotranslate/",
			strings.NewReader(`{"mode": "translate", "auto_source": "others"}`))
		req.Header.Set("Authorization", "Token "+token)
		req.Header.Set("Content-Type", "application/json")
		resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
		if err != nil {
			answered <- err.Error() // the kill came first
			return
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		answered <- fmt.Sprint(resp.StatusCode, " ", string(body))
	}()
	// Kill once the job has written a batch, before it ends.
	var jobID string
	var done, total int
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		err := raw.QueryRow(`SELECT id, done, total FROM autotranslate_jobs WHERE translation_id = ?`,
			copyDE).Scan(&jobID, &done, &total)
		if err == nil && done > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no batch written in 60 s (%v); log:\n%s", err, p.log)
		}
	}
	p.kill()
	if done >= total {
		t.Fatalf("the job ended (%d of %d) before the kill: make it longer", done, total)
	}
	t.Logf("killed at %d of %d strings; the request saw: %.120s", done, total, <-answered)

	p = runTolk(t, bin, data, "--demo")
	defer p.kill()
	var completed bool
	var updated int
	var jobErr string
	for deadline := time.Now().Add(120 * time.Second); !completed; time.Sleep(50 * time.Millisecond) {
		if err := raw.QueryRow(`SELECT completed != 0, done, total, updated, error FROM autotranslate_jobs
			WHERE id = ?`, jobID).Scan(&completed, &done, &total, &updated, &jobErr); err != nil {
			t.Fatal(err)
		}
		if time.Now().After(deadline) {
			t.Fatalf("the job was not finished 120 s after the restart: %d of %d; log:\n%s", done, total, p.log)
		}
	}
	if jobErr != "" || done != total || total != killJobUnits || updated != killJobUnits {
		t.Errorf("job after the restart: done %d, total %d, updated %d, error %q; want %d strings, all updated",
			done, total, updated, jobErr, killJobUnits)
	}
	var changes, twice, untranslated, wrong int
	if err := raw.QueryRow(`SELECT count(*) FROM changes WHERE translation_id = ? AND action = ?`,
		copyDE, index.ActionAutoTranslated).Scan(&changes); err != nil {
		t.Fatal(err)
	}
	if err := raw.QueryRow(`SELECT count(*) FROM (SELECT unit_id FROM changes WHERE translation_id = ? AND action = ?
		GROUP BY unit_id HAVING count(*) > 1) d`, copyDE, index.ActionAutoTranslated).Scan(&twice); err != nil {
		t.Fatal(err)
	}
	if err := raw.QueryRow(`SELECT count(*) FROM units WHERE translation_id = ? AND state < 20`,
		copyDE).Scan(&untranslated); err != nil {
		t.Fatal(err)
	}
	if err := raw.QueryRow(`SELECT count(*) FROM units u JOIN units s ON s.translation_id = (SELECT id FROM translations
		WHERE language_code = 'de' AND component_id = (SELECT id FROM components WHERE slug = 'strings'))
		AND s.id_hash = u.id_hash WHERE u.translation_id = ? AND u.target != s.target`, copyDE).Scan(&wrong); err != nil {
		t.Fatal(err)
	}
	if changes != killJobUnits || twice != 0 || untranslated != 0 || wrong != 0 {
		t.Errorf("after the restart: %d automatic changes (want %d), %d strings translated twice, %d untranslated, %d with another text",
			changes, killJobUnits, twice, untranslated, wrong)
	}
	// The statistics the API serves are the units' own.
	p.kill()
	db, err = indextest.ReopenWith(t, loc, sqlstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	indextest.CheckCounts(t, db)
	tr, err := db.FindTranslation(ctx, "big", "copy", "de")
	if err != nil {
		t.Fatal(err)
	}
	if tr.Stats.Translated != killJobUnits {
		t.Errorf("copy/de counts %d translated, want %d", tr.Stats.Translated, killJobUnits)
	}
}
