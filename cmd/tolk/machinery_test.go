package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/internal/apytest"
	"github.com/tolk-project/tolk/machinery"
)

// TestMachineryWired runs the whole program with a site-wide Apertium
// APy on loopback, as a setup file gives it: the editor's endpoint
// reaches it (German is a pair this APy lacks, so it says so, naming
// itself, which it can only know from APy's /listPairs), while a project
// may not name loopback without --machinery-allow-private.
func TestMachineryWired(t *testing.T) {
	apy := apytest.Start(t)
	cfg := DefaultConfig()
	cfg.DataDir, cfg.Listen, cfg.Demo = t.TempDir(), "127.0.0.1:0", true
	cfg.Machinery = map[string]machinery.Config{"apertium-apy": {"url": apy}}
	m := mustRunConfig(t, cfg)
	defer m.Close()
	base := "http://" + m.Addr().String()
	auth := adminToken(t, m)
	post := func(path, body string) (int, string) {
		req, _ := http.NewRequest(http.MethodPost, base+path, strings.NewReader(body))
		req.Header.Set("Authorization", auth)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	ctx := context.Background()
	tr, err := m.db.FindTranslation(ctx, "demo", "app", "de")
	if err != nil {
		t.Fatal(err)
	}
	units, _, err := m.db.FindUnits(ctx, index.UnitFilter{TranslationID: tr.ID, Page: index.Page{Number: 1, Size: 1}})
	if err != nil || len(units) == 0 {
		t.Fatal(units, err)
	}
	status, body := post("/js/translate/apertium-apy/"+strconv.FormatInt(units[0].ID, 10)+"/", "")
	var ans map[string]any
	json.Unmarshal([]byte(body), &ans)
	if status != 200 || ans["responseStatus"] != 500.0 ||
		ans["responseDetails"] != "Apertium APy: this language pair is not supported." {
		t.Errorf("editor endpoint = %d %s", status, body)
	}
	status, body = post("/api/projects/demo/machinery_settings/",
		`{"service": "apertium-apy", "configuration": {"url": "`+apy+`"}}`)
	if status != 400 || !strings.Contains(body, `"attr":"configuration.url"`) {
		t.Errorf("a project's loopback APy = %d %s, want a 400 on configuration.url", status, body)
	}
}
