package json

import (
	"bytes"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/formats"
)

// Plural categories of the test languages, as index.Language gives them.
var (
	catsJA = []string{"other"}
	catsEN = []string{"one", "other"}
	catsCS = []string{"one", "few", "other"}
	catsRU = []string{"one", "few", "many"}
	catsAR = []string{"zero", "one", "two", "few", "many", "other"}
)

func mustDecodeDialect(tb testing.TB, path string, d Dialect, cats []string) (*File, []byte) {
	tb.Helper()
	data := mustRead(tb, filepath.Join("testdata", path))
	f := mustDecode(tb, data)
	f.Dialect, f.Plurals = d, cats
	return f, data
}

type dialectUnit struct {
	ctx    string
	target []string
	note   string
}

func dialectUnits(f *File) []dialectUnit {
	var out []dialectUnit
	for _, u := range f.Units() {
		out = append(out, dialectUnit{u.Context, u.Target, u.Note})
	}
	return out
}

// TestDialectUnits reads the testdata files of each dialect, checks
// their units (plural forms in the language's order, missing forms
// empty, forms of categories the language lacks ignored, descriptions as
// notes) and that they round-trip byte for byte.
func TestDialectUnits(t *testing.T) {
	tests := []struct {
		path    string
		dialect Dialect
		cats    []string
		want    []dialectUnit
		// reshapes: a unit's keys are not the ones the language uses,
		// so writing it moves it to them (TestCodecApplyV3).
		reshapes bool
	}{
		{"i18nextv4/en.json", I18nextV4, catsEN, []dialectUnit{
			{"app.title", []string{"Inbox"}, ""},
			{"app.greeting", []string{"Hello, {{name}}!"}, ""},
			{"messages.unread", []string{"You have {{count}} unread message", "You have {{count}} unread messages"}, ""},
			{"messages.empty", []string{"No messages"}, ""},
			{"files", []string{"{{count}} file", "{{count}} files"}, ""},
			{"days", []string{"{{count}} day ago", "{{count}} days ago"}, ""},
		}, false},
		// Czech has three forms in the language table; "_many" (CLDR's
		// fractions) is not one of them, so it is left out.
		{"i18nextv4/cs.json", I18nextV4, catsCS, []dialectUnit{
			{"app.title", []string{"Doručená pošta"}, ""},
			{"app.greeting", []string{"Ahoj, {{name}}!"}, ""},
			{"messages.unread", []string{"Máte {{count}} nepřečtenou zprávu", "Máte {{count}} nepřečtené zprávy", "Máte {{count}} nepřečtených zpráv"}, ""},
			{"messages.empty", []string{"Žádné zprávy"}, ""},
			{"files", []string{"{{count}} soubor", "{{count}} soubory", "{{count}} souborů"}, ""},
		}, false},
		{"i18nextv4/ja.json", I18nextV4, catsJA, []dialectUnit{
			{"app.title", []string{"受信トレイ"}, ""},
			{"messages.unread", []string{"未読メッセージが{{count}}件あります"}, ""},
			{"files", []string{"{{count}}個のファイル"}, ""},
		}, false},
		{"i18nextv4/ar.json", I18nextV4, catsAR, []dialectUnit{
			{"messages.unread", []string{"ليس لديك رسائل غير مقروءة", "لديك رسالة واحدة غير مقروءة", "لديك رسالتان غير مقروءتين",
				"لديك {{count}} رسائل غير مقروءة", "لديك {{count}} رسالة غير مقروءة", "لديك {{count}} رسالة غير مقروءة"}, ""},
		}, false},
		// i18next v3: "key"/"key_plural" in two-form languages, whichever
		// comes first (de.json has "unread_plural" first); "step_1"
		// without "step_0" is a unit of its own.
		{"i18next/en.json", I18nextV3, catsEN, []dialectUnit{
			{"app.title", []string{"Inbox"}, ""},
			{"app.greeting", []string{"Hello, {{name}}!"}, ""},
			{"messages.unread", []string{"You have {{count}} unread message", "You have {{count}} unread messages"}, ""},
			{"messages.empty", []string{"No messages"}, ""},
			{"files", []string{"{{count}} file", "{{count}} files"}, ""},
			{"days", []string{"{{count}} day ago", "{{count}} days ago"}, ""},
			{"step_1", []string{"Open the settings"}, ""},
		}, false},
		{"i18next/de.json", I18nextV3, catsEN, []dialectUnit{
			{"app.title", []string{"Posteingang"}, ""},
			{"messages.unread", []string{"Sie haben {{count}} ungelesene Nachricht", "Sie haben {{count}} ungelesene Nachrichten"}, ""},
			{"files", []string{"{{count}} Datei", "{{count}} Dateien"}, ""},
		}, false},
		// Numbered forms in Russian; "files" is still in the two-form
		// shape, read form by form as the reference does (its third form
		// is missing); "days_1" is missing and leaves form 1 empty.
		{"i18next/ru.json", I18nextV3, catsRU, []dialectUnit{
			{"app.title", []string{"Входящие"}, ""},
			{"app.greeting", []string{"Привет, {{name}}!"}, ""},
			{"messages.unread", []string{"У вас {{count}} непрочитанное сообщение", "У вас {{count}} непрочитанных сообщения", "У вас {{count}} непрочитанных сообщений"}, ""},
			{"messages.empty", []string{"Нет сообщений"}, ""},
			{"files", []string{"{{count}} файл", "{{count}} файлов", ""}, ""},
			{"days", []string{"{{count}} день назад", "", "{{count}} дней назад"}, ""},
		}, true},
		{"i18next/ar.json", I18nextV3, catsAR, []dialectUnit{
			{"messages.unread", []string{"ليس لديك رسائل غير مقروءة", "لديك رسالة واحدة غير مقروءة", "لديك رسالتان غير مقروءتين",
				"لديك {{count}} رسائل غير مقروءة", "لديك {{count}} رسالة غير مقروءة", "لديك {{count}} رسالة غير مقروءة"}, ""},
		}, false},
		// A two-form file read for a one-form language keeps its first
		// form only.
		{"i18next/de.json", I18nextV3, catsJA, []dialectUnit{
			{"app.title", []string{"Posteingang"}, ""},
			{"messages.unread", []string{"Sie haben {{count}} ungelesene Nachricht"}, ""},
			{"files", []string{"{{count}} Datei"}, ""},
		}, true},
		{"go-i18n/en.json", GoI18n, catsEN, []dialectUnit{
			{"HelloPerson", []string{"Hello {{.Name}}"}, ""},
			{"MyUnreadEmails", []string{"I have {{.PluralCount}} unread email", "I have {{.PluralCount}} unread emails"}, "The number of unread emails I have"},
			{"PersonUnreadEmails", []string{"{{.Name}} has {{.UnreadEmailCount}} unread email", "{{.Name}} has {{.UnreadEmailCount}} unread emails"}, "The number of unread emails a person has"},
			{"Settings", []string{"Settings"}, "The title of the settings page"},
		}, false},
		{"go-i18n/cs.json", GoI18n, catsCS, []dialectUnit{
			{"HelloPerson", []string{"Ahoj {{.Name}}"}, ""},
			{"MyUnreadEmails", []string{"Mám {{.PluralCount}} nepřečtený e-mail", "Mám {{.PluralCount}} nepřečtené e-maily", "Mám {{.PluralCount}} nepřečtených e-mailů"}, "The number of unread emails I have"},
			{"Settings", []string{"Nastavení"}, ""},
		}, false},
		{"webextension/_locales/en/messages.json", WebExtension, catsEN, []dialectUnit{
			{"extensionName", []string{"Tab Counter"}, "Name of the extension."},
			{"extensionDescription", []string{"Counts the open tabs of every window."}, "Description of the extension."},
			{"tabCount", []string{"$COUNT$ tabs open in $WINDOW$"}, "Badge tooltip."},
		}, false},
		{"webextension/_locales/de/messages.json", WebExtension, catsEN, []dialectUnit{
			{"extensionName", []string{"Tab-Zähler"}, "Name of the extension."},
			{"tabCount", []string{"$COUNT$ Tabs offen in $WINDOW$"}, ""},
		}, false},
	}
	for _, tc := range tests {
		t.Run(tc.path+"/"+strings.Join(tc.cats, ","), func(t *testing.T) {
			t.Parallel()
			f, data := mustDecodeDialect(t, tc.path, tc.dialect, tc.cats)
			if got := dialectUnits(f); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("units\n got %q\nwant %q", got, tc.want)
			}
			if f.Len() != len(tc.want) {
				t.Errorf("Len() = %d, want %d", f.Len(), len(tc.want))
			}
			if out := mustEncode(t, f); !bytes.Equal(out, data) {
				t.Errorf("round trip differs")
			}
			if tc.reshapes {
				return
			}
			// Setting every unit to what it holds changes nothing.
			var same []formats.Edit
			for _, u := range f.Units() {
				same = append(same, formats.Edit{Context: u.Context, Target: u.Target, Plural: len(u.Target) > 1})
			}
			if out := mustEncode(t, f, same...); !bytes.Equal(out, data) {
				t.Errorf("unchanged values rewrite the file:\n%s", out)
			}
		})
	}
}

