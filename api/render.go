package api

import (
	"bytes"
	"encoding/json"
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

// writeJSON encodes v as the response body with the exact Content-Type
// the reference sends. HTML characters stay unescaped, as the reference
// writes them. For HEAD, net/http drops the body but keeps its length.
func (s *Server) writeJSON(c *gin.Context, status int, v any) {
	pooled := bodyPool.Get().(*[]byte)
	body, err := encodeJSON((*pooled)[:0], v)
	defer func() {
		if cap(body) <= maxPooledBody {
			*pooled = body[:0]
			bodyPool.Put(pooled)
		}
	}()
	if err != nil {
		requestLogger(c, s.log).Error("encode response", "err", err)
		status, body = http.StatusInternalServerError, append(body[:0], serverErrorBody...)
	}
	h := c.Writer.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	c.Status(status)
	c.Writer.Write(body)
}

// encodeJSON appends v's JSON to b: through its own appendJSON when it
// has one, else by reflection.
func encodeJSON(b []byte, v any) ([]byte, error) {
	if a, ok := v.(jsonAppender); ok {
		if out := a.appendJSON(b); out != nil {
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
