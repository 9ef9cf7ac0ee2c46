package checks

import (
	"slices"
	"testing"
)

// TestQuickXML: wherever quickXML decides, encoding/xml (decodeXML) agrees.
func TestQuickXML(t *testing.T) {
	inputs := []string{
		"plain", "<b>x</b>", "<b>x</i>", "<b>x", "x</b>", "<br/>", "<br />", "<a href=\"x\" title='y'>z</a>",
		"<a href=\"x\"title='y'>z</a>", "<a href>z</a>", "<a href=x>z</a>", "<b><i>x</b></i>", "a > b", "a < b",
		"<1>", "< b>", "<b >x</b >", "<!-- c -->", "<![CDATA[x]]>", "<?pi x?>", "<x:y>z</x:y>", "<a b=\"<\">",
		"<a b=\"1\" b=\"2\">", "<p>One<br/>two</p><p>three</p>", "<a-b.c_d>x</a-b.c_d>", "<_x/>", "<b/ >",
		"<b\n>x</b>", "<a\nhref=\"x\">y</a>", "<a href=\"x\" >y</a>", "a & b", "<b>x</b>]]>",
		"<b>\x01</b>", "<b>\uffff</b>", "<b>\xff</b>", "<b>é ✓ 👍</b>", "<b title=\"é\">x</b>", "<b title=\"]]>\">x</b>", "<b title=\"\x01\">x</b>",
	}
	quick := 0
	for _, in := range inputs {
		tags, err, ok := quickXML(in)
		if !ok {
			continue
		}
		quick++
		want, werr := decodeXML("<weblate>" + in + "</weblate>")
		if (err == nil) != (werr == nil) {
			t.Errorf("%q: quick err %v, encoding/xml err %v", in, err, werr)
			continue
		}
		if err == nil && !slices.Equal(tags, want[1:]) {
			t.Errorf("%q: quick %v, encoding/xml %v", in, tags, want[1:])
		}
	}
	if quick < 15 {
		t.Errorf("quickXML decided only %d inputs", quick)
	}
}

// TestTagSpans: the hand scanner finds what xmlTag finds.
func TestTagSpans(t *testing.T) {
	for _, in := range []string{"", "x", "<b>x</b>", "<>", "a <> b <i>", "<<b>>", "< >", "<a\nb>", "<b", "x>y<z", "<b><", "<é>ü</é>"} {
		var want [][2]int
		for _, m := range xmlTag.FindAllStringIndex(in, -1) {
			want = append(want, [2]int{m[0], m[1]})
		}
		if got := tagSpans(in); !slices.Equal(got, want) {
			t.Errorf("%q: tagSpans %v, xmlTag %v", in, got, want)
		}
		if got, want := replaceTags(in, " "), xmlTag.ReplaceAllString(in, " "); got != want {
			t.Errorf("%q: replaceTags %q, want %q", in, got, want)
		}
	}
}
