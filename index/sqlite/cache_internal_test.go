package sqlite

import "testing"

// TestGenCacheBounds checks the cache's rules: an answer read before a
// newer write is never kept, the weight held stays within the limit, a
// replaced value is not counted twice, and a limit of 0 keeps nothing.
func TestGenCacheBounds(t *testing.T) {
	const limit = 1000
	var c genCache[string, []int]
	c.put(2, "a", []int{1}, 1, limit)
	c.put(1, "stale", []int{0}, 1, limit)
	if _, ok := c.get(2, "stale"); ok {
		t.Error("a value read under an older generation was kept")
	}
	if _, ok := c.get(3, "a"); ok {
		t.Error("a value was served after a newer write")
	}

	c.put(3, "x", nil, limit/2, limit)
	c.put(3, "y", nil, limit/2, limit)
	c.put(3, "y", nil, limit/2, limit) // replaced, not added
	if c.weight != limit {
		t.Fatalf("weight = %d, want %d", c.weight, limit)
	}
	c.put(3, "z", nil, 1, limit)
	if _, ok := c.get(3, "x"); ok || c.weight != 1 {
		t.Errorf("past the limit: x kept %v, weight %d; want a fresh start with z alone", ok, c.weight)
	}
	c.put(3, "huge", nil, limit+1, limit)
	if _, ok := c.get(3, "huge"); ok {
		t.Error("a value heavier than the whole limit was kept")
	}
	c.put(4, "off", nil, 1, 0)
	if _, ok := c.get(4, "off"); ok {
		t.Error("a value was kept with a limit of 0")
	}
}
