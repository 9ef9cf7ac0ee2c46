package tbx

import (
	"strings"
	"testing"

	"github.com/tolk-project/tolk/formats"
)

// TestCodec checks the Codec over the TBX calls: a term the file lacks
// is added (untranslated too), an edit changes only its term's text, and
// Remove takes out the entry a key names.
func TestCodec(t *testing.T) {
	f := formats.File{Source: formats.Language{Code: "en"}, Target: formats.Language{Code: "de"}}
	var c Codec
	data, err := c.Apply(nil, f, []formats.Edit{
		{Context: "1", Source: []string{"file"}, Target: []string{"Datei"}},
		{Context: "", Source: []string{"folder"}, Target: []string{""}},
	})
	if err != nil {
		t.Fatal(err)
	}
	units, err := c.Decode(data, f)
	if err != nil {
		t.Fatal(err)
	}
	if len(units) != 2 || units[0].Source[0] != "file" || units[0].Target[0] != "Datei" ||
		units[1].Source[0] != "folder" || units[1].Target[0] != "" {
		t.Fatalf("units of a new file: %+v\n%s", units, data)
	}
	edited, err := c.Apply(data, f, []formats.Edit{{Context: "1", Source: []string{"file"}, Target: []string{"Akte"}}})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Replace(string(edited), "Akte", "Datei", 1); got != string(data) {
		t.Errorf("edit changed more than the term:\n%s\nwas\n%s", edited, data)
	}
	removed, err := c.Remove(edited, f, []formats.Key{{Context: "1", Source: "file"}, {Context: "9", Source: "nothing"}})
	if err != nil {
		t.Fatal(err)
	}
	if units, err := c.Decode(removed, f); err != nil || len(units) != 1 || units[0].Source[0] != "folder" {
		t.Errorf("after Remove: %+v, %v\n%s", units, err, removed)
	}
	if out, err := c.Remove(nil, f, []formats.Key{{Source: "file"}}); out != nil || err != nil {
		t.Errorf("Remove(nil) = %q, %v", out, err)
	}
	if _, err := c.Decode([]byte("<martif"), f); err == nil {
		t.Error("Decode of malformed TBX: no error")
	}
}
