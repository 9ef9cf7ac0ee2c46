package json

import (
	"bytes"
	"reflect"
	"strings"
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

// TestCodecApplyV3 checks how Apply writes i18next v3 plurals: a unit in
// the shape of another language's plurals ("key"/"key_plural" in a
// Russian file, "key_0"… in a German one) is moved to the keys the
// language uses, as the reference's rewrite does, and everything else in
// the file keeps its bytes.
func TestCodecApplyV3(t *testing.T) {
	russian := formats.Language{Code: "ru", Plurals: []string{"one", "few", "many"}}
	ru := mustRead(t, "testdata/i18next/ru.json")
	for _, tc := range []struct {
		name  string
		data  string
		lang  formats.Language
		edits []formats.Edit
		want  string
	}{
		{"ru: two-form shape becomes numbered", string(ru), russian,
			[]formats.Edit{{Context: "files", Plural: true, Target: []string{"{{count}} файл", "{{count}} файла", "{{count}} файлов"}}},
			strings.NewReplacer("    \"files\": \"{{count}} файл\",\n    \"files_plural\": \"{{count}} файлов\",\n", "",
				"\"{{count}} дней назад\"\n}\n", "\"{{count}} дней назад\",\n    \"files_0\": \"{{count}} файл\",\n    \"files_1\": \"{{count}} файла\",\n    \"files_2\": \"{{count}} файлов\"\n}\n",
			).Replace(string(ru))},
		{"de: numbered shape becomes key/key_plural", "{\n  \"a\": \"A\",\n  \"n_0\": \"eins\",\n  \"n_1\": \"viele\",\n  \"z\": \"Z\"\n}\n", english,
			[]formats.Edit{{Context: "n", Plural: true, Target: []string{"ein", "viele"}}},
			"{\n  \"a\": \"A\",\n  \"z\": \"Z\",\n  \"n\": \"ein\",\n  \"n_plural\": \"viele\"\n}\n"},
		{"ru: singular key of a new plural is dropped", "{\n  \"n\": \"old\"\n}\n", russian,
			[]formats.Edit{{Context: "n", Plural: true, Target: []string{"a", "", "c"}}},
			// The object is left empty in between, so the writer's default
			// indentation applies (File.Encode).
			"{\n    \"n_0\": \"a\",\n    \"n_2\": \"c\"\n}\n"},
		{"en: first form written empty", "{\n  \"a\": \"A\"\n}\n", english,
			[]formats.Edit{{Context: "n", Plural: true, Target: []string{"", "{{count}} items"}}},
			"{\n  \"a\": \"A\",\n  \"n\": \"\",\n  \"n_plural\": \"{{count}} items\"\n}\n"},
		{"en: blank and absent", "{\n  \"a\": \"A\"\n}\n", english,
			[]formats.Edit{{Context: "n", Plural: true, Target: []string{"", ""}}},
			"{\n  \"a\": \"A\"\n}\n"},
		{"en: singular edit keeps plural shape", "{\"n\": \"x\", \"n_plural\": \"xs\"}", english,
			[]formats.Edit{{Context: "n", Target: []string{"y"}}},
			"{\"n\": \"y\", \"n_plural\": \"\"}"},
		{"new file", "", russian,
			[]formats.Edit{{Context: "n", Plural: true, Target: []string{"a", "b", "c"}}},
			"{\n    \"n_0\": \"a\",\n    \"n_1\": \"b\",\n    \"n_2\": \"c\"\n}\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var data []byte
			if tc.data != "" {
				data = []byte(tc.data)
			}
			f := formats.File{Source: english, Target: tc.lang}
			got, err := Codec{I18nextV3}.Apply(data, f, tc.edits)
			if err != nil || string(got) != tc.want {
				t.Fatalf("Apply = %v\n%s\nwant\n%s", err, got, tc.want)
			}
			// The edits read back, and applying them again changes nothing.
			units, err := Codec{I18nextV3}.Decode(got, f)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range tc.edits {
				if blank(e.Target) {
					continue
				}
				var back []string
				for _, u := range units {
					if u.Context == e.Context {
						back = u.Target
					}
				}
				if e.Plural && !reflect.DeepEqual(back, e.Target) {
					t.Errorf("%s reads back %q, want %q", e.Context, back, e.Target)
				}
			}
			if again, err := (Codec{I18nextV3}).Apply(got, f, tc.edits); err != nil || !bytes.Equal(again, got) {
				t.Errorf("not idempotent: %v\n%s", err, again)
			}
		})
	}
}

// TestCodecEmptiedV3 checks the file of a new i18next v3 translation: a
// German one keeps the English template's "key"/"key_plural", emptied; a
// Russian one drops them, since its forms are "key_0"… and are added as
// they are translated.
func TestCodecEmptiedV3(t *testing.T) {
	template := "{\n  \"title\": \"Inbox\",\n  \"n\": {\n    \"unread\": \"{{count}} message\",\n    \"unread_plural\": \"{{count}} messages\",\n    \"step_1\": \"Open\"\n  }\n}\n"
	russian := formats.Language{Code: "ru", Plurals: []string{"one", "few", "many"}}
	german := formats.Language{Code: "de", Plurals: []string{"one", "other"}}
	for _, tc := range []struct {
		lang formats.Language
		want string
	}{
		{german, "{\n  \"title\": \"\",\n  \"n\": {\n    \"unread\": \"\",\n    \"unread_plural\": \"\",\n    \"step_1\": \"\"\n  }\n}\n"},
		{russian, "{\n  \"title\": \"\",\n  \"n\": {\n    \"step_1\": \"\"\n  }\n}\n"},
	} {
		got, err := Codec{I18nextV3}.Emptied([]byte(template), formats.File{Source: english, Target: tc.lang})
		if err != nil || string(got) != tc.want {
			t.Errorf("Emptied(%s) = %q, %v; want %q", tc.lang.Code, got, err, tc.want)
		}
	}
}

// TestCodecRemoveV3 checks that removing an i18next v3 plural unit takes
// all its keys, in either shape, and nothing else.
func TestCodecRemoveV3(t *testing.T) {
	src := []byte("{\n  \"a\": \"A\",\n  \"n\": \"1\",\n  \"n_plural\": \"2\",\n  \"m_0\": \"0\",\n  \"m_2\": \"2\",\n  \"m_x\": \"x\",\n  \"z\": \"Z\"\n}\n")
	f := formats.File{Source: english, Target: czech}
	got, err := Codec{I18nextV3}.Remove(src, f, []formats.Key{{Context: "n"}, {Context: "m"}})
	want := "{\n  \"a\": \"A\",\n  \"m_x\": \"x\",\n  \"z\": \"Z\"\n}\n"
	if err != nil || string(got) != want {
		t.Errorf("Remove = %q, %v; want %q", got, err, want)
	}
}
