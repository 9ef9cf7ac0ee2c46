package index

import (
	"math/bits"
	"unicode/utf8"
)

// Similarity is the reference's memory quality measure before penalties
// (§5.3, weblate/utils/similarity.py): RapidFuzz's fuzz.QRatio of the two
// strings, truncated to an integer. Since RapidFuzz 3.0 QRatio runs no
// preprocessing by default (no lower-casing, punctuation kept); it is
// fuzz.ratio, the normalized Indel similarity 100·(1 − dist/(len₁+len₂))
// over code points, except that an empty string on either side scores 0.
// With LCS the longest common subsequence, dist = len₁+len₂−2·LCS, so the
// ratio is 200·LCS/(len₁+len₂).
func Similarity(a, b string) int {
	p := newPattern(a)
	return p.similarity(b)
}

// pattern is a query prepared for many comparisons: the bit masks of
// Hyyrö's bit-parallel LCS (one bit per code point of the query, 64 to a
// word), so that comparing with a string of n code points costs
// n·⌈m/64⌉ word operations instead of n·m.
type pattern struct {
	n     int // code points
	words int
	ascii [128][]uint64
	other map[rune][]uint64
	zero  []uint64
}

func newPattern(s string) *pattern {
	p := &pattern{n: utf8.RuneCountInString(s)}
	p.words = (p.n + 63) / 64
	p.zero = make([]uint64, p.words)
	i := 0
	for _, r := range s {
		m := p.mask(r, true)
		m[i/64] |= 1 << (i % 64)
		i++
	}
	return p
}

func (p *pattern) mask(r rune, add bool) []uint64 {
	if r >= 0 && r < 128 {
		if p.ascii[r] == nil {
			if !add {
				return p.zero
			}
			p.ascii[r] = make([]uint64, p.words)
		}
		return p.ascii[r]
	}
	m, ok := p.other[r]
	if !ok {
		if !add {
			return p.zero
		}
		if p.other == nil {
			p.other = map[rune][]uint64{}
		}
		m = make([]uint64, p.words)
		p.other[r] = m
	}
	return m
}

// lcs returns the length of the longest common subsequence of the
// pattern and s.
func (p *pattern) lcs(s string, v []uint64) int {
	for i := range v {
		v[i] = ^uint64(0)
	}
	for _, r := range s {
		m := p.mask(r, false)
		var carry uint64
		for w := range v {
			u := v[w] & m[w]
			sum, c := bits.Add64(v[w], u, carry)
			carry = c
			v[w] = sum | (v[w] &^ m[w])
		}
	}
	zeros := 0
	for w := range v {
		word := v[w]
		if w == len(v)-1 && p.n%64 != 0 {
			word |= ^uint64(0) << (p.n % 64)
		}
		zeros += 64 - bits.OnesCount64(word)
	}
	return zeros
}

// similarity is Similarity of the pattern's string and s.
func (p *pattern) similarity(s string) int {
	n := utf8.RuneCountInString(s)
	return p.similarityN(s, n, make([]uint64, p.words))
}

// similarityN is similarity for s of n code points, with v as scratch
// of p.words words.
func (p *pattern) similarityN(s string, n int, v []uint64) int {
	if p.n == 0 || n == 0 {
		return 0
	}
	return 200 * p.lcs(s, v) / (p.n + n)
}

// MemoryMatcher compares one query with many sources, as a lookup does;
// it is not safe for concurrent use.
type MemoryMatcher struct {
	p       *pattern
	scratch []uint64
	hist    MemoryHistogram
}

// NewMemoryMatcher prepares text for comparisons.
func NewMemoryMatcher(text string) *MemoryMatcher {
	p := newPattern(text)
	return &MemoryMatcher{p: p, scratch: make([]uint64, p.words), hist: NewMemoryHistogram(text)}
}

// MemoryHistogram counts a string's code points in 32 buckets (the code
// point modulo 32). Two strings have at most Σ min(count) code points
// in common, in any order, so the histograms bound the LCS, and with it
// the similarity, for the price of 32 additions: a lookup skips most
// texts of a length window without comparing them.
type MemoryHistogram [32]uint16

// maxHistogramCount is where a bucket stops counting; strings that long
// get no bound (Bound answers 100).
const maxHistogramCount = 1<<16 - 1

// NewMemoryHistogram counts s.
func NewMemoryHistogram(s string) MemoryHistogram {
	var h MemoryHistogram
	for _, r := range s {
		if b := r & 31; h[b] < maxHistogramCount {
			h[b]++
		}
	}
	return h
}

// Bound is an upper bound of Similarity(query, s) for s of n code
// points and histogram h: never below it.
func (m *MemoryMatcher) Bound(h *MemoryHistogram, n int) int {
	if m.p.n == 0 || n == 0 {
		return 0
	}
	if m.p.n >= maxHistogramCount || n >= maxHistogramCount {
		return 100
	}
	common := 0
	for i := range h {
		common += int(min(m.hist[i], h[i]))
	}
	return 200 * common / (m.p.n + n)
}

// Len is the query's length in code points.
func (m *MemoryMatcher) Len() int { return m.p.n }

// Similarity is Similarity(query, s) for s of n code points.
func (m *MemoryMatcher) Similarity(s string, n int) int { return m.p.similarityN(s, n, m.scratch) }

// MemoryQuality applies the reference's penalties to a similarity:
// ×0.7 for a pending entry, ×0.95 for an entry whose context is set and
// differs from the query's, truncated as the reference's int().
func MemoryQuality(similarity int, status MemoryStatus, entryContext, queryContext string) int {
	q := float64(similarity)
	if status == MemoryPending {
		q *= 0.7
	}
	if entryContext != "" && entryContext != queryContext {
		q *= 0.95
	}
	return int(q)
}
