package apple

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/formats"
)

// readUnits prints the units translate-toolkit (the reference's parser)
// reads from a file, as JSON [[id, [forms…]], …].
const readUnits = `
import json, sys
from translate.storage import properties, stringsdict
kind, path = sys.argv[1], sys.argv[2]
data = open(path, "rb").read()
out = []
if kind == "stringsdict":
    st = stringsdict.StringsDictFile()
    st.filename = path
    st.parse(data)
    for u in st.units:
        t = u.target
        out.append([u.getid(), [str(x) for x in t.strings] if hasattr(t, "strings") else [str(t)]])
else:
    st = properties.propfile(personality=kind)
    st.parse(data)
    for u in st.units:
        if not u.isheader() and not u.isblank():
            out.append([u.name, [u.source]])
json.dump(out, sys.stdout, ensure_ascii=False)
`

// toolkitPython returns the Python that runs translate-toolkit's scripts
// (Debian package translate-toolkit), skipping the test when it is not
// installed, unless CI=true.
func toolkitPython(t *testing.T) string {
	t.Helper()
	script, err := exec.LookPath("prop2po")
	if err == nil {
		f, ferr := os.Open(script)
		if ferr == nil {
			defer f.Close()
			line, _ := bufio.NewReader(f).ReadString('\n')
			if py := strings.TrimSpace(strings.TrimPrefix(line, "#!")); py != "" {
				if exec.Command(py, "-c", "import translate.storage.stringsdict").Run() == nil {
					return py
				}
			}
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("translate-toolkit is needed (apt-get install translate-toolkit): %v", err)
	}
	t.Skipf("translate-toolkit not installed (prop2po: %v)", err)
	return ""
}

// toolkitUnits writes data to dir/name and returns what translate-toolkit
// reads from it.
func toolkitUnits(t *testing.T, py, kind, path string, data []byte) [][2]any {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(py, "-c", readUnits, kind, path).Output()
	if err != nil {
		t.Fatalf("translate-toolkit cannot read our %s output: %v\n%s", kind, err, data)
	}
	var units [][2]any
	if err := json.Unmarshal(out, &units); err != nil {
		t.Fatal(err)
	}
	return units
}

func asUnits(units []formats.Unit) [][2]any {
	out := make([][2]any, len(units))
	for i, u := range units {
		forms := make([]any, len(u.Target))
		for j, s := range u.Target {
			forms[j] = s
		}
		out[i] = [2]any{u.Context, forms}
	}
	return out
}

// TestToolkitReadsStrings has translate-toolkit read .strings files Tolk
// wrote (edited, extended, new, UTF-16) and checks it sees our units.
// Values with raw line breaks are left out: translate-toolkit joins such
// lines, Foundation (and Tolk) keep the break.
func TestToolkitReadsStrings(t *testing.T) {
	py := toolkitPython(t)
	_, files := corpusFiles(t, ".strings")
	dir := t.TempDir()
	edits := []formats.Edit{
		{Context: "Common.Alerts.BlockDomain.Title", Target: []string{"Quote \" backslash \\ newline\n tab\t emoji 😀 = ; /* x */"}},
		{Context: "New.Key \"quoted\"", Target: []string{"neu"}},
	}
	cases := []struct {
		name, kind string
		codec      StringsCodec
		data       []byte
	}{
		{"de", "strings-utf8", StringsUTF8, files["de"]},
		{"Base", "strings-utf8", StringsUTF8, files["Base"]},
		{"new UTF-16", "strings", Strings, nil},
		{"new UTF-8", "strings-utf8", StringsUTF8, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, err := tc.codec.Apply(tc.data, formats.File{}, edits)
			if err != nil {
				t.Fatal(err)
			}
			ours, err := tc.codec.Decode(out, formats.File{})
			if err != nil {
				t.Fatal(err)
			}
			theirs := toolkitUnits(t, py, tc.kind, filepath.Join(dir, tc.name+".strings"), out)
			if len(theirs) != len(ours) {
				t.Fatalf("translate-toolkit reads %d units, we read %d", len(theirs), len(ours))
			}
			want := asUnits(ours)
			for i := range want {
				if strings.Contains(ours[i].Target[0], "\n") && ours[i].Context != edits[0].Context {
					continue
				}
				if !reflect.DeepEqual(theirs[i], want[i]) {
					t.Errorf("unit %d: translate-toolkit reads %q, we read %q", i, theirs[i], want[i])
				}
			}
		})
	}
}

// TestToolkitReadsStringsdict has translate-toolkit read .stringsdict
// files Tolk wrote and checks that it sees our units, zero form included
// (it reads every language with "zero" in front, as WithZero does).
func TestToolkitReadsStringsdict(t *testing.T) {
	py := toolkitPython(t)
	_, files := corpusFiles(t, ".stringsdict")
	dir := t.TempDir()
	de := fileWith(WithZero([]string{"one", "other"})...)
	edits := []formats.Edit{
		{Context: "a11y.plural.count.unread.notification:notification_count_unread_notification", Target: []string{"keine <neuen> & so", "eine", "%ld viele"}},
		{Context: "plural.count.followed_by_and_mutual", Target: []string{"%#@names@ — %#@count_mutual@"}},
		{Context: "new.key:things", Target: []string{"", "ein Ding", "%ld Dinge"}},
	}
	for _, name := range []string{"de", "Base"} {
		t.Run(name, func(t *testing.T) {
			out, err := Stringsdict.Apply(files[name], de, edits)
			if err != nil {
				t.Fatal(err)
			}
			ours, err := Stringsdict.Decode(out, de)
			if err != nil {
				t.Fatal(err)
			}
			theirs := toolkitUnits(t, py, "stringsdict", filepath.Join(dir, name, "de.lproj", "Localizable.stringsdict"), out)
			if want := asUnits(ours); !reflect.DeepEqual(theirs, want) {
				t.Errorf("translate-toolkit reads\n%q\nwe read\n%q", theirs, want)
			}
		})
	}
}
