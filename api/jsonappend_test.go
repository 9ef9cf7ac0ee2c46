package api

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/tolk-project/tolk/edge"
	"github.com/tolk-project/tolk/index"
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

// awkwardUnits are units whose every text field holds one of
// awkwardStrings, with extreme numbers and every state.
func awkwardUnits() []index.Unit {
	var units []index.Unit
	for i, str := range awkwardStrings {
		units = append(units, index.Unit{
			ID: int64(i + 1), TranslationID: 1, SourceUnitID: int64(i % 2 * 1000), Position: i,
			Context: str, Source: []string{str, "x"}, Target: []string{str}, PreviousSource: str,
			IDHash: math.MinInt64 + int64(i), ContentHash: math.MaxInt64 - int64(i), Location: str, Note: str,
			Flags: str, Explanation: str, ExtraFlags: str, State: index.State(i % 4 * 10), Pending: i%2 == 0,
			Priority: 100, NumWords: i, HasSuggestion: i%2 == 1, HasComment: i%3 == 1, HasFailingCheck: i%4 == 1,
			Labels:    []index.Label{{ID: int64(i), Name: str, Description: str, Color: str}},
			Timestamp: time.Date(2026, 11, 23, 1, 2, 3, i*1000, time.FixedZone("X", 3600)),
		})
	}
	return append(units, index.Unit{ID: math.MaxInt64}) // nil slices, zero time
}

