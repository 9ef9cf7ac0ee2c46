package api

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"sync"

	"github.com/gin-gonic/gin"
)

// bufPool recycles response buffers; a units page is tens of kilobytes.
var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// maxPooledBuf keeps one huge response from pinning its buffer forever.
const maxPooledBuf = 1 << 20

// serverErrorBody is sent when a response cannot be encoded.
var serverErrorBody = []byte(`{"type":"server_error","errors":[{"code":"error","detail":"A server error occurred.","attr":null}]}`)

// writeJSON encodes v as the response body with the exact Content-Type
// the reference sends. HTML characters stay unescaped, as the reference
// writes them. For HEAD, net/http drops the body but keeps its length.
func (s *Server) writeJSON(c *gin.Context, status int, v any) {
	buf := bufPool.Get().(*bytes.Buffer)
	buf.Reset()
	defer func() {
		if buf.Cap() <= maxPooledBuf {
			bufPool.Put(buf)
		}
	}()
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	body := serverErrorBody
	if err := enc.Encode(v); err != nil {
		requestLogger(c, s.log).Error("encode response", "err", err)
		status = http.StatusInternalServerError
	} else {
		body = bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	}
	h := c.Writer.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	c.Status(status)
	c.Writer.Write(body)
}
