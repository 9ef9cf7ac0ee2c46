package json_test

import (
	"testing"

	tolkjson "github.com/tolk-project/tolk/formats/json"
)

// TestRestyle: the layouts of Python's json.dumps with indent and
// sort_keys, escapes and numbers kept as written, the final newline kept
// or left out, and a second Restyle changing nothing.
func TestRestyle(t *testing.T) {
	in := "{\"b\":\"caf\\u00e9\",  \"a\": {\"y\": 1.50, \"x\": []},\n\"c\": {}, \"d\": [\"z\", true]}\n"
	for _, tc := range []struct {
		st   tolkjson.Style
		in   string
		want string
	}{
		{tolkjson.Style{Indent: "    "}, in, "{\n    \"b\": \"caf\\u00e9\",\n    \"a\": {\n        \"y\": 1.50,\n" +
			"        \"x\": []\n    },\n    \"c\": {},\n    \"d\": [\n        \"z\",\n        true\n    ]\n}\n"},
		{tolkjson.Style{Indent: "\t", SortKeys: true}, in, "{\n\t\"a\": {\n\t\t\"x\": [],\n\t\t\"y\": 1.50\n\t},\n" +
			"\t\"b\": \"caf\\u00e9\",\n\t\"c\": {},\n\t\"d\": [\n\t\t\"z\",\n\t\ttrue\n\t]\n}\n"},
		{tolkjson.Style{}, `{"k": "v"}`, "{\n\"k\": \"v\"\n}"},
	} {
		got, err := tolkjson.Restyle([]byte(tc.in), tc.st)
		if err != nil || string(got) != tc.want {
			t.Errorf("Restyle(%q, %+v) = %q, %v; want %q", tc.in, tc.st, got, err, tc.want)
			continue
		}
		again, err := tolkjson.Restyle(got, tc.st)
		if err != nil || string(again) != string(got) {
			t.Errorf("Restyle twice (%+v) = %q, %v", tc.st, again, err)
		}
	}
	if _, err := tolkjson.Restyle([]byte(`{"a": `), tolkjson.Style{}); err == nil {
		t.Error("Restyle of a broken file: no error")
	}
}
