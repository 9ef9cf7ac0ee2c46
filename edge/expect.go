package edge

import (
	"context"

	"github.com/gin-gonic/gin"
)

// writeExpecter is the optional ability of a store that batches writes:
// told early that a request may write, it can gather that write with
// others' into one transaction (sqlstore's ExpectWrite: on PostgreSQL a
// batch waits briefly for writes announced and not yet queued). The
// returned done ends the announcement and must be called once the
// request ends.
type writeExpecter interface {
	ExpectWrite(ctx context.Context) (context.Context, func())
}

// expectWrite announces the request's write to the store, for a method
// that may write, and returns what ends the announcement.
func (s *Server) expectWrite(c *gin.Context) (done func()) {
	w, ok := s.store.(writeExpecter)
	if !ok || safeMethod(c.Request.Method) {
		return func() {}
	}
	ctx, done := w.ExpectWrite(c.Request.Context())
	c.Request = c.Request.WithContext(ctx)
	return done
}
