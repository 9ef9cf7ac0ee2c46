package xliff

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/formats"
)

// lookTool returns the path of a Translate Toolkit command, skipping the
// test when it is absent, except under CI=true, where it must be there
// (Debian package translate-toolkit).
func lookTool(t *testing.T, name string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s not found; install the translate-toolkit package", name)
		}
		t.Skipf("%s not found (Debian package translate-toolkit)", name)
	}
	return path
}

// TestTranslateToolkitReads checks that Translate Toolkit's XLIFF 1.2
// reader (xliff2po) reads what Apply writes: an edited target, an added
// unit, a removed one and a new file. Translate Toolkit 3.8.4 has no
// XLIFF 2.0 reader.
func TestTranslateToolkitReads(t *testing.T) {
	xliff2po := lookTool(t, "xliff2po")
	corpusFiles(t, "kimai")
	data := mustRead(t, corpusDir+"/kimai/translations/validators.sl.xlf")
	units := mustDecode(t, XLIFF, data, de())
	edited, removed := units[1], units[2]
	out := mustApply(t, XLIFF, data, de(),
		formats.Edit{Context: edited.Context, Target: []string{"Uredil Tolk & co <3"}},
		formats.Edit{Context: "tolk.added", Source: []string{"Added by Tolk"}, Target: []string{"Dodal Tolk"}, Approved: true},
	)
	out = mustRemove(t, XLIFF, out, formats.Key{Context: removed.Context})
	fresh := mustApply(t, XLIFF, nil, de(), formats.Edit{Context: "k", Source: []string{"Key"}, Target: []string{"Ključ"}})

	for _, tc := range []struct {
		name string
		data []byte
		want map[string]string // msgid → msgstr
		n    int
	}{
		{"edited", out, map[string]string{
			edited.Source[0]:   "Uredil Tolk & co <3",
			"Added by Tolk":    "Dodal Tolk",
			units[0].Source[0]: strings.ReplaceAll(units[0].Target[0], "&amp;", "&"),
		}, len(units)},
		{"new file", fresh, map[string]string{"Key": "Ključ"}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			in, po := filepath.Join(dir, "in.xlf"), filepath.Join(dir, "out.po")
			if err := os.WriteFile(in, tc.data, 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(xliff2po, "--progress=none", "-i", in, "-o", po)
			if msg, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("xliff2po: %v\n%s", err, msg)
			}
			got := readPO(t, po)
			if len(got) != tc.n {
				t.Errorf("xliff2po read %d units, want %d", len(got), tc.n)
			}
			for id, str := range tc.want {
				if got[id] != str {
					t.Errorf("msgid %q: msgstr %q, want %q", id, got[id], str)
				}
			}
			if _, ok := got[removed.Source[0]]; ok && tc.name == "edited" {
				t.Errorf("removed unit %q is still read", removed.Source[0])
			}
		})
	}
}

// readPO returns the msgid → msgstr pairs of a PO file, header excluded.
func readPO(t *testing.T, path string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m := make(map[string]string)
	var id, str bytes.Buffer
	var cur *bytes.Buffer
	flush := func() {
		if id.Len() > 0 {
			m[id.String()] = str.String()
		}
		id.Reset()
		str.Reset()
		cur = nil
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "msgid "):
			flush()
			cur, line = &id, strings.TrimPrefix(line, "msgid ")
		case strings.HasPrefix(line, "msgstr "):
			cur, line = &str, strings.TrimPrefix(line, "msgstr ")
		case !strings.HasPrefix(line, `"`):
			continue
		}
		if cur == nil {
			continue
		}
		s, err := strconv.Unquote(line)
		if err != nil {
			t.Fatalf("%s: %q: %v", path, line, err)
		}
		cur.WriteString(s)
	}
	flush()
	return m
}
