package sync

import (
	"testing"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/langdata"
)

// TestEmptiedJSON checks the file a new translation starts from: the
// template with every string emptied, a plural unit's keys kept for the
// categories the new language uses and dropped for the others.
func TestEmptiedJSON(t *testing.T) {
	tab := langdata.Default()
	lang := func(code string) index.Language {
		l, ok := tab.Get(code)
		if !ok {
			t.Fatalf("no language %s", code)
		}
		return l
	}
	i18next := "{\n  \"title\": \"Inbox\",\n  \"n\": {\n    \"unread_one\": \"{{count}} message\",\n    \"unread_other\": \"{{count}} messages\"\n  }\n}\n"
	goi18n := "{\n  \"Emails\": {\n    \"description\": \"Unread\",\n    \"one\": \"{{.Count}} email\",\n    \"other\": \"{{.Count}} emails\"\n  }\n}\n"
	for _, tc := range []struct {
		format, template, lang, want string
	}{
		{"i18nextv4", i18next, "cs", "{\n  \"title\": \"\",\n  \"n\": {\n    \"unread_one\": \"\",\n    \"unread_other\": \"\"\n  }\n}\n"},
		{"i18nextv4", i18next, "ja", "{\n  \"title\": \"\",\n  \"n\": {\n    \"unread_other\": \"\"\n  }\n}\n"},
		{"go-i18n-json", goi18n, "ja", "{\n  \"Emails\": {\n    \"description\": \"Unread\",\n    \"other\": \"\"\n  }\n}\n"},
		{"json", "{\"a\": \"A\", \"b_one\": \"B\"}", "ja", "{\"a\": \"\", \"b_one\": \"\"}"},
	} {
		t.Run(tc.format+"/"+tc.lang, func(t *testing.T) {
			got, err := emptiedJSON(tc.format, []byte(tc.template), lang("en"), lang(tc.lang))
			if err != nil || string(got) != tc.want {
				t.Errorf("emptiedJSON = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}
