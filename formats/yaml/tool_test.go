package yaml

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	yamlv3 "go.yaml.in/yaml/v3"

	"github.com/tolk-project/tolk/formats"
)

// TestYAML2po reads what Apply writes with translate-toolkit's yaml2po
// (Debian package translate-toolkit; it reads plain YAML, so contexts
// keep the language key): edited values of every scalar style, and an
// added key, must come out as written.
func TestYAML2po(t *testing.T) {
	tool, err := exec.LookPath("yaml2po")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("yaml2po not found; install translate-toolkit")
		}
		t.Skip("yaml2po not found (Debian package translate-toolkit)")
	}
	corpusFiles(t)
	path := filepath.Join(corpusDir, "diaspora", "config", "locales", "diaspora", "de.yml")
	data := mustRead(t, path)
	f := fileOf(path)
	d, err := Ruby.parse(data, f.Target.Plurals)
	if err != nil {
		t.Fatal(err)
	}
	var edits []formats.Edit
	seen := map[yamlv3.Style]bool{}
	for _, u := range d.units {
		if u.plural || seen[u.value.Style] || strings.ContainsAny(u.ctx, "%?#") {
			continue
		}
		seen[u.value.Style] = true
		edits = append(edits, formats.Edit{Context: u.ctx, Target: []string{"Geändert: " + u.ctx}})
	}
	edits = append(edits, formats.Edit{Context: "tolk->added", Target: []string{"neu # kein Kommentar"}})
	out := mustApply(t, Ruby, data, f, edits...)
	dir := t.TempDir()
	in, po := filepath.Join(dir, "in.yml"), filepath.Join(dir, "out.po")
	if err := os.WriteFile(in, out, 0o600); err != nil {
		t.Fatal(err)
	}
	if msg, err := exec.Command(tool, in, po).CombinedOutput(); err != nil {
		t.Fatalf("yaml2po: %v\n%s", err, msg)
	}
	got := string(mustRead(t, po))
	for _, e := range edits {
		want := "#: " + strings.ReplaceAll("de->"+e.Context, ">", "%3E") + "\nmsgid \"" + e.Target[0] + "\"\n"
		if !strings.Contains(got, want) {
			t.Errorf("yaml2po output lacks %q", want)
		}
	}
	if len(edits) < 4 {
		t.Errorf("only %d styles edited", len(edits)-1)
	}
}