func TestAppendJSONMatchesEncodingJSON(t *testing.T) {
	s := func(v string) *string { return &v }
	tr := &index.Translation{ID: 1, LanguageCode: "sr@latin", Component: index.Component{
		Slug: "c\"1", Project: index.Project{Slug: "p q\u2028"}}}
	for _, u := range []edge.URLs{edge.NewURLs("http://tolk.test", false), edge.NewURLs("https://h:8443/prefix", true),
		edge.NewURLs("http://we\"ird\\\xff", false)} {
		t.Run(u.Base(), func(t *testing.T) {
			units := awkwardUnits()
			items := make([]unitItem, len(units))
			wire := make([]unitJSON, len(units))
			links := newUnitLinks(u, tr)
			for i := range units {
				items[i], wire[i] = unitItem{links, &units[i]}, newUnitJSON(u, tr, &units[i])
			}
			var changes []index.Change
			for i, str := range awkwardStrings {
				ch := index.Change{ID: int64(i + 1), Action: index.Action(i * 7 % 60), Target: str,
					Timestamp: time.Date(2026, 1, 2, 3, 4, 5, i, time.FixedZone("Y", -7200)), UnitID: int64(i % 3),
					ProjectSlug: str, ComponentSlug: "c", LanguageCode: []string{"", "de", str}[i%3],
					UserName: []string{"", "admin", str}[i%3], AuthorName: []string{str, "", "admin"}[i%3]}
				changes = append(changes, ch)
				ch.ComponentSlug = "" // tied to a project only
				changes = append(changes, ch)
			}
			changes = append(changes, index.Change{})
			changeItems := make([]changeItem, len(changes))
			changeWire := make([]changeJSON, len(changes))
			clinks := newChangeLinks(u)
			for i := range changes {
				changeItems[i], changeWire[i] = changeItem{clinks, &changes[i], true}, newChangeJSON(u, &changes[i])
			}

			var trStats []translationStatsJSON
			var named []namedStatsJSON
			var projLangs []projectLanguageStatsJSON
			for i, str := range awkwardStrings {
				st := index.Stats{Total: 3 * i, TotalWords: math.MaxInt32 + i, TotalChars: 7 * i, RecentChanges: i,
					Translated: i, TranslatedWords: 2 * i, TranslatedChars: i / 2, Fuzzy: i % 3, Failing: i % 2,
					Approved: i / 3, Readonly: i % 4, Suggestions: -i, Comments: 1 << 40, LastAuthor: []string{"", str}[i%2]}
				if i%2 == 1 {
					st.LastChange = time.Date(2026, 11, 24, 1, 2, 3, i*1001, time.FixedZone("Z", 5400))
				}
				trStats = append(trStats, newTranslationStatsJSON(u, tr, &st))
				trStats[i].Name = str
				named = append(named, namedStatsJSON{statsJSON: newStatsJSON(&st), Name: str, URL: u.LanguageWeb(str)})
				projLangs = append(projLangs, projectLanguageStatsJSON{statsJSON: newStatsJSON(&st), Code: str, Name: "n" + str, URL: u.Share(str, str)})
			}

			var details []translationDetail
			var detailWire []translationJSON
			for i, str := range awkwardStrings {
				var t index.Translation
				n := i * 1000
				fillAwkward(reflect.ValueOf(&t).Elem(), str, &n)
				source := t.Language
				source.Code, source.Aliases = "en"+str, nil
				j := newTranslationJSON(u, &t, &source, []string{str, u.Base()})
				if i%3 == 2 { // what newTranslationJSON never leaves nil or sets
					j.Component.SkippedFiles, j.Component.EnforcedChecks, j.Language.Aliases = nil, nil, nil
					j.Component.TaskURL, j.Component.Addons = &str, nil
				}
				details, detailWire = append(details, translationDetail(j)), append(detailWire, j)
			}

			for name, tc := range map[string]struct{ fast, ref any }{
				"translation detail":       {&details[0], detailWire[0]},
				"translation detail, each": {list[translationDetail]{Results: details}, list[translationJSON]{Results: detailWire}},
				"translation statistics":   {trStats[3], trStats[3]},
				"statistics list":          {list[translationStatsJSON]{Count: 2, Results: trStats}, list[translationStatsJSON]{Count: 2, Results: trStats}},
				"language statistics":      {named[len(named)-1], named[len(named)-1]},
				"project language":         {projLangs[2], projLangs[2]},
				"project language list":    {list[projectLanguageStatsJSON]{Results: projLangs}, list[projectLanguageStatsJSON]{Results: projLangs}},
				"named statistics (each)":  {list[namedStatsJSON]{Results: named}, list[namedStatsJSON]{Results: named}},
				"units":                    {list[unitItem]{Count: len(units), Next: s("n"), Results: items}, list[unitJSON]{Count: len(units), Next: s("n"), Results: wire}},
				"no units":                 {list[unitItem]{Results: []unitItem{}}, list[unitJSON]{Results: []unitJSON{}}},
				"nil units":                {list[unitItem]{Previous: s("p")}, list[unitJSON]{Previous: s("p")}},
				"one unit":                 {&items[0], &wire[0]},
				"changes":                  {list[changeItem]{Count: 1 << 40, Results: changeItems}, list[changeJSON]{Count: 1 << 40, Results: changeWire}},
				"one change":               {&changeItems[1], changeWire[1]},
				"reflected":                {list[lockJSON]{Count: 1, Results: []lockJSON{{Locked: true}}}, list[lockJSON]{Count: 1, Results: []lockJSON{{Locked: true}}}},
			} {
				got, err := edge.EncodeJSON(nil, tc.fast)
				if err != nil {
					t.Fatal(err)
				}
				if want := reflected(t, tc.ref); !bytes.Equal(got, want) {
					t.Errorf("%s: appended\n%s\nwant\n%s", name, got, want)
				}
			}
		})
	}
}

