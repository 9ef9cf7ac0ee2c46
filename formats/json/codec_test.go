package json

import (
	"bytes"
	"testing"

	"github.com/tolk-project/tolk/formats"
)

var (
	english  = formats.Language{Code: "en", Plurals: []string{"one", "other"}}
	czech    = formats.Language{Code: "cs", Plurals: []string{"one", "few", "other"}}
	japanese = formats.Language{Code: "ja", Plurals: []string{"other"}}
)

// TestCodecEmptied checks the file a new translation starts from: the
// template with every string emptied, a plural unit's keys kept for the
// categories the new language uses and dropped for the others. (It was
// sync's TestEmptiedJSON before the logic moved behind Codec.)
func TestCodecEmptied(t *testing.T) {
	i18next := "{\n  \"title\": \"Inbox\",\n  \"n\": {\n    \"unread_one\": \"{{count}} message\",\n    \"unread_other\": \"{{count}} messages\"\n  }\n}\n"
	goi18n := "{\n  \"Emails\": {\n    \"description\": \"Unread\",\n    \"one\": \"{{.Count}} email\",\n    \"other\": \"{{.Count}} emails\"\n  }\n}\n"
	for _, tc := range []struct {
		name     string
		dialect  Dialect
		template string
		lang     formats.Language
		want     string
	}{
		{"i18nextv4/cs", I18nextV4, i18next, czech, "{\n  \"title\": \"\",\n  \"n\": {\n    \"unread_one\": \"\",\n    \"unread_other\": \"\"\n  }\n}\n"},
		{"i18nextv4/ja", I18nextV4, i18next, japanese, "{\n  \"title\": \"\",\n  \"n\": {\n    \"unread_other\": \"\"\n  }\n}\n"},
		{"go-i18n-json/ja", GoI18n, goi18n, japanese, "{\n  \"Emails\": {\n    \"description\": \"Unread\",\n    \"other\": \"\"\n  }\n}\n"},
		{"json/ja", Plain, "{\"a\": \"A\", \"b_one\": \"B\"}", japanese, "{\"a\": \"\", \"b_one\": \"\"}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Codec{tc.dialect}.Emptied([]byte(tc.template), formats.File{Source: english, Target: tc.lang})
			if err != nil || string(got) != tc.want {
				t.Errorf("Emptied = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

// TestCodecApply checks what Apply leaves out rather than failing, and
// that nil data is a new file.
func TestCodecApply(t *testing.T) {
	src := []byte("{\n  \"a\": \"A\",\n  \"obj\": {\"x\": \"X\"}\n}\n")
	f := formats.File{Source: english, Target: czech}
	for _, tc := range []struct {
		name  string
		data  []byte
		edits []formats.Edit
		want  string
	}{
		{"no edits", src, nil, string(src)},
		{"edit", src, []formats.Edit{{Context: "a", Target: []string{"Á"}}}, "{\n  \"a\": \"Á\",\n  \"obj\": {\"x\": \"X\"}\n}\n"},
		{"untranslated and absent", src, []formats.Edit{{Context: "b", Target: []string{""}}}, string(src)},
		{"emptied but present", src, []formats.Edit{{Context: "a", Target: []string{""}}}, "{\n  \"a\": \"\",\n  \"obj\": {\"x\": \"X\"}\n}\n"},
		{"object is not a string", src, []formats.Edit{{Context: "obj", Target: []string{"O"}}}, string(src)},
		{"new file", nil, []formats.Edit{{Context: "a", Target: []string{"A"}}}, "{\n    \"a\": \"A\"\n}\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Codec{Plain}.Apply(tc.data, f, tc.edits)
			if err != nil || string(got) != tc.want {
				t.Errorf("Apply = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

// TestCodecRemove checks that removing an i18next plural unit takes
// every one of its keys, which needs a decode after each removal.
func TestCodecRemove(t *testing.T) {
	src := []byte("{\n  \"a\": \"A\",\n  \"n_one\": \"1\",\n  \"n_few\": \"2\",\n  \"n_other\": \"3\",\n  \"z\": \"Z\"\n}\n")
	f := formats.File{Source: english, Target: czech}
	got, err := Codec{I18nextV4}.Remove(src, f, []formats.Key{{Context: "n"}, {Context: "missing"}})
	want := "{\n  \"a\": \"A\",\n  \"z\": \"Z\"\n}\n"
	if err != nil || string(got) != want {
		t.Errorf("Remove = %q, %v; want %q", got, err, want)
	}
	if got, err := (Codec{Plain}).Remove(nil, f, []formats.Key{{Context: "a"}}); got != nil || err != nil {
		t.Errorf("Remove(nil) = %q, %v; want nil", got, err)
	}
	if _, err := (Codec{Plain}).Remove([]byte("{"), f, []formats.Key{{Context: "a"}}); err == nil {
		t.Error("Remove of malformed JSON: no error")
	}
	if !bytes.Equal(src, mustRemove(t, src, f, nil)) {
		t.Error("Remove of nothing changed the file")
	}
}

func mustRemove(t *testing.T, data []byte, f formats.File, keys []formats.Key) []byte {
	t.Helper()
	out, err := Codec{I18nextV4}.Remove(data, f, keys)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
