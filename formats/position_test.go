package formats

import (
	"errors"
	"testing"
)

func TestErrorAt(t *testing.T) {
	src := []byte("first\nsécond line\nthird")
	boom := errors.New("boom")
	for _, tc := range []struct {
		off, line, col int
	}{
		{0, 1, 1},
		{5, 1, 6},   // the newline ends line 1
		{6, 2, 1},   // line 2 starts
		{9, 2, 3},   // "sé|c": é is two bytes, one character
		{100, 3, 6}, // clamped to the end
		{-4, 1, 1},  // clamped to the start
	} {
		e := ErrorAt(src, tc.off, boom)
		if e.Line != tc.line || e.Column != tc.col || !errors.Is(e, boom) {
			t.Errorf("ErrorAt(%d) = line %d, column %d (%v); want %d, %d", tc.off, e.Line, e.Column, e.Err, tc.line, tc.col)
		}
	}
	lines := NewLines(src)
	for _, tc := range []struct{ off, line int }{{0, 1}, {7, 2}, {7, 2}, {19, 3}, {3, 3}} {
		if got := lines.At(tc.off); got != tc.line {
			t.Errorf("At(%d) = %d, want %d", tc.off, got, tc.line)
		}
	}
}

func TestRawElementName(t *testing.T) {
	src := []byte(`<x:trans-unit id="1"><b/><target>t</target`)
	for start, want := range map[int]string{0: "x:trans-unit", 21: "b", 25: "target"} {
		if got := RawElementName(src, start); got != want {
			t.Errorf("RawElementName(%d) = %q, want %q", start, got, want)
		}
	}
}
