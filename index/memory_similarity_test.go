package index

import (
	"strings"
	"testing"
)

// The worked examples: RapidFuzz's documented fuzz.ratio values (its
// README: "this is a test" vs "this is a test!" is 96.55, "fuzzy wuzzy
// was a bear" vs "wuzzy fuzzy was a bear" 90.91), truncated as the
// reference truncates QRatio, and cases counted by hand.
func TestSimilarityWorkedExamples(t *testing.T) {
	long := strings.Repeat("abcdefghij", 20) // 200 code points: four words of bits
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"this is a test", "this is a test!", 96},                // LCS 14: 200·14/29 = 96.55
		{"fuzzy wuzzy was a bear", "wuzzy fuzzy was a bear", 90}, // LCS 20: 200·20/44 = 90.91
		{"abc", "abc", 100},
		{"", "", 0}, // QRatio: an empty side scores 0
		{"abc", "", 0},
		{"The page was not found", "The page {page} was not found.", 84}, // LCS 22: 200·22/52 = 84.6
		{"Hello", "hello", 80}, // no lower-casing: LCS 4, 200·4/10
		{"ABC", "xyz", 0},
		{"Grüße", "Grüsse", 72}, // code points, not bytes: LCS 4 of 5+6 = 72.7
		{"日本語テキスト", "日本語のテキスト", 93}, // LCS 7 of 7+8 = 93.3
		{long, long + "x", 99},                         // 200·200/401 = 99.75
		{long, strings.Replace(long, "e", "E", 1), 99}, // LCS 199 of 400 = 99.5
		{"kitten", "sitting", 61},                      // LCS 4 ("ittn"): 200·4/13 = 61.5
	} {
		if got := Similarity(tc.a, tc.b); got != tc.want {
			t.Errorf("Similarity(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
		if got := Similarity(tc.b, tc.a); got != tc.want {
			t.Errorf("Similarity(%q, %q) = %d, want %d (not symmetric)", tc.b, tc.a, got, tc.want)
		}
		h := NewMemoryHistogram(tc.b)
		if b := NewMemoryMatcher(tc.a).Bound(&h, len([]rune(tc.b))); b < tc.want {
			t.Errorf("Bound(%q, %q) = %d, below the similarity %d", tc.a, tc.b, b, tc.want)
		}
	}
}

// TestSimilarityMatchesDP checks the bit-parallel LCS against the
// quadratic textbook one on strings across word boundaries.
func TestSimilarityMatchesDP(t *testing.T) {
	words := []string{"a", "b", "é", "ab", "ba", "cab", "日"}
	seed := uint32(7)
	next := func() int { seed = seed*1664525 + 1013904223; return int(seed >> 8) }
	for i := 0; i < 300; i++ {
		var x, y strings.Builder
		for n := next() % 90; n > 0; n-- {
			x.WriteString(words[next()%len(words)])
		}
		for n := next() % 90; n > 0; n-- {
			y.WriteString(words[next()%len(words)])
		}
		a, b := x.String(), y.String()
		ra, rb := []rune(a), []rune(b)
		want := 0
		if len(ra) > 0 && len(rb) > 0 {
			want = 200 * lcsDP(ra, rb) / (len(ra) + len(rb))
		}
		if got := Similarity(a, b); got != want {
			t.Fatalf("Similarity(%q, %q) = %d, want %d", a, b, got, want)
		}
		h := NewMemoryHistogram(b)
		if bound := NewMemoryMatcher(a).Bound(&h, len(rb)); bound < want {
			t.Fatalf("Bound(%q, %q) = %d, below the similarity %d", a, b, bound, want)
		}
	}
}

func lcsDP(a, b []rune) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			switch {
			case a[i-1] == b[j-1]:
				cur[j] = prev[j-1] + 1
			case prev[j] >= cur[j-1]:
				cur[j] = prev[j]
			default:
				cur[j] = cur[j-1]
			}
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func TestMemoryQualityPenalties(t *testing.T) {
	for _, tc := range []struct {
		sim       int
		status    MemoryStatus
		ctx, qctx string
		want      int
	}{
		{100, MemoryActive, "", "key", 100}, // no context on the entry: no penalty
		{100, MemoryActive, "key", "key", 100},
		{100, MemoryActive, "other", "key", 95},
		{100, MemoryPending, "", "", 70},
		{100, MemoryPending, "other", "key", 66}, // 100·0.7·0.95 = 66.5
		{90, MemoryPending, "", "", 62},          // 63 in exact arithmetic; 90·0.7 is 62.999… in floats, as Python's int()
		{84, MemoryActive, "a", "b", 79},         // 79.8: below the default threshold
	} {
		if got := MemoryQuality(tc.sim, tc.status, tc.ctx, tc.qctx); got != tc.want {
			t.Errorf("MemoryQuality(%d, %d, %q, %q) = %d, want %d", tc.sim, tc.status, tc.ctx, tc.qctx, got, tc.want)
		}
	}
}
