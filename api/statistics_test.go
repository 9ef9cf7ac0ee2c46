package api_test

import (
	"testing"

	"github.com/tolk-project/tolk/internal/servertest"
)

var (
	statsShape = servertest.Shape{
		"total": "int", "total_words": "int", "total_chars": "int", "last_change": "timestamp|null",
		"recent_changes": "int", "translated": "int", "translated_words": "int", "translated_chars": "int",
		"translated_percent": "number", "translated_words_percent": "number",
		"translated_chars_percent": "number", "fuzzy": "int", "fuzzy_percent": "number", "failing": "int",
		"failing_percent": "number", "approved": "int", "approved_percent": "number", "readonly": "int",
		"readonly_percent": "number", "suggestions": "int", "comments": "int",
		// Not in the spec's table; the reference sends it and old clients need it.
		"last_author": "string|null",
		"code":        "string", "name": "string", "url": "url", "translate_url": "url",
	}
	languageStatsShape = without(statsShape, "code", "translate_url")
)

func without(s servertest.Shape, keys ...string) servertest.Shape {
	out := servertest.Shape{}
	for k, v := range s {
		out[k] = v
	}
	for _, k := range keys {
		delete(out, k)
	}
	return out
}

// The German app translation: six strings of 1, 2, 2, 3, 1 and 3 words
// (5, 8, 9, 14, 4, 14 characters); "Hello" approved, "Good bye" fuzzy,
// "Open file" translated, the rest empty. The German glossary adds
// "apple" and "pear tree" translated and "plum" empty.
func TestTranslationStatistics(t *testing.T) {
	srv, _ := servertest.DemoServer(t)
	base := srv.URL
	st := servertest.GetObject(t, base+"/api/translations/demo/app/de/statistics/")
	servertest.CheckShape(t, "statistics", st, statsShape)
	checkValues(t, "statistics", st, map[string]any{
		"total": "6", "total_words": "12", "total_chars": "54",
		"translated": "2", "translated_words": "3", "translated_chars": "14",
		"translated_percent":       "33.3",                       // 2/6
		"translated_words_percent": "25.0",                       // 3/12
		"translated_chars_percent": "25.9",                       // 14/54 = 25.925…, truncated
		"fuzzy":                    "1", "fuzzy_percent": "16.6", // 1/6 = 16.666…, truncated
		"approved": "1", "approved_percent": "16.6",
		"failing": "1", "failing_percent": "16.6", // "Datei öffnen…" fails end_ellipsis
		"readonly": "0", "readonly_percent": "0.0",
		"suggestions": "0", "comments": "0",
		"recent_changes": "3",
		"last_change":    "2026-11-23T01:02:08.123456Z",
		"last_author":    nil,
		"code":           "de", "name": "German",
		"url":           base + "/projects/demo/app/de/",
		"translate_url": base + "/translate/demo/app/de/",
	})

	src := servertest.GetObject(t, base+"/api/translations/demo/app/en/statistics/")
	checkValues(t, "source statistics", src, map[string]any{
		"code": "en", "name": "English", "translated": "6", "readonly": "6",
		"translated_percent": "100.0", "readonly_percent": "100.0",
	})
}

func TestLanguageStatistics(t *testing.T) {
	srv, _ := servertest.DemoServer(t)
	base := srv.URL
	st := servertest.GetObject(t, base+"/api/languages/de/statistics/")
	servertest.CheckShape(t, "language statistics", st, languageStatsShape)
	// Summed over the app (6 strings, 12 words) and the glossary (3, 4).
	checkValues(t, "language statistics", st, map[string]any{
		"total": "9", "total_words": "16", "total_chars": "72",
		"translated": "4", "translated_words": "6", "translated_chars": "28",
		"translated_percent":       "44.4", // 4/9
		"translated_words_percent": "37.5", // 6/16
		"translated_chars_percent": "38.8", // 28/72 = 38.88…, truncated
		"fuzzy":                    "1", "fuzzy_percent": "11.1",
		"approved": "1", "approved_percent": "11.1",
		"name": "German", "url": base + "/languages/de/",
	})
}

func TestLanguage(t *testing.T) {
	srv, _ := servertest.DemoServer(t)
	base := srv.URL
	l := servertest.GetObject(t, base+"/api/languages/de/")
	servertest.CheckShape(t, "language", l, languageShape)
	servertest.CheckShape(t, "language.plural", servertest.Obj(t, l["plural"]), pluralShape)
	checkValues(t, "language", l, map[string]any{
		"code": "de", "name": "German", "direction": "ltr",
		"url": base + "/api/languages/de/", "web_url": base + "/languages/de/",
		"statistics_url": base + "/api/languages/de/statistics/",
	})
	checkValues(t, "plural", servertest.Obj(t, l["plural"]), map[string]any{"number": "2", "formula": "n != 1"})
}
