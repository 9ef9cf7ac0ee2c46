package android

import (
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/formats"
)

// toolkitScript reads Android resource files with translate-toolkit and
// writes, per file, each unit's name, its values by quantity ("" for a
// <string>) and whether it is translatable, as JSON to argv[1].
const toolkitScript = `import sys, json
from translate.storage import aresource
out = {}
for p in sys.argv[2:]:
    st = aresource.AndroidResourceFile()
    st.parse(open(p, "rb").read())
    units = []
    for u in st.units:
        if u.xmlelement.tag == "plurals":
            t = {i.get("quantity"): u.get_xml_text_value(i) for i in u.xmlelement.iterchildren("item")}
        else:
            t = {"": u.get_xml_text_value(u.xmlelement)}
        units.append([u.getid(), t, u.istranslatable()])
    out[p] = units
json.dump(out, open(sys.argv[1], "w"), ensure_ascii=False)
`

// toolkitUnit is one unit as translate-toolkit reads it.
type toolkitUnit struct {
	id           string
	values       map[string]string
	translatable bool
}

// toolkitPython finds a Python with translate-toolkit (Debian package
// translate-toolkit puts it in /usr/bin/python3's dist-packages). The
// test is skipped without one, unless CI=true.
func toolkitPython(tb testing.TB) string {
	tb.Helper()
	for _, py := range []string{"/usr/bin/python3", "python3"} {
		path, err := exec.LookPath(py)
		if err != nil {
			continue
		}
		if exec.Command(path, "-c", "import translate.storage.aresource").Run() == nil {
			return path
		}
	}
	if os.Getenv("CI") == "true" {
		tb.Fatal("no python3 with translate-toolkit (apt-get install translate-toolkit)")
	}
	tb.Skip("no python3 with translate-toolkit (apt-get install translate-toolkit)")
	return ""
}

// toolkitRead reads files with translate-toolkit.
func toolkitRead(tb testing.TB, py string, paths ...string) map[string][]toolkitUnit {
	tb.Helper()
	dir := tb.TempDir()
	script := filepath.Join(dir, "read.py")
	if err := os.WriteFile(script, []byte(toolkitScript), 0o600); err != nil {
		tb.Fatal(err)
	}
	outPath := filepath.Join(dir, "out.json")
	cmd := exec.Command(py, append([]string{script, outPath}, paths...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("translate-toolkit: %v\n%s", err, out)
	}
	data, err := os.ReadFile(outPath)
	if err != nil {
		tb.Fatal(err)
	}
	var raw map[string][][3]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		tb.Fatal(err)
	}
	res := make(map[string][]toolkitUnit, len(raw))
	for p, units := range raw {
		for _, u := range units {
			var tu toolkitUnit
			if json.Unmarshal(u[0], &tu.id) != nil || json.Unmarshal(u[1], &tu.values) != nil || json.Unmarshal(u[2], &tu.translatable) != nil {
				tb.Fatalf("bad translate-toolkit output for %s", p)
			}
			res[p] = append(res[p], tu)
		}
	}
	return res
}

// ourValues gives a unit's values by quantity, as toolkitUnit has them.
func ourValues(u formats.Unit, cats []string) map[string]string {
	if len(u.Target) == 1 && len(cats) != 1 {
		return map[string]string{"": u.Target[0]}
	}
	m := map[string]string{}
	for i, c := range cats {
		if i < len(u.Target) && u.Target[i] != "" {
			m[c] = u.Target[i]
		}
	}
	return m
}

// sameAsToolkit compares a unit with translate-toolkit's reading of it.
// translate-toolkit 3.8.4, the Debian package, drops the space that a
// line break in the XML leaves before a \n escape ("a.\n\\nb" reads
// "a.\nb"); its current version, which the reference runs and this
// package follows, keeps it ("a. \nb"), so the comparison ignores a
// space before a newline.
func sameAsToolkit(u formats.Unit, cats []string, tk toolkitUnit) bool {
	norm := func(s string) string { return strings.ReplaceAll(s, " \n", "\n") }
	ours := map[string]string{}
	if _, isString := tk.values[""]; isString && len(u.Target) == 1 {
		ours[""] = norm(u.Target[0])
	} else {
		for k, v := range ourValues(u, cats) {
			ours[k] = norm(v)
		}
	}
	theirs := map[string]string{}
	for k, v := range tk.values {
		if k != "" && !slices.Contains(cats, k) {
			continue // a category the language does not have
		}
		theirs[k] = norm(v)
	}
	return maps.Equal(ours, theirs) && tk.translatable == !slices.Contains(u.Flags, "read-only")
}

