package index

import "testing"

func TestHashPartsReferenceValues(t *testing.T) {
	// Worked values from ../shared/reference/weblate-core.md.
	cases := []struct {
		parts []string
		want  int64
	}{
		{[]string{"Hello", ""}, -2665940278720648281},
		{[]string{"Hello", "greeting"}, -2658301729136097855},
		{[]string{"greeting"}, -4062825567976105060},
		{[]string{""}, 2141328909150225308},
		{[]string{"Hallo, {name}!", "greeting"}, -1924869136489752425},
	}
	for _, tc := range cases {
		if got := HashParts(tc.parts...); got != tc.want {
			t.Errorf("HashParts(%q) = %d, want %d", tc.parts, got, tc.want)
		}
	}
}

func TestSipHashPublishedVector(t *testing.T) {
	// SipHash-2-4 paper, appendix A: key 00..0f, message 00..0e.
	key := make([]byte, 16)
	for i := range key {
		key[i] = byte(i)
	}
	msg := make([]byte, 15)
	for i := range msg {
		msg[i] = byte(i)
	}
	k0 := uint64(0)
	k1 := uint64(0)
	for i := 7; i >= 0; i-- {
		k0 = k0<<8 | uint64(key[i])
		k1 = k1<<8 | uint64(key[i+8])
	}
	if got := sipHash24(k0, k1, msg); got != 0xa129ca6149be45e5 {
		t.Fatalf("sipHash24 = %#x, want 0xa129ca6149be45e5", got)
	}
}

func TestIDHashMonolingualUsesContextOnly(t *testing.T) {
	if IDHash(true, []string{"Hello"}, "greeting") != HashParts("greeting") {
		t.Error("monolingual id_hash must hash the context alone")
	}
	if IDHash(false, []string{"Hello"}, "greeting") != HashParts("Hello", "greeting") {
		t.Error("bilingual id_hash must hash source + context")
	}
}

func TestIDHashJoinedIsIDHash(t *testing.T) {
	for _, source := range [][]string{{"Hello"}, {"one file", "%d files"}, {""}, {"a", "", "c"}} {
		for _, mono := range []bool{false, true} {
			if got, want := IDHashJoined(mono, JoinPlural(source), "ctx"), IDHash(mono, source, "ctx"); got != want {
				t.Errorf("IDHashJoined(%v, %q) = %d, IDHash %d", mono, source, got, want)
			}
		}
	}
}

func TestPercentTruncates(t *testing.T) {
	cases := []struct {
		part, total int
		want        float64
	}{
		{1, 6, 16.6}, {2, 3, 66.6}, {1, 3, 33.3}, {0, 0, 0}, {5, 5, 100}, {1999, 2000, 99.9},
	}
	for _, tc := range cases {
		if got := Percent(tc.part, tc.total); got != tc.want {
			t.Errorf("Percent(%d, %d) = %v, want %v", tc.part, tc.total, got, tc.want)
		}
	}
}