// TestDialectEdits checks that editing one plural form changes only that
// form's bytes, and that a form, a plural unit or a message the file
// lacks is inserted in the file's style.
func TestDialectEdits(t *testing.T) {
	tests := []struct {
		name    string
		path    string
		dialect Dialect
		cats    []string
		edit    formats.Edit
		old     string // the bytes the edit replaces; "" for an insertion
		new     string // what replaces them, or what is inserted after anchor
		anchor  string
	}{
		{"i18next: one form", "i18nextv4/cs.json", I18nextV4, catsCS,
			formats.Edit{Context: "messages.unread", Plural: true, Target: []string{"Máte {{count}} nepřečtenou zprávu", "Máte {{count}} nové zprávy", "Máte {{count}} nepřečtených zpráv"}},
			`"Máte {{count}} nepřečtené zprávy",` + "\n    \"unread_many\"", `"Máte {{count}} nové zprávy",` + "\n    \"unread_many\"", ""},
		{"i18next: missing form inserted", "i18nextv4/cs.json", I18nextV4, catsCS,
			formats.Edit{Context: "days", Plural: true, Target: []string{"před {{count}} dnem", "před {{count}} dny", "před {{count}} dny"}},
			"", ",\n  \"days_one\": \"před {{count}} dnem\",\n  \"days_few\": \"před {{count}} dny\",\n  \"days_other\": \"před {{count}} dny\"", `"{{count}} souborů"`},
		{"i18next: form of one-form language", "i18nextv4/ja.json", I18nextV4, catsJA,
			formats.Edit{Context: "days", Plural: true, Target: []string{"{{count}}日前"}},
			"", ",\n  \"days_other\": \"{{count}}日前\"", `"{{count}}個のファイル"`},
		{"i18next: one-line file", "i18nextv4/de.json", I18nextV4, catsEN,
			formats.Edit{Context: "days", Plural: true, Target: []string{"vor {{count}} Tag", "vor {{count}} Tagen"}},
			"", `, "days_one": "vor {{count}} Tag", "days_other": "vor {{count}} Tagen"`, `"{{count}} Dateien"`},
		{"i18next v3: one numbered form", "i18next/ru.json", I18nextV3, catsRU,
			formats.Edit{Context: "messages.unread", Plural: true, Target: []string{"У вас {{count}} непрочитанное сообщение", "У вас {{count}} новых сообщения", "У вас {{count}} непрочитанных сообщений"}},
			`"У вас {{count}} непрочитанных сообщения"`, `"У вас {{count}} новых сообщения"`, ""},
		{"i18next v3: _plural form", "i18next/en.json", I18nextV3, catsEN,
			formats.Edit{Context: "files", Plural: true, Target: []string{"{{count}} file", "{{count}} documents"}},
			`"{{count}} files"`, `"{{count}} documents"`, ""},
		{"i18next v3: _plural before its key", "i18next/de.json", I18nextV3, catsEN,
			formats.Edit{Context: "messages.unread", Plural: true, Target: []string{"Eine neue Nachricht", "Sie haben {{count}} ungelesene Nachrichten"}},
			`"Sie haben {{count}} ungelesene Nachricht"`, `"Eine neue Nachricht"`, ""},
		{"i18next v3: new plural, two forms", "i18next/de.json", I18nextV3, catsEN,
			formats.Edit{Context: "days", Plural: true, Target: []string{"vor {{count}} Tag", "vor {{count}} Tagen"}},
			"", `, "days": "vor {{count}} Tag", "days_plural": "vor {{count}} Tagen"`, `"{{count}} Dateien"`},
		{"i18next v3: new plural, Arabic, empty forms left out", "i18next/ar.json", I18nextV3, catsAR,
			formats.Edit{Context: "messages.files", Plural: true, Target: []string{"لا ملفات", "", "ملفان", "", "", "{{count}} ملف"}},
			"", ",\n\t\t\"files_0\": \"لا ملفات\",\n\t\t\"files_2\": \"ملفان\",\n\t\t\"files_5\": \"{{count}} ملف\"", `"لديك {{count}} رسالة غير مقروءة"`},
		{"i18next v3: gap filled", "i18next/ru.json", I18nextV3, catsRU,
			formats.Edit{Context: "days", Plural: true, Target: []string{"{{count}} день назад", "{{count}} дня назад", "{{count}} дней назад"}},
			"", ",\n    \"days_1\": \"{{count}} дня назад\"", `"{{count}} дней назад"`},
		{"go-i18n: one form", "go-i18n/cs.json", GoI18n, catsCS,
			formats.Edit{Context: "MyUnreadEmails", Plural: true, Target: []string{"Mám {{.PluralCount}} nepřečtený e-mail", "Mám {{.PluralCount}} nové e-maily", "Mám {{.PluralCount}} nepřečtených e-mailů"}},
			`"Mám {{.PluralCount}} nepřečtené e-maily"`, `"Mám {{.PluralCount}} nové e-maily"`, ""},
		{"go-i18n: new plural message", "go-i18n/cs.json", GoI18n, catsCS,
			formats.Edit{Context: "PersonUnreadEmails", Plural: true, Target: []string{"{{.Name}} má {{.UnreadEmailCount}} e-mail", "", "{{.Name}} má {{.UnreadEmailCount}} e-mailů"}},
			"", ",\n  \"PersonUnreadEmails\": {\n    \"one\": \"{{.Name}} má {{.UnreadEmailCount}} e-mail\",\n    \"other\": \"{{.Name}} má {{.UnreadEmailCount}} e-mailů\"\n  }", "\"Nastavení\"\n  }"},
		{"go-i18n: other of a plain message", "go-i18n/cs.json", GoI18n, catsCS,
			formats.Edit{Context: "Settings", Target: []string{"Volby"}}, `"Nastavení"`, `"Volby"`, ""},
		{"webextension: message", "webextension/_locales/de/messages.json", WebExtension, catsEN,
			formats.Edit{Context: "tabCount", Target: []string{"$COUNT$ Tabs in $WINDOW$"}}, `"$COUNT$ Tabs offen in $WINDOW$"`, `"$COUNT$ Tabs in $WINDOW$"`, ""},
		{"webextension: new message", "webextension/_locales/de/messages.json", WebExtension, catsEN,
			formats.Edit{Context: "extensionDescription", Target: []string{"Zählt die offenen Tabs."}},
			"", ",\n  \"extensionDescription\": {\n    \"message\": \"Zählt die offenen Tabs.\"\n  }", "}\n    }\n  }"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f, data := mustDecodeDialect(t, tc.path, tc.dialect, tc.cats)
			out := mustEncode(t, f, tc.edit)
			var want string
			if tc.old != "" {
				if strings.Count(string(data), tc.old) != 1 {
					t.Fatalf("%q is not once in %s", tc.old, tc.path)
				}
				want = strings.Replace(string(data), tc.old, tc.new, 1)
			} else {
				i := strings.LastIndex(string(data), tc.anchor)
				if i < 0 {
					t.Fatalf("anchor %q not in %s", tc.anchor, tc.path)
				}
				i += len(tc.anchor)
				want = string(data[:i]) + tc.new + string(data[i:])
			}
			if string(out) != want {
				t.Fatalf("got\n%s\nwant\n%s", out, want)
			}
			// The edit reads back, and writing it again changes nothing.
			g := mustDecode(t, out)
			g.Dialect, g.Plurals = tc.dialect, tc.cats
			var got []string
			for _, u := range g.Units() {
				if u.Context == tc.edit.Context {
					got = u.Target
				}
			}
			if !reflect.DeepEqual(got, tc.edit.Target) {
				t.Errorf("reads back %q, want %q", got, tc.edit.Target)
			}
			if again := mustEncode(t, g, tc.edit); !bytes.Equal(again, out) {
				t.Errorf("not idempotent:\n%s", again)
			}
		})
	}
}

