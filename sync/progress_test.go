package sync_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"testing"
	"time"

	tolksync "github.com/tolk-project/tolk/sync"
)

// TestImportLogsProgress: a running import logs files done of total and
// units per second, at most once per ProgressInterval: with a tiny
// interval every file indexed gets a line, with the default none does in
// an import this quick.
func TestImportLogsProgress(t *testing.T) {
	files := map[string]string{"l/en.json": `{"a": "A", "b": "B", "c": "C"}`}
	langs := []string{"de", "fr", "it", "nl"}
	for _, l := range langs {
		files["l/"+l+".json"] = `{"a": "x", "b": "y"}`
	}
	url, _ := mustRepo(t, files)
	total := len(langs) + 1 // the template is the source translation

	for _, tc := range []struct {
		name     string
		interval time.Duration
		lines    int
	}{{"every file", time.Nanosecond, total}, {"default", 0, 0}} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			e := mustEnvWith(t, tolksync.Options{ProgressInterval: tc.interval,
				Logger: slog.New(slog.NewJSONHandler(&buf, nil))})
			e.reconcile(t, jsonComponent("app", url, "l/*.json", "l/en.json", "en"))

			var progress []map[string]any
			for _, line := range bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte("\n")) {
				var rec map[string]any
				if err := json.Unmarshal(line, &rec); err != nil {
					t.Fatalf("%v: %s", err, line)
				}
				if rec["msg"] == "import progress" {
					progress = append(progress, rec)
				}
			}
			if len(progress) != tc.lines {
				t.Fatalf("%d progress lines, want %d:\n%s", len(progress), tc.lines, buf.String())
			}
			for i, rec := range progress {
				want := map[string]any{"level": "INFO", "project": "test", "component": "app",
					"files_done": float64(i + 1), "files_total": float64(total)}
				for k, v := range want {
					if rec[k] != v {
						t.Errorf("line %d: %s = %v, want %v", i, k, rec[k], v)
					}
				}
				if ups, _ := rec["units_per_second"].(float64); ups <= 0 || rec["units"].(float64) <= 0 {
					t.Errorf("line %d: units %v at %v per second", i, rec["units"], rec["units_per_second"])
				}
			}
			if tc.lines > 0 {
				// A monolingual translation has every source string.
				if last := progress[len(progress)-1]["units"]; last != float64(3*total) {
					t.Errorf("units at the end = %v, want %d", last, 3*total)
				}
			}
		})
	}
}
