package po

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/formats"
)

// msgfmt checks data with GNU gettext's msgfmt -c (Debian package
// gettext), the tool every PO file ends up compiled with. Without it the
// test is skipped, unless CI=true, where it must be installed.
func msgfmt(tb testing.TB, name string, data []byte) {
	tb.Helper()
	bin, err := exec.LookPath("msgfmt")
	if err != nil {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("msgfmt not found (install the gettext package): %v", err)
		}
		tb.Skipf("msgfmt not found: %v", err)
	}
	path := filepath.Join(tb.TempDir(), name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		tb.Fatal(err)
	}
	out, err := exec.Command(bin, "-c", "-o", os.DevNull, path).CombinedOutput()
	if err != nil {
		tb.Errorf("msgfmt -c %s: %v\n%s", name, err, out)
	}
}

// TestMsgfmt writes every corpus translation with an edited plural unit,
// a fuzzy flag toggled, an added unit with msgctxt and an added plural
// unit, removes a unit, and has msgfmt -c check the result.
func TestMsgfmt(t *testing.T) {
	for _, path := range corpusFiles(t, false) {
		data := mustRead(t, path)
		units := mustDecode(t, Codec{}, data)
		code := strings.TrimSuffix(filepath.Base(path), ".po")
		f := deFile()
		f.Target.Code = code
		var edits []formats.Edit
		toggled := false
		for _, u := range units {
			switch {
			case len(u.Source) == 2:
				forms := make([]string, len(u.Target))
				for i := range forms {
					forms[i] = "{time} Tolk \"form\" \\ " + strings.Repeat("x", i)
				}
				edits = append(edits, formats.Edit{Context: u.Context, Source: u.Source, Target: forms})
			case !toggled && u.Target[0] != "":
				toggled = true
				edits = append(edits, formats.Edit{Context: u.Context, Source: u.Source, Target: u.Target, Fuzzy: !u.Fuzzy})
			}
		}
		edits = append(edits,
			formats.Edit{Context: "tolk context", Source: []string{units[0].Source[0]}, Target: []string{"new\ttab\n"}, Fuzzy: true},
			formats.Edit{Source: []string{"{n} tolk file", "{n} tolk files"}, Target: []string{"{n}"}, Plural: true},
		)
		out := mustApply(t, Codec{}, data, f, edits...)
		if n := len(mustDecode(t, Codec{}, out)); n != 105 {
			t.Errorf("%s: %d units, want 105", path, n)
		}
		msgfmt(t, filepath.Base(path), out)
		out = mustRemove(t, Codec{}, out, formats.Key{Context: units[1].Context, Source: units[1].Source[0]})
		msgfmt(t, filepath.Base(path), out)
	}
}