// TestDialectEditErrors checks that a plural edit with the wrong number
// of forms for the file's language is refused.
func TestDialectEditErrors(t *testing.T) {
	f, _ := mustDecodeDialect(t, "i18nextv4/cs.json", I18nextV4, catsCS)
	var out bytes.Buffer
	err := f.Encode(&out, []formats.Edit{{Context: "files", Plural: true, Target: []string{"a", "b"}}})
	if err == nil || !strings.Contains(err.Error(), "2 plural forms") {
		t.Fatalf("Encode = %v, want a plural-count error", err)
	}
}

// TestDialectMembers checks which members hold a unit, for removal.
func TestDialectMembers(t *testing.T) {
	f, _ := mustDecodeDialect(t, "i18nextv4/cs.json", I18nextV4, catsCS)
	if got, want := f.Members("messages.unread"), []string{"messages.unread_one", "messages.unread_few", "messages.unread_many", "messages.unread_other"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Members = %q, want %q", got, want)
	}
	if got := f.Members("app.title"); !reflect.DeepEqual(got, []string{"app.title"}) {
		t.Errorf("Members(app.title) = %q", got)
	}
	if got := f.Members("nope"); got != nil {
		t.Errorf("Members(nope) = %q", got)
	}
}

func TestDialectOf(t *testing.T) {
	for name, want := range map[string]Dialect{"json": Plain, "i18next": I18nextV3, "i18nextv4": I18nextV4, "go-i18n-json": GoI18n,
		"go-i18n-json-v2": GoI18n, "webextension": WebExtension} {
		if d, ok := DialectOf(name); !ok || d != want {
			t.Errorf("DialectOf(%q) = %v, %v", name, d, ok)
		}
	}
	if _, ok := DialectOf("tbx"); ok {
		t.Error("DialectOf(tbx) is ok")
	}
}

