package api

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"
)

// reflected is what writeJSON wrote before the appenders existed, and
// still writes for every other body.
func reflected(tb testing.TB, v any) []byte {
	tb.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		tb.Fatal(err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// awkwardStrings cover every escaping rule of encoding/json.
var awkwardStrings = []string{
	"", "plain", `quote " and backslash \`, "<b>&amp;</b>", "tab\tnew\nline\rcr\bbs\fff",
	"\x00\x01\x1f\x7f", "Übersetzung ✓ 日本語 🎉", "bad \xff\xfe utf-8 \xe2\x82", "sep \u2028 and \u2029",
	"replacement \ufffd kept", "/slash/ and \u00a0nbsp",
}

func TestAppendJSONMatchesEncodingJSON(t *testing.T) {
	s := func(v string) *string { return &v }
	var units []unitJSON
	for i, str := range awkwardStrings {
		units = append(units, unitJSON{
			Translation: "http://h/api/translations/p/c/de/", Source: []string{str, "x"}, PreviousSource: str,
			Target: []string{str}, IDHash: math.MinInt64 + int64(i), ContentHash: math.MaxInt64 - int64(i),
			Location: str, Context: str, Note: str, Flags: str, Labels: []string{}, State: i % 4,
			Fuzzy: i%2 == 0, Translated: i%3 == 0, Approved: i%5 == 0, Position: i, HasSuggestion: i%2 == 1,
			HasComment: i%3 == 1, HasFailingCheck: i%4 == 1, NumWords: -i, Priority: 100, ID: int64(i),
			WebURL: str, URL: str, Explanation: str, ExtraFlags: str, Pending: i%2 == 0, Timestamp: str,
		})
	}
	units = append(units, unitJSON{}, unitJSON{SourceUnit: s("http://h/api/units/1/"), Labels: []string{"a", "b"}})

	var changes []changeJSON
	for _, str := range awkwardStrings {
		changes = append(changes, changeJSON{Unit: s(str), Component: s(str), Translation: s(str), User: s(str),
			Author: s(str), Timestamp: str, Action: 59, Target: str, ID: 7, ActionName: str, URL: str})
	}
	changes = append(changes, changeJSON{})

	cases := map[string]any{
		"units":          list[unitJSON]{Count: len(units), Next: s("http://h/?page=2"), Results: units},
		"no units":       list[unitJSON]{Results: []unitJSON{}},
		"nil units":      list[unitJSON]{Previous: s("p")},
		"changes":        list[changeJSON]{Count: 1 << 40, Results: changes},
		"one unit":       &units[0],
		"one change":     &changes[0],
		"reflected list": list[lockJSON]{Count: 1, Results: []lockJSON{{Locked: true}}},
	}
	for name, v := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := encodeJSON(nil, v)
			if err != nil {
				t.Fatal(err)
			}
			if want := reflected(t, v); !bytes.Equal(got, want) {
				t.Errorf("appended\n%s\nwant\n%s", got, want)
			}
		})
	}
}

// The appender must take the fast path for the lists it was written for,
// or the benchmark numbers above it mean nothing.
func TestAppendJSONUsedForLists(t *testing.T) {
	units, changes, locks := list[unitJSON]{}, list[changeJSON]{}, list[lockJSON]{}
	if units.appendJSON(nil) == nil || changes.appendJSON(nil) == nil {
		t.Fatal("unit and change lists fell back to reflection")
	}
	if locks.appendJSON(nil) != nil {
		t.Fatal("a list of a type without appendJSON claimed to append it")
	}
}

func FuzzAppendJSONString(f *testing.F) {
	for _, s := range awkwardStrings {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := appendJSONString(nil, s), reflected(t, s); !bytes.Equal(got, want) {
			t.Errorf("appendJSONString(%q) = %s, want %s", s, got, want)
		}
	})
}
