package edge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"sync"

	"github.com/gin-gonic/gin"
)

// bodyPool recycles response buffers; a units page is tens of kilobytes.
var bodyPool = sync.Pool{New: func() any { return new([]byte) }}

// maxPooledBody keeps one huge response from pinning its buffer forever.
const maxPooledBody = 1 << 20

// serverErrorBody is sent when a response cannot be encoded.
var serverErrorBody = []byte(`{"type":"server_error","errors":[{"code":"error","detail":"A server error occurred.","attr":null}]}`)

// WriteJSON encodes v as the response body with the exact Content-Type
// the reference sends. HTML characters stay unescaped, as the reference
// writes them. For HEAD, net/http drops the body but keeps its length.
func (s *Server) WriteJSON(c *gin.Context, status int, v any) {
	b := s.EncodeBody(c, v)
	defer s.ReleaseBody(b)
	if b.Status != http.StatusOK {
		status = b.Status
	}
	s.SendJSON(c, status, b.Bytes)
}

// EncodeBody encodes v into a pooled buffer, within the response budget
// (budget.go): give it back with ReleaseBody once sent. Its Status is
// 200, or what replaced the body: 500 when v cannot be encoded, 400 when
// it is over MaxResponseBytes, 503 when the budget had no room for it in
// time.
func (s *Server) EncodeBody(c *gin.Context, v any) Body {
	reserve := min(encodeReserve, s.budget.size)
	if !s.takeBudget(c, reserve) {
		return busy(c)
	}
	b := Body{Status: http.StatusOK, pooled: bodyPool.Get().(*[]byte), held: reserve}
	body, err := EncodeJSON((*b.pooled)[:0], v)
	switch {
	case err != nil:
		RequestLogger(c, s.log).Error("encode response", "err", err)
		b.Bytes, b.Status = append(body[:0], serverErrorBody...), http.StatusInternalServerError
	case len(body) > s.opts.MaxResponseBytes:
		// Long strings make a page of many rows huge: a client that
		// reads it slowly would pin it, and many of them the memory.
		b.Bytes, b.Status = append(body[:0], tooLargeBody(len(body), s.opts.MaxResponseBytes)...), http.StatusBadRequest
	default:
		b.Bytes = body
		// The rest of a large answer's share, held until it is sent.
		if more := min(int64(len(body)), s.budget.size) - reserve; more > 0 {
			if !s.takeBudget(c, more) {
				s.ReleaseBody(b)
				return busy(c)
			}
			b.held += more
		}
	}
	return b
}

// ReleaseBody gives back an EncodeBody's share of the response budget and
// its buffer.
func (s *Server) ReleaseBody(b Body) {
	s.budget.give(b.held)
	if b.pooled != nil && cap(b.Bytes) <= maxPooledBody {
		*b.pooled = b.Bytes[:0]
		bodyPool.Put(b.pooled)
	}
}

// SendJSON sends body as the JSON answer.
func (s *Server) SendJSON(c *gin.Context, status int, body []byte) {
	h := c.Writer.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	c.Status(status)
	c.Writer.Write(body)
}

// JSONAppender is a response body that writes its own JSON: AppendJSON
// appends it to b, or returns nil to fall back to encoding/json. Its
// output must be byte for byte what WriteJSON's encoding/json encoder
// (HTML escaping off) writes for the same value; api's jsonappend_test.go
// checks each implementation against it. Only the bodies that dominate
// the list endpoints implement it: a units page is 50 objects of 29
// fields, and reflection over them was as costly as reading them from
// the index.
type JSONAppender interface {
	AppendJSON(b []byte) []byte
}

// EncodeJSON appends v's JSON to b: through its own AppendJSON when it
// has one, else by reflection.
func EncodeJSON(b []byte, v any) ([]byte, error) {
	if a, ok := v.(JSONAppender); ok {
		if out := a.AppendJSON(b); out != nil {
			return out, nil
		}
	}
	buf := bytes.NewBuffer(b)
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return b, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// DefaultMaxResponseBytes bounds one JSON answer unless Options say
// otherwise: far above any page of ordinary strings (a units page of
// 1,000 rows is a few MiB), far below what a few slow clients could pin.
const DefaultMaxResponseBytes = 64 << 20

// tooLargeBody is the reference's validation envelope on page_size for an
// answer of n bytes over limit: lists are the only answers that grow
// with a parameter, so it says which one to lower.
func tooLargeBody(n, limit int) []byte {
	detail := fmt.Sprintf("This page would be %.1f MiB, over the limit of %.1f MiB of one response; ask for a smaller page_size.",
		float64(n)/(1<<20), float64(limit)/(1<<20))
	b, _ := json.Marshal(map[string]any{"type": "validation_error", "errors": []map[string]any{
		{"code": "invalid", "detail": detail, "attr": "page_size"}}})
	return b
}
