package properties

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/formats"
)

// TestProp2po reads what Apply writes with translate-toolkit's prop2po
// (Debian package translate-toolkit), the parser the reference uses: an
// edited value and an added key must come out as the values we wrote.
func TestProp2po(t *testing.T) {
	tool, err := exec.LookPath("prop2po")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("prop2po not found; install translate-toolkit")
		}
		t.Skip("prop2po not found (Debian package translate-toolkit)")
	}
	for _, cp := range corpora {
		t.Run(cp.name, func(t *testing.T) {
			corpusFiles(t, cp.name, cp.dir)
			data := mustRead(t, filepath.Join(corpusDir, cp.name, cp.dir, cp.base))
			units := mustDecode(t, cp.codec, data)
			// No character beyond U+FFFF: translate-toolkit 3.8.4 cannot
			// decode the surrogate-pair escapes Java writes for them
			// ("surrogates not allowed"; see doc.go).
			value := "Tolk — geändert\tjetzt €"
			out := mustApply(t, cp.codec, data,
				formats.Edit{Context: units[3].Context, Target: []string{value}},
				formats.Edit{Context: "tolk.added", Target: []string{"neu: ß"}})
			dir := t.TempDir()
			in, po := filepath.Join(dir, "in.properties"), filepath.Join(dir, "out.po")
			if err := os.WriteFile(in, out, 0o600); err != nil {
				t.Fatal(err)
			}
			personality := "java"
			if cp.codec.UTF8 {
				personality = "java-utf8"
			}
			if msg, err := exec.Command(tool, "--personality="+personality, in, po).CombinedOutput(); err != nil {
				t.Fatalf("prop2po: %v\n%s", err, msg)
			}
			got := string(mustRead(t, po))
			for _, want := range []string{
				"#: " + units[3].Context + "\nmsgid \"Tolk — geändert\\tjetzt €\"\n",
				"#: tolk.added\nmsgid \"neu: ß\"\n",
			} {
				if !strings.Contains(got, want) {
					t.Errorf("prop2po output lacks %q", want)
				}
			}
		})
	}
}
