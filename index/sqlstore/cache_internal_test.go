package sqlstore

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

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

// TestShareReadsOnce checks that askers of a missing answer at one clock
// reading share one read, that one asking at a later reading (after a
// write it may have made) reads for itself, and that a failed shared
// read answers its error.
func TestShareReadsOnce(t *testing.T) {
	var c genCache[string, int]
	started, release := make(chan struct{}), make(chan struct{})
	var reads atomic.Int32
	slow := func() (int, error) {
		if reads.Add(1) == 1 {
			close(started)
			<-release
		}
		return 42, nil
	}
	results := make(chan int, 3)
	go func() { v, _ := c.share("k", 7, slow); results <- v }()
	<-started
	waiting := make(chan struct{})
	go func() { close(waiting); v, _ := c.share("k", 7, slow); results <- v }()
	<-waiting
	for n := 0; n == 0; time.Sleep(time.Millisecond) { // until the second asker waits
		c.mu.Lock()
		n = c.flights["k"].waiters
		c.mu.Unlock()
	}
	if v, _ := c.share("k", 8, slow); v != 42 || reads.Load() != 2 {
		t.Errorf("an asker after a write got %d after %d reads, want its own read", v, reads.Load())
	}
	close(release)
	for range 2 {
		if v := <-results; v != 42 {
			t.Errorf("shared answer %d", v)
		}
	}
	if n := reads.Load(); n != 2 {
		t.Errorf("%d reads for two askers at one reading and one later, want 2", n)
	}

	failed := errors.New("request ended")
	first := true
	v, err := c.share("f", 1, func() (int, error) {
		if first {
			first = false
			return 0, failed
		}
		return 1, nil
	})
	if !errors.Is(err, failed) || v != 0 {
		t.Errorf("the failing read answered %d, %v", v, err)
	}
}

// TestUnitsTouchedByTranslation: every write of a translation's units
// declares the translation through Tx.touchUnits, not its stripe alone
// (tx.touch(unitsDep(id))): the clock's watched translations (has:glossary's
// glossary source translations, writeClock.watchUnits) learn of a write
// only from the former, and a term edit declared by stripe alone would
// never reach has:glossary. unitsDep(0), the lists over every
// translation, names none.
func TestUnitsTouchedByTranslation(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(src), "\n") {
			if !strings.Contains(line, "touch(") {
				continue
			}
			for _, arg := range strings.Split(line, "unitsDep(")[1:] {
				if !strings.HasPrefix(arg, "0)") {
					t.Errorf("%s:%d: a translation's units touched by stripe alone (use Tx.touchUnits): %s", name, i+1, strings.TrimSpace(line))
				}
			}
		}
	}
}

// TestWatchedUnits: the clock answers for a watched translation by the
// writes that named it, not by its stripe; by its stripe after a write
// whose translations are unknown (a replay) or for one not watched;
// and a translation newly watched counts as touched when it was watched.
func TestWatchedUnits(t *testing.T) {
	var c writeClock
	const glossary = 7
	other := int64(glossary + 1) // a translation on the glossary's stripe
	for unitsDep(other) != unitsDep(glossary) {
		other++
	}
	c.watchUnits([]int64{glossary})
	tag := c.now()
	c.advance(touchSet{deps: []dep{unitsDep(other)}, units: []int64{other}})
	if c.unitsChangedSince(tag, glossary) {
		t.Error("a write of another translation on its stripe moved a watched translation")
	}
	if !c.unitsChangedSince(tag, other) {
		t.Error("a translation not watched did not move by its stripe")
	}
	c.advance(touchSet{deps: []dep{unitsDep(glossary)}, units: []int64{glossary}})
	if !c.unitsChangedSince(tag, glossary) {
		t.Error("a write of a watched translation did not move it")
	}
	tag = c.now()
	c.advance(decodeDeps(encodeDeps(touchSet{deps: []dep{unitsDep(glossary)}})))
	if !c.unitsChangedSince(tag, glossary) {
		t.Error("a replayed write on its stripe did not move a watched translation")
	}
	tag = c.now()
	c.advance(touchSet{deps: []dep{unitsDep(other)}, units: []int64{other}})
	c.watchUnits([]int64{glossary, other})
	if !c.unitsChangedSince(tag, other) {
		t.Error("a translation watched after a write of it did not count as moved")
	}
	if c.unitsChangedSince(c.now(), glossary) || c.unitsChangedSince(c.now(), other) {
		t.Error("moved with no write since")
	}
	c.advance(touchSet{everything: true})
	if !c.unitsChangedSince(tag, glossary) {
		t.Error("a write that touched everything did not move a watched translation")
	}
}
