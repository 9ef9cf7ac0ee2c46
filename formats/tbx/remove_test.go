package tbx

import (
	"bytes"
	"strings"
	"testing"
)

// checkRemoved takes terms out of src and checks the output is want,
// that n entries went, that every other unit decodes as before, and that
// removing again changes nothing.
func checkRemoved(t *testing.T, src []byte, source, target string, terms []Term, n int, want []byte) {
	t.Helper()
	f := mustDecode(t, src)
	var out bytes.Buffer
	got, err := f.EncodeWithout(&out, source, target, terms)
	if err != nil {
		t.Fatalf("EncodeWithout: %v", err)
	}
	if !bytes.Equal(out.Bytes(), want) {
		t.Fatalf("output differs from want:\n%s", firstDiff(out.Bytes(), want))
	}
	if got != n {
		t.Errorf("removed %d entries, want %d", got, n)
	}
	g := mustDecode(t, out.Bytes())
	var kept []string
	for _, u := range f.Units(source, target) {
		gone := false
		for _, tm := range terms {
			gone = gone || (tm.Source == u.Source[0] && tm.Context == u.Context)
		}
		if !gone {
			kept = append(kept, u.Context+"|"+u.Source[0]+"|"+u.Target[0])
		}
	}
	var after []string
	for _, u := range g.Units(source, target) {
		after = append(after, u.Context+"|"+u.Source[0]+"|"+u.Target[0])
	}
	if strings.Join(after, "\n") != strings.Join(kept, "\n") {
		t.Errorf("units after the removal:\n%s\nwant\n%s", strings.Join(after, "\n"), strings.Join(kept, "\n"))
	}
	var again bytes.Buffer
	if n, err := g.EncodeWithout(&again, source, target, terms); err != nil || n != 0 || !bytes.Equal(again.Bytes(), out.Bytes()) {
		t.Errorf("removing twice: %d entries, %v, output changed: %v", n, err, !bytes.Equal(again.Bytes(), out.Bytes()))
	}
}

func TestEncodeWithoutSlicer(t *testing.T) {
	de := mustCorpusFile(t, "slicer", "de.tbx")
	del := func(lines ...int) map[int]string {
		m := map[int]string{}
		for _, l := range lines {
			m[l] = "\x00"
		}
		return m
	}
	tests := []struct {
		name  string
		terms []Term
		n     int
		gone  map[int]string
	}{
		{"one entry, its lines only", []Term{{Source: "volume"}}, 1, del(17, 18, 19, 20)},
		// Two entries share ("Glyph", ""); the id="1" entry stays.
		{"duplicates go together", []Term{{Source: "Glyph"}}, 2, del(13, 14, 15, 16, 597, 598, 599, 600)},
		{"by id", []Term{{Source: "Glyph", Context: "1"}}, 1, del(445, 446, 447, 448)},
		{"several", []Term{{Source: "volume"}, {Source: "scene"}}, 2, del(17, 18, 19, 20, 33, 34, 35, 36)},
		{"absent term", []Term{{Source: "no such term"}, {Source: "volume", Context: "x"}}, 0, nil},
		{"nothing asked", nil, 0, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checkRemoved(t, de.data, "en", "de", tc.terms, tc.n, replaceLines(t, de.data, tc.gone))
		})
	}
}

func TestEncodeWithoutShapes(t *testing.T) {
	entry := func(id, en string) string {
		return `<termEntry id="` + id + `"><langSet xml:lang="en"><tig><term>` + en +
			`</term></tig></langSet><langSet xml:lang="de"><tig><term>x</term></tig></langSet></termEntry>`
	}
	a, b, c := entry("a", "apple"), entry("b", "pear"), entry("c", "plum")
	tests := []struct{ name, in, want string }{
		{"entries sharing a line", "<martif><body>" + a + b + c + "</body></martif>",
			"<martif><body>" + a + c + "</body></martif>"},
		{"CRLF lines", "<martif>\r\n\t<body>\r\n\t\t" + a + "\r\n\t\t" + b + " \r\n\t\t" + c + "\r\n\t</body>\r\n</martif>\r\n",
			"<martif>\r\n\t<body>\r\n\t\t" + a + "\r\n\t\t" + c + "\r\n\t</body>\r\n</martif>\r\n"},
		{"markup after it on its line", "<martif><body>\n  " + b + "<!-- c -->\n</body></martif>",
			"<martif><body>\n  <!-- c -->\n</body></martif>"},
		{"the only entry", "<martif><body>\n    " + b + "\n</body></martif>", "<martif><body>\n</body></martif>"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checkRemoved(t, []byte(tc.in), "en", "de", []Term{{Source: "pear", Context: "b"}}, 1, []byte(tc.want))
		})
	}
}
