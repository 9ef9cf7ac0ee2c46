package edge

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/gin-gonic/gin"
)

// The response budget bounds the bytes of answers being built and sent
// at once, process-wide. A slow client pins its whole answer while it
// reads; five hundred of them reading a 9 MiB page each took the
// process from 189 MB to 3.1 GB. With the budget the next large answer
// waits for bytes to be given back, and after ResponseBudgetWait gets a
// 503 instead of the memory.
const (
	// DefaultResponseBudget is the budget unless Options say otherwise:
	// four answers of DefaultMaxResponseBytes, thousands of ordinary
	// pages.
	DefaultResponseBudget = 4 * DefaultMaxResponseBytes
	// DefaultResponseBudgetWait is how long an answer waits for its
	// share unless Options say otherwise.
	DefaultResponseBudgetWait = 5 * time.Second
	// encodeReserve is what an answer takes before it is built: an
	// ordinary page fits, and it bounds how many are built at once. A
	// larger one takes the rest once built, before it is sent.
	encodeReserve = 64 << 10
)

// busyBody is the 503 of an answer that found no share of the budget.
var busyBody = []byte(`{"type":"server_error","errors":[{"code":"service_unavailable","detail":"The server is busy sending large answers; try again shortly.","attr":null}]}`)

// byteBudget is a count of bytes that holders take and give back (a
// weighted semaphore). Waiters are not served in order: a small take
// may pass a large one, which then waits longer. It is safe for
// concurrent use.
type byteBudget struct {
	size    int64
	mu      sync.Mutex
	used    int64         // mu guards used, peak, waiting and free
	peak    int64         // the most ever used at once, for tests
	waiting int           // takers waiting for free
	free    chan struct{} // closed, and replaced, when bytes are given back to waiters
}

func newByteBudget(size int64) *byteBudget {
	return &byteBudget{size: size, free: make(chan struct{})}
}

// tryTake takes n bytes when they are free now.
func (b *byteBudget) tryTake(n int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.takeLocked(n)
}

func (b *byteBudget) takeLocked(n int64) bool {
	if b.used+n > b.size {
		return false
	}
	b.used += n
	b.peak = max(b.peak, b.used)
	return true
}

// take waits until n bytes are free and takes them, or returns false
// when ctx ends first. n must not exceed the budget's size.
func (b *byteBudget) take(ctx context.Context, n int64) bool {
	for {
		b.mu.Lock()
		if b.takeLocked(n) {
			b.mu.Unlock()
			return true
		}
		b.waiting++
		freed := b.free
		b.mu.Unlock()
		select {
		case <-freed:
		case <-ctx.Done():
		}
		b.mu.Lock()
		b.waiting--
		b.mu.Unlock()
		if ctx.Err() != nil {
			return false
		}
	}
}

// give gives n bytes back and wakes the waiters, if any: with none (the
// common case) it allocates nothing.
func (b *byteBudget) give(n int64) {
	if n == 0 {
		return
	}
	b.mu.Lock()
	b.used -= n
	if b.waiting > 0 {
		close(b.free)
		b.free = make(chan struct{})
	}
	b.mu.Unlock()
}

// Body is an answer encoded by EncodeBody: Bytes to send with Status,
// holding its share of the response budget and a pooled buffer until
// ReleaseBody.
type Body struct {
	Bytes  []byte
	Status int
	pooled *[]byte
	held   int64
}

// takeBudget takes n bytes of the response budget for c's answer: at
// once when they are free (the common case, with no timer), else
// waiting at most ResponseBudgetWait and as long as the request lasts.
func (s *Server) takeBudget(c *gin.Context, n int64) bool {
	if s.budget.tryTake(n) {
		return true
	}
	ctx, cancel := context.WithTimeout(c.Request.Context(), s.opts.ResponseBudgetWait)
	defer cancel()
	return s.budget.take(ctx, n)
}

// HoldResponse takes n bytes of the response budget for an answer built
// outside EncodeBody (a page), waiting up to ResponseBudgetWait; release
// gives them back once the answer is sent. ok is false when the budget
// had no room in time: answer 503.
func (s *Server) HoldResponse(c *gin.Context, n int) (release func(), ok bool) {
	held := min(int64(n), s.budget.size)
	if !s.takeBudget(c, held) {
		return func() {}, false
	}
	return func() { s.budget.give(held) }, true
}

// busy is the answer of an encode that found no room in the budget.
func busy(c *gin.Context) Body {
	c.Header("Retry-After", "1")
	return Body{Bytes: busyBody, Status: http.StatusServiceUnavailable}
}