// TestToolkitReadsCorpus checks that every unit of the corpus reads as
// translate-toolkit reads it.
func TestToolkitReadsCorpus(t *testing.T) {
	py := toolkitPython(t)
	files := corpusFiles(t)
	var paths []string
	for _, c := range files {
		paths = append(paths, c.path)
	}
	tk := toolkitRead(t, py, paths...)
	for _, c := range files {
		f := fileFor(c)
		ours := mustDecode(t, c.data, f)
		theirs := tk[c.path]
		if len(ours) != len(theirs) {
			t.Errorf("%s: %d units, translate-toolkit reads %d", c.path, len(ours), len(theirs))
			continue
		}
		for i, u := range ours {
			if u.Context != theirs[i].id || !sameAsToolkit(u, f.Target.Plurals, theirs[i]) {
				t.Errorf("%s: %s reads %q, translate-toolkit reads %s %q", c.path, u.Context, u.Target, theirs[i].id, theirs[i].values)
			}
		}
	}
}

// TestToolkitReadsOurOutput edits and adds strings and plurals in every
// corpus file, and checks that translate-toolkit parses the output and
// reads every unit as Decode does.
func TestToolkitReadsOurOutput(t *testing.T) {
	py := toolkitPython(t)
	targets := []string{
		"It's \"quoted\" @home",
		"  spaced  out ",
		"line1\nline2\ttab",
		"<b>bold</b> & 'more'",
		"50% \\ backslash? <i>yes</i>",
		"@string/not_a_reference",
		"ü € 😀 a\u00a0:",
		"?question",
	}
	dir := t.TempDir()
	files := corpusFiles(t)
	var paths []string
	outputs := map[string][]byte{}
	edited := map[string][]formats.Edit{}
	for n, c := range files {
		f := fileFor(c)
		units := mustDecode(t, c.data, f)
		var edits []formats.Edit
		for i, target := range targets {
			ctx := "tolk_new_" + strconv.Itoa(i)
			if len(units) > 0 && i%2 == 0 {
				j := (i * len(units)) / len(targets)
				for j < len(units)-1 && len(units[j].Target) > 1 {
					j++ // a string, not a plural
				}
				ctx = units[j].Context
			}
			edits = append(edits, formats.Edit{Context: ctx, Target: []string{target}})
		}
		forms := make([]string, len(f.Target.Plurals))
		for i, cat := range f.Target.Plurals {
			forms[i] = "%d \"" + cat + "\""
		}
		edits = append(edits, formats.Edit{Context: "tolk_plural", Target: forms, Plural: true})
		out := mustApply(t, c.data, f, edits...)
		p := filepath.Join(dir, strconv.Itoa(n)+".xml")
		if err := os.WriteFile(p, out, 0o600); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
		outputs[p] = out
		edited[p] = edits
	}
	tk := toolkitRead(t, py, paths...)
	for n, c := range files {
		p := paths[n]
		f := fileFor(c)
		ours := mustDecode(t, outputs[p], f)
		got := byContext(ours)
		for _, e := range edited[p] {
			if u := got[e.Context]; !slices.Equal(u.Target, e.Target) {
				t.Errorf("%s: %s reads %q after writing %q", c.path, e.Context, u.Target, e.Target)
			}
		}
		theirs := tk[p]
		if len(ours) != len(theirs) {
			t.Errorf("%s: %d units, translate-toolkit reads %d", c.path, len(ours), len(theirs))
			continue
		}
		for i, u := range ours {
			if u.Context != theirs[i].id || !sameAsToolkit(u, f.Target.Plurals, theirs[i]) {
				t.Errorf("%s: %s reads %q, translate-toolkit reads %s %q", c.path, u.Context, u.Target, theirs[i].id, theirs[i].values)
			}
		}
	}
}