// fillAwkward sets every string of v (a struct, recursively) to str and
// a number of its own, every string slice to two such, every number to
// one of its own, every bool to that number's parity, and times to one
// of them when n starts odd: no two fields alike, so that one written
// in another's place shows.
func fillAwkward(v reflect.Value, str string, n *int) {
	*n++
	switch v.Kind() {
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			if *n%2 == 1 {
				v.Set(reflect.ValueOf(time.Date(2026, 11, 24, 1, 2, 3, *n*1001, time.FixedZone("Z", 5400))))
			}
			return
		}
		for f := range v.NumField() {
			if v.Field(f).CanSet() {
				fillAwkward(v.Field(f), str, n)
			}
		}
	case reflect.String:
		v.SetString(str + strconv.Itoa(*n))
	case reflect.Int, reflect.Int64, reflect.Int32:
		v.SetInt(int64(*n)*1_000_003 - 7)
	case reflect.Bool:
		v.SetBool(*n%2 == 1)
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.String {
			v.Set(reflect.ValueOf([]string{str + strconv.Itoa(*n), "x" + strconv.Itoa(*n)}))
		} else if v.Type().Elem().Kind() == reflect.Struct {
			s := reflect.MakeSlice(v.Type(), 2, 2)
			fillAwkward(s.Index(0), str, n)
			fillAwkward(s.Index(1), "x", n)
			v.Set(s)
		}
	}
}

