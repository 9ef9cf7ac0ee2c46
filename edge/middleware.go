package edge

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"log/slog"
	"net/http"
	"runtime/debug"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/tolk-project/tolk/index"
)

const requestIDHeader = "X-Request-ID"

// StatusClientClosedRequest is what the request log shows for a request
// whose client went away before the answer was done (nginx's 499); no
// client ever receives it.
const StatusClientClosedRequest = 499

// ClientGone reports whether the client closed the connection (or
// stopped reading past the write deadline) while the request ran:
// net/http cancels the request's context then, and only then, before
// the handler returns.
func ClientGone(c *gin.Context) bool { return c.Request.Context().Err() != nil }

// requestScope runs around every request, matched or not: it settles the
// request ID, marks the request's start in its context (for the index,
// index.WithRequestStart), sets the headers every response carries, and
// logs one line when the request is done.
func (s *Server) requestScope(c *gin.Context) {
	start := time.Now()
	// The index need only have learned of other processes' writes
	// acknowledged before now, once per request.
	c.Request = c.Request.WithContext(index.WithRequestStart(c.Request.Context(), start))
	// Announced as early as the server sees it, so that a batch of
	// writes being gathered can wait for this one (expect.go).
	defer s.expectWrite(c)()
	id := requestID(c.GetHeader(requestIDHeader))
	h := c.Writer.Header()
	h.Set(requestIDHeader, id)
	// Bodies depend on Accept in the reference (JSON or its browsable
	// HTML), so caches must key on it (spec, "Common response behaviour").
	h.Set("Vary", "Accept")
	if s.opts.Version != "" {
		h.Set("Server", "Tolk/"+s.opts.Version)
	}
	if d := s.opts.WriteTimeout; d > 0 {
		w := &deadlineWriter{ResponseWriter: c.Writer, rc: http.NewResponseController(c.Writer), timeout: d}
		c.Writer = w
		w.extend()
		// The server flushes what is buffered after the handler returns.
		defer w.extend()
	}

	c.Next()

	status, took := c.Writer.Status(), time.Since(start)
	level := slog.LevelInfo
	switch {
	case ClientGone(c):
		// Whatever the handler answered, nobody got it, and the failure
		// (a cancelled query, a broken pipe) is not the server's.
		status, level = StatusClientClosedRequest, slog.LevelWarn
	case status >= 500:
		level = slog.LevelError
	}
	if s.opts.Requests != nil {
		s.opts.Requests.ObserveRequest(c.FullPath(), c.Request.Method, status, took)
	}
	s.log.LogAttrs(c.Request.Context(), level, "request",
		slog.String("request_id", id),
		slog.String("method", c.Request.Method),
		slog.String("route", c.FullPath()),
		slog.String("path", c.Request.URL.Path),
		slog.Int("status", status),
		slog.Duration("duration", took),
		slog.Int("bytes", max(0, c.Writer.Size())))
}

// requestID keeps a client's X-Request-ID when it is short and plain, so
// logs can be joined with the caller's; otherwise it makes a new one.
func requestID(given string) string {
	if n := len(given); n > 0 && n <= 128 {
		ok := true
		for i := 0; i < n && ok; i++ {
			b := given[i]
			ok = b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' ||
				b == '-' || b == '_' || b == '.' || b == ':'
		}
		if ok {
			return given
		}
	}
	var b [16]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// RequestLogger returns log with the request's ID, method and route, for
// the few lines logged during a request (failures and panics).
func RequestLogger(c *gin.Context, log *slog.Logger) *slog.Logger {
	return log.With("request_id", c.Writer.Header().Get(requestIDHeader),
		"method", c.Request.Method, "route", c.FullPath())
}

// errPanic stands for a recovered panic when choosing the response.
var errPanic = errors.New("edge: handler panicked")

// recovery turns a panic into the reference's JSON 500. The panic value
// and stack go to the log, never to the client.
func (s *Server) recovery(c *gin.Context) {
	defer func() {
		v := recover()
		if v == nil {
			return
		}
		if v == http.ErrAbortHandler {
			panic(v) // net/http's way of aborting a response on purpose
		}
		RequestLogger(c, s.log).Error("panic", "panic", v, "stack", string(debug.Stack()))
		c.Abort()
		if c.Writer.Written() {
			return // too late for a clean answer; the client sees a cut body
		}
		status, body := ErrorResponse(errPanic)
		s.WriteJSON(c, status, body)
	}()
	c.Next()
}

// deadlineWriter moves the connection's write deadline on before every
// write, so that a response takes as long as it needs while the client
// reads, and a client that stops reading ends it after timeout instead of
// pinning the response (and its memory) forever.
type deadlineWriter struct {
	gin.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
}

// extend sets the deadline; an error means the connection does not take
// deadlines (a test recorder), where there is nothing to bound.
func (w *deadlineWriter) extend() { _ = w.rc.SetWriteDeadline(time.Now().Add(w.timeout)) }

func (w *deadlineWriter) Write(p []byte) (int, error) {
	w.extend()
	return w.ResponseWriter.Write(p)
}

func (w *deadlineWriter) WriteString(s string) (int, error) {
	w.extend()
	return w.ResponseWriter.WriteString(s)
}

func (w *deadlineWriter) Flush() {
	w.extend()
	w.ResponseWriter.Flush()
}

// Unwrap lets http.ResponseController reach the connection.
func (w *deadlineWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// RequestObserver hears each request once it is answered: the route
// pattern that matched ("" when none did, so that arbitrary paths do not
// multiply series), the method as the client sent it, the status and the
// time taken. It must be safe for concurrent use and fast: it runs in
// every request.
type RequestObserver interface {
	ObserveRequest(route, method string, status int, took time.Duration)
}
