package edge

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gin-gonic/gin"
)

// budgetServer is an edge on a loopback listener with a 1 MiB response
// budget and two answers of 600 KiB: /big, written as any JSON answer,
// and /slow, which holds its share until gate is closed, as a client
// that reads slowly makes an answer do.
func budgetServer(t *testing.T, wait time.Duration) (s *Server, url string, gate chan struct{}) {
	t.Helper()
	s = New(nil, Options{ResponseBudget: 1 << 20, ResponseBudgetWait: wait})
	big := strings.Repeat("x", 600<<10)
	gate = make(chan struct{})
	s.Router().Handle("GET", "/big", func(c *gin.Context) { s.WriteJSON(c, http.StatusOK, big) })
	s.Router().Handle("GET", "/slow", func(c *gin.Context) {
		b := s.EncodeBody(c, big)
		defer s.ReleaseBody(b)
		<-gate
		s.SendJSON(c, b.Status, b.Bytes)
	})
	srv := httptest.NewServer(s.Handler()) // 127.0.0.1
	t.Cleanup(srv.Close)
	return s, srv.URL, gate
}

// fetch GETs url and returns the status and the body's length.
func fetch(t *testing.T, url string) (int, int, string) {
	t.Helper()
	r, err := http.Get(url)
	if err != nil {
		t.Error(err)
		return 0, 0, ""
	}
	defer r.Body.Close()
	n, _ := io.Copy(io.Discard, r.Body)
	return r.StatusCode, int(n), r.Header.Get("Retry-After")
}

// getAll GETs url n times at once and returns the statuses.
func getAll(t *testing.T, url string, n int) []int {
	var wg sync.WaitGroup
	statuses := make([]int, n)
	for i := range n {
		wg.Go(func() {
			status, size, retry := fetch(t, url)
			if status == http.StatusServiceUnavailable && (retry != "1" || size != len(busyBody)) {
				t.Errorf("503 with Retry-After %q and %d bytes", retry, size)
			}
			statuses[i] = status
		})
	}
	wg.Wait()
	return statuses
}

// waitHeld waits until the budget holds at least n bytes, or, with
// drained, nothing.
func waitHeld(t *testing.T, s *Server, n int64, drained bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		s.budget.mu.Lock()
		used := s.budget.used
		s.budget.mu.Unlock()
		if (!drained && used >= n) || (drained && used == 0) {
			return
		}
	}
	t.Fatalf("the budget never held %d bytes (drained: %v)", n, drained)
}

// checkPeak checks, once every answer gave its share back, that the
// budget never held more than its size.
func checkPeak(t *testing.T, s *Server) {
	t.Helper()
	waitHeld(t, s, 0, true) // a handler gives back after its client read
	s.budget.mu.Lock()
	defer s.budget.mu.Unlock()
	if s.budget.peak > s.budget.size {
		t.Errorf("budget peak %d, over its size %d", s.budget.peak, s.budget.size)
	}
}

// TestResponseBudget: while one large answer holds most of the budget
// (a client reading slowly), the next ones wait their time: they get a
// 503 when it is not given back in time, and are sent, within the
// budget, when it is. The budget never holds more than its size, and the
// next answer goes through once all are sent.
func TestResponseBudget(t *testing.T) {
	for _, tc := range []struct {
		name    string
		wait    time.Duration // ResponseBudgetWait
		n       int           // answers asked for at once
		release time.Duration // when the slow answer is sent; 0: after the others
		want    int
	}{
		{"refused after the wait", 200 * time.Millisecond, 6, 0, http.StatusServiceUnavailable},
		{"sent after waiting", 10 * time.Second, 4, 100 * time.Millisecond, http.StatusOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, url, gate := budgetServer(t, tc.wait)
			slow := make(chan int)
			go func() { status, _, _ := fetch(t, url+"/slow"); slow <- status }()
			waitHeld(t, s, 600<<10, false)
			if tc.release > 0 {
				time.AfterFunc(tc.release, func() { close(gate) })
			}
			start := time.Now()
			for i, status := range getAll(t, url+"/big", tc.n) {
				if status != tc.want {
					t.Errorf("request %d: %d, want %d", i, status, tc.want)
				}
			}
			took := time.Since(start)
			if took > 3*time.Second {
				t.Errorf("the answers took %s", took)
			}
			// A refusal comes after the wait, not before it.
			if tc.want == http.StatusServiceUnavailable && took < tc.wait*3/4 {
				t.Errorf("refused after %s, before the wait of %s", took, tc.wait)
			}
			if tc.release == 0 {
				close(gate)
			}
			if status := <-slow; status != http.StatusOK {
				t.Errorf("the slow answer: %d", status)
			}
			if status, size, _ := fetch(t, url+"/big"); status != http.StatusOK || size != 600<<10+2 {
				t.Errorf("after the slow answer: %d, %d bytes", status, size)
			}
			checkPeak(t, s)
		})
	}
}
