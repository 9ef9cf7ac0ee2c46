package sqlite

import "testing"

// TestGenCacheBounds checks the cache's rules: an answer read before a
// write that touched everything is never kept, a newer answer is not
// replaced by an older one, the weight held stays within the limit, a
// replaced value is not counted twice, and a limit of 0 keeps nothing.
func TestGenCacheBounds(t *testing.T) {
	const limit = 1000
	var c genCache[string, []int]
	c.put(2, 2, "a", []int{1}, 1, limit)
	c.put(2, 1, "stale", []int{0}, 1, limit)
	if _, _, ok := c.get("stale"); ok {
		t.Error("a value read before a write that touched everything was kept")
	}
	c.put(2, 3, "a", []int{3}, 1, limit)
	c.put(2, 2, "a", []int{2}, 1, limit)
	if v, tag, _ := c.get("a"); tag != 3 || v[0] != 3 {
		t.Errorf("a = %v at %d, want the newer answer [3] at 3", v, tag)
	}
	c.put(3, 3, "b", nil, 1, limit)
	if _, _, ok := c.get("a"); ok {
		t.Error("the cache kept answers older than a write that touched everything")
	}

	c = genCache[string, []int]{}

	c.put(3, 3, "x", nil, limit/2, limit)
	c.put(3, 3, "y", nil, limit/2, limit)
	c.put(3, 3, "y", nil, limit/2, limit) // replaced, not added
	if c.weight != limit {
		t.Fatalf("weight = %d, want %d", c.weight, limit)
	}
	c.put(3, 3, "z", nil, 1, limit)
	if _, _, ok := c.get("x"); ok || c.weight != 1 {
		t.Errorf("past the limit: x kept %v, weight %d; want a fresh start with z alone", ok, c.weight)
	}
	c.put(3, 3, "huge", nil, limit+1, limit)
	if _, _, ok := c.get("huge"); ok {
		t.Error("a value heavier than the whole limit was kept")
	}
	c.put(3, 4, "off", nil, 1, 0)
	if _, _, ok := c.get("off"); ok {
		t.Error("a value was kept with a limit of 0")
	}
}

// TestWriteClock checks what makes a tagged answer stale: a write
// touching its scope or everything, and nothing else.
func TestWriteClock(t *testing.T) {
	var c writeClock
	mine, other := unitsDep(1), unitsDep(2)
	if mine == other || mine == 0 {
		t.Fatalf("deps %d and %d: want two distinct stripes", mine, other)
	}
	tag := c.now()
	c.advance(touchSet{deps: []dep{other}})
	if c.changedSince(tag, mine) {
		t.Error("a write to another scope made the answer stale")
	}
	if !c.changedSince(tag, other) {
		t.Error("a write to the answer's scope left it fresh")
	}
	tag = c.now()
	c.advance(touchSet{everything: true})
	if !c.changedSince(tag, mine) || !c.changedSince(tag, 0) {
		t.Error("a write touching everything left an answer fresh")
	}
	if c.changedSince(c.now(), mine) {
		t.Error("an answer read after every write is stale")
	}
}