// TestFormMembers checks which members hold the forms of a plural unit.
func TestFormMembers(t *testing.T) {
	f, _ := mustDecodeDialect(t, "i18nextv4/cs.json", I18nextV4, catsCS)
	want := map[string]string{"one": "messages.unread_one", "few": "messages.unread_few", "many": "messages.unread_many", "other": "messages.unread_other"}
	if got := f.FormMembers("messages.unread"); !reflect.DeepEqual(got, want) {
		t.Errorf("i18next FormMembers = %v, want %v", got, want)
	}
	g, _ := mustDecodeDialect(t, "go-i18n/cs.json", GoI18n, catsCS)
	want = map[string]string{"one": "MyUnreadEmails.one", "few": "MyUnreadEmails.few", "other": "MyUnreadEmails.other"}
	if got := g.FormMembers("MyUnreadEmails"); !reflect.DeepEqual(got, want) {
		t.Errorf("go-i18n FormMembers = %v, want %v", got, want)
	}
	if got := g.FormMembers("HelloPerson"); got != nil {
		t.Errorf("go-i18n FormMembers of a string = %v", got)
	}
}

// TestV3Members checks which members hold an i18next v3 unit, for
// removal, and which a language does not use.
func TestV3Members(t *testing.T) {
	f, _ := mustDecodeDialect(t, "i18next/ru.json", I18nextV3, catsRU)
	for ctx, want := range map[string][]string{
		"messages.unread": {"messages.unread_0", "messages.unread_1", "messages.unread_2"},
		"files":           {"files", "files_plural"},
		"days":            {"days_0", "days_2"},
		"app.title":       {"app.title"},
		"nope":            nil,
	} {
		if got := f.Members(ctx); !reflect.DeepEqual(got, want) {
			t.Errorf("Members(%q) = %q, want %q", ctx, got, want)
		}
	}
	if got, want := f.v3Stale("files", 3), []string{"files", "files_plural"}; !reflect.DeepEqual(got, want) {
		t.Errorf("v3Stale(files, 3) = %q, want %q", got, want)
	}
	if got, want := f.v3Stale("messages.unread", 2), []string{"messages.unread_0", "messages.unread_1", "messages.unread_2"}; !reflect.DeepEqual(got, want) {
		t.Errorf("v3Stale(messages.unread, 2) = %q, want %q", got, want)
	}
	if got := f.v3Stale("messages.unread", 3); got != nil {
		t.Errorf("v3Stale(messages.unread, 3) = %q, want none", got)
	}
}