// The appender must take the fast path for the lists it was written for,
// or the benchmark numbers above it mean nothing.
func TestAppendJSONUsedForLists(t *testing.T) {
	units, changes, locks := list[unitItem]{}, list[changeItem]{}, list[lockJSON]{}
	if units.AppendJSON(nil) == nil || changes.AppendJSON(nil) == nil {
		t.Fatal("unit and change lists fell back to reflection")
	}
	for _, v := range []any{translationStatsJSON{}, namedStatsJSON{}, projectLanguageStatsJSON{}, list[translationStatsJSON]{},
		&translationDetail{}} {
		if a, ok := v.(edge.JSONAppender); !ok || a.AppendJSON(nil) == nil {
			t.Fatalf("%T falls back to reflection", v)
		}
	}
	if locks.AppendJSON(nil) != nil {
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

// unitJSON is the Unit object (spec, "Unit") as a wire struct: the
// reference unitItem must write byte for byte.
type unitJSON struct {
	Translation     string      `json:"translation"`
	Source          []string    `json:"source"`
	PreviousSource  string      `json:"previous_source"`
	Target          []string    `json:"target"`
	IDHash          int64       `json:"id_hash"`
	ContentHash     int64       `json:"content_hash"`
	Location        string      `json:"location"`
	Context         string      `json:"context"`
	Note            string      `json:"note"`
	Flags           string      `json:"flags"`
	Labels          []labelJSON `json:"labels"`
	State           int         `json:"state"`
	Fuzzy           bool        `json:"fuzzy"`
	Translated      bool        `json:"translated"`
	Approved        bool        `json:"approved"`
	Position        int         `json:"position"`
	HasSuggestion   bool        `json:"has_suggestion"`
	HasComment      bool        `json:"has_comment"`
	HasFailingCheck bool        `json:"has_failing_check"`
	NumWords        int         `json:"num_words"`
	SourceUnit      *string     `json:"source_unit"` // null when no source unit is linked
	Priority        int         `json:"priority"`
	ID              int64       `json:"id"`
	WebURL          string      `json:"web_url"`
	URL             string      `json:"url"`
	Explanation     string      `json:"explanation"`
	ExtraFlags      string      `json:"extra_flags"`
	Pending         bool        `json:"pending"`
	Timestamp       string      `json:"timestamp"`
	// AutomaticallyTranslated is the reference's last field.
	AutomaticallyTranslated bool `json:"automatically_translated"`
}

// unitLabelsJSON converts a unit's labels, never nil.
func unitLabelsJSON(labels []index.Label) []labelJSON {
	out := []labelJSON{}
	for i := range labels {
		out = append(out, newLabelJSON(&labels[i]))
	}
	return out
}

// newUnitJSON converts a unit of translation t field by field, the way
// the API did before unitItem, through urls' own builders.
func newUnitJSON(u edge.URLs, t *index.Translation, x *index.Unit) unitJSON {
	var sourceUnit *string
	if x.SourceUnitID != 0 {
		sourceUnit = ptr(u.Unit(x.SourceUnitID))
	}
	return unitJSON{
		Translation:             u.Translation(t.Component.Project.Slug, t.Component.Slug, t.LanguageCode, ""),
		Source:                  nonNil(x.Source),
		PreviousSource:          x.PreviousSource,
		Target:                  nonNil(x.Target),
		IDHash:                  x.IDHash,
		ContentHash:             x.ContentHash,
		Location:                x.Location,
		Context:                 x.Context,
		Note:                    x.Note,
		Flags:                   x.Flags,
		Labels:                  unitLabelsJSON(x.Labels),
		State:                   int(x.State),
		Fuzzy:                   x.State.Fuzzy(),
		Translated:              x.State.Translated(),
		Approved:                x.State.Approved(),
		Position:                x.Position,
		HasSuggestion:           x.HasSuggestion,
		HasComment:              x.HasComment,
		HasFailingCheck:         x.HasFailingCheck,
		NumWords:                x.NumWords,
		SourceUnit:              sourceUnit,
		Priority:                x.Priority,
		ID:                      x.ID,
		WebURL:                  unitWebURL(u, t.Component.Project.Slug, t.Component.Slug, t.LanguageCode, x.IDHash),
		URL:                     u.Unit(x.ID),
		Explanation:             x.Explanation,
		ExtraFlags:              x.ExtraFlags,
		Pending:                 x.Pending,
		Timestamp:               timestamp(x.Timestamp),
		AutomaticallyTranslated: x.AutomaticallyTranslated,
	}
}

// unitWebURL is the editor page of one unit, addressed like the reference
// by the hex of its unsigned id_hash.
func unitWebURL(u edge.URLs, p, c, l string, idHash int64) string {
	return u.Abs(edge.Join("translate", p, c, l), "checksum="+strconv.FormatUint(uint64(idHash)+1<<63, 16))
}

// changeJSON is the Change object (spec, "Change") as a wire struct:
// the reference changeItem must write byte for byte.
type changeJSON struct {
	Unit        *string `json:"unit"`
	Component   *string `json:"component"`
	Translation *string `json:"translation"`
	User        *string `json:"user"`
	Author      *string `json:"author"`
	Timestamp   string  `json:"timestamp"`
	Action      int     `json:"action"`
	Target      string  `json:"target"`
	ID          int64   `json:"id"`
	ActionName  string  `json:"action_name"`
	URL         string  `json:"url"`
}

// newChangeJSON converts a change. Links to what the change is not tied
// to are null (spec, "Common response behaviour", rule 4).
func newChangeJSON(u edge.URLs, ch *index.Change) changeJSON {
	out := changeJSON{
		User:       u.User(ch.UserName),
		Author:     u.User(ch.AuthorName),
		Timestamp:  timestamp(ch.Timestamp),
		Action:     int(ch.Action),
		Target:     ch.Target,
		ID:         ch.ID,
		ActionName: ch.Action.Name(),
		URL:        u.Change(ch.ID),
	}
	if ch.UnitID != 0 {
		out.Unit = ptr(u.Unit(ch.UnitID))
	}
	if ch.ProjectSlug != "" && ch.ComponentSlug != "" {
		out.Component = ptr(u.Component(ch.ProjectSlug, ch.ComponentSlug, ""))
		if ch.LanguageCode != "" {
			out.Translation = ptr(u.Translation(ch.ProjectSlug, ch.ComponentSlug, ch.LanguageCode, ""))
		}
	}
	return out
}

func TestAppendTimestampMatchesFormat(t *testing.T) {
	times := []time.Time{{}, time.Unix(0, 0), time.Date(2026, 11, 23, 1, 2, 3, 123456789, time.FixedZone("Z", -5*3600)),
		time.Date(999, 1, 1, 0, 0, 0, 999, time.UTC), time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC),
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC)}
	for i := range 1000 {
		times = append(times, time.Unix(int64(i)*7919*86413, int64(i)*1000003%1e9))
	}
	for _, tm := range times {
		if got, want := string(appendTimestamp(nil, tm)), tm.UTC().Format(timestampLayout); got != want {
			t.Errorf("appendTimestamp(%v) = %s, want %s", tm, got, want)
		}
	}
}
