package edge

import (
	"bytes"
	"errors"
	"io"
	"mime"
	"net/http"
)

// errUnclosedMultipart is a multipart body that stops before its closing
// boundary. Go's multipart reader takes an end of input inside a part's
// headers for the end of the form, so a body cut short there would be
// read as a shorter form; the fields after the cut would silently take
// their defaults.
var errUnclosedMultipart = errors.New("the body ends before its closing boundary")

// closingReader reads a multipart body and notes whether its closing
// boundary ("--" boundary "--") went past.
type closingReader struct {
	r      io.Reader
	needle []byte
	carry  []byte // the last len(needle)-1 bytes read, for a needle split across reads
	closed bool
}

// WatchClosing wraps the request's body when it is multipart, and
// returns the reader to ask once the body is read; nil when the request
// is not multipart or names no boundary (which the parser refuses).
func WatchClosing(r *http.Request) *closingReader {
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" || params["boundary"] == "" {
		return nil
	}
	cr := &closingReader{r: r.Body, needle: []byte("--" + params["boundary"] + "--")}
	r.Body = struct {
		io.Reader
		io.Closer
	}{cr, r.Body}
	return cr
}

func (cr *closingReader) Read(p []byte) (int, error) {
	n, err := cr.r.Read(p)
	if n > 0 && !cr.closed {
		window := append(cr.carry, p[:n]...)
		cr.closed = bytes.Contains(window, cr.needle)
		keep := min(len(window), len(cr.needle)-1)
		cr.carry = append(cr.carry[:0], window[len(window)-keep:]...)
	}
	return n, err
}

// Check returns errUnclosedMultipart unless the closing boundary was
// read; a nil reader checks nothing.
func (cr *closingReader) Check() error {
	if cr == nil || cr.closed {
		return nil
	}
	return errUnclosedMultipart
}
