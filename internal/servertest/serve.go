package servertest

import (
	"bytes"
	"log/slog"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/tolk-project/tolk/index/sqlstore"
)

// logServerErrors logs the server's log lines of level ERROR.
func logServerErrors(tb testing.TB, log string) {
	for _, line := range strings.Split(log, "\n") {
		if strings.Contains(line, `"level":"ERROR"`) {
			tb.Logf("server: %s", line)
		}
	}
}

// SyncBuffer collects log output written from request goroutines.
type SyncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *SyncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *SyncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Running is a real HTTP server over the API with its log captured.
type Running struct {
	*httptest.Server
	Logs *SyncBuffer
}

// Serve starts a real HTTP server over store with its log captured; it
// closes when the test ends. New builds the index and the store around
// it; Serve is for a test that built its own.
func Serve(tb testing.TB, store Store, opts Options) *Running {
	tb.Helper()
	logs := &SyncBuffer{}
	opts.Logger = slog.New(slog.NewJSONHandler(logs, nil))
	srv := httptest.NewServer(Handler(store, opts))
	tb.Cleanup(srv.Close)
	tb.Cleanup(func() {
		// What a 500 was, which its answer does not say.
		if tb.Failed() {
			logServerErrors(tb, logs.String())
		}
	})
	return &Running{Server: srv, Logs: logs}
}

// DemoServer serves a fresh demo index: New(tb, WithDemo()).
func DemoServer(tb testing.TB) (*Running, *sqlstore.DB) {
	tb.Helper()
	e := New(tb, WithDemo())
	return e.Running, e.DB
}

// Serve starts a real HTTP server over store with its log captured; it
// closes when the test ends. New builds the index and the store around
// it; Serve is for a test that built its own.
