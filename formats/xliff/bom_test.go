package xliff

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/formats"
)

// TestBOM reads a file that starts with a UTF-8 byte order mark and
// writes it back with the mark.
func TestBOM(t *testing.T) {
	data := []byte("\ufeff" + doc12)
	units := mustDecode(t, XLIFF, data, de())
	if len(units) != 6 || units[0].Line != 5 {
		t.Fatalf("%d units, first on line %d", len(units), units[0].Line)
	}
	ed := editOf("hello", "Servus")
	ed.Approved = true
	out := string(mustApply(t, XLIFF, data, de(), ed))
	if out[:3] != "\ufeff" || len(out) != len(data)+1 {
		t.Errorf("BOM lost or more changed: %q", out[:40])
	}
}

// TestCRLF keeps a CRLF file's line endings when a target and a unit are
// added and a unit is removed.
func TestCRLF(t *testing.T) {
	data := []byte(strings.ReplaceAll(doc12, "\n", "\r\n"))
	out := mustApply(t, XLIFF, data, de(),
		formats.Edit{Context: "app.txt///3", Target: []string{"Logo"}},
		formats.Edit{Context: "new", Source: []string{"New"}, Target: []string{"Neu"}})
	out = mustRemove(t, XLIFF, out, formats.Key{Context: "hello"})
	if bytes.Count(out, []byte("\n")) != bytes.Count(out, []byte("\r\n")) {
		t.Errorf("a bare LF in a CRLF file:\n%q", out)
	}
	units := byContext(t, mustDecode(t, XLIFF, out, de()))
	if units["app.txt///3"].Target[0] != "Logo" || units["new"].Target[0] != "Neu" || len(units) != 6 {
		t.Errorf("reads %+v", units)
	}
}
