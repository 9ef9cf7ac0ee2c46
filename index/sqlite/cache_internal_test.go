package sqlite

import "testing"

// TestPageCacheBounds checks the page cache's two rules: an answer read
// before a newer write is never kept, and the rows held stay within
// its limit in rows.
func TestPageCacheBounds(t *testing.T) {
	const maxCachedRows = 1000
	var c pageCache[int]
	c.put(2, "a", cachedPage[int]{rows: []int{1}, total: 1}, maxCachedRows)
	c.put(1, "stale", cachedPage[int]{rows: []int{0}, total: 1}, maxCachedRows)
	if _, ok := c.get(2, "stale"); ok {
		t.Error("a page read under an older generation was kept")
	}
	if _, ok := c.get(3, "a"); ok {
		t.Error("a page was served after a newer write")
	}

	half := make([]int, maxCachedRows/2)
	c.put(3, "x", cachedPage[int]{rows: half}, maxCachedRows)
	c.put(3, "y", cachedPage[int]{rows: half}, maxCachedRows)
	if c.rows != maxCachedRows {
		t.Fatalf("rows = %d, want %d", c.rows, maxCachedRows)
	}
	c.put(3, "z", cachedPage[int]{rows: []int{1}}, maxCachedRows)
	if _, ok := c.get(3, "x"); ok || c.rows != 1 {
		t.Errorf("past the bound: x kept %v, rows %d; want a fresh start with z alone", ok, c.rows)
	}
	c.put(3, "huge", cachedPage[int]{rows: make([]int, maxCachedRows+1)}, maxCachedRows)
	if _, ok := c.get(3, "huge"); ok {
		t.Error("a page larger than the whole bound was kept")
	}
	c.put(4, "off", cachedPage[int]{rows: []int{1}}, 0)
	if _, ok := c.get(4, "off"); ok {
		t.Error("a page was kept with caching off")
	}
}
