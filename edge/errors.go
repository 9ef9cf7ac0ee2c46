package edge

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sort"

	"github.com/gin-gonic/gin"
	"github.com/tolk-project/tolk/index"
)

// ErrorBody is the reference's error envelope
// (../shared/reference/weblate-core.md, "Errors").
type ErrorBody struct {
	Type   string       `json:"type"` // client_error, validation_error, server_error
	Errors []errorEntry `json:"errors"`
}

type errorEntry struct {
	Code   string  `json:"code"`
	Detail string  `json:"detail"`
	Attr   *string `json:"attr"` // the offending field, dotted when nested; null otherwise
}

// MethodError is a request whose method the resource does not accept.
type MethodError struct{ method string }

func (e *MethodError) Error() string { return fmt.Sprintf("edge: method %s not allowed", e.method) }

// RequestError is a client error that no index kind names: a body that
// does not parse (400 parse_error), a media type the endpoint does not
// read (415), a client over its rate limit (429 throttled).
type RequestError struct {
	Status       int
	Code, Detail string
}

func (e *RequestError) Error() string { return "edge: " + e.Detail }

// errorKinds maps each index error kind to its status, code and the
// reference's default message, used when the error carries none.
var errorKinds = []struct {
	kind   error
	status int
	code   string
	detail string
}{
	{index.ErrNotFound, http.StatusNotFound, "not_found", "Not found."},
	{index.ErrUnauthenticated, http.StatusUnauthorized, "not_authenticated",
		"Authentication credentials were not provided."},
	{index.ErrPermission, http.StatusForbidden, "permission_denied", index.MsgNoPermission},
	{index.ErrConflict, http.StatusConflict, "conflict", "Object already exists."},
	{index.ErrLocked, http.StatusLocked, "locked", "The component is locked."},
	{index.ErrInvalid, http.StatusBadRequest, "invalid", "Invalid input."},
}

// ErrorResponse turns err into a status and envelope. Internal errors get
// a generic message: their text is for the log, not the client.
func ErrorResponse(err error) (int, ErrorBody) {
	var fe *index.FieldError
	if errors.As(err, &fe) {
		return http.StatusBadRequest, ErrorBody{Type: "validation_error", Errors: fieldEntries(fe)}
	}
	var ae *authError
	if errors.As(err, &ae) {
		return http.StatusUnauthorized, clientError("authentication_failed", ae.detail)
	}
	var re *RequestError
	if errors.As(err, &re) {
		return re.Status, clientError(re.Code, re.Detail)
	}
	var me *MethodError
	if errors.As(err, &me) {
		return http.StatusMethodNotAllowed, clientError("method_not_allowed",
			fmt.Sprintf("Method %q not allowed.", me.method))
	}
	for _, k := range errorKinds {
		if !errors.Is(err, k.kind) {
			continue
		}
		detail := index.ErrorMessage(err)
		if detail == "" {
			detail = k.detail
		}
		if k.kind == index.ErrInvalid {
			return k.status, ErrorBody{Type: "validation_error",
				Errors: []errorEntry{{Code: k.code, Detail: detail}}}
		}
		return k.status, clientError(k.code, detail)
	}
	return http.StatusInternalServerError, ErrorBody{Type: "server_error",
		Errors: []errorEntry{{Code: "error", Detail: "A server error occurred."}}}
}

func clientError(code, detail string) ErrorBody {
	return ErrorBody{Type: "client_error", Errors: []errorEntry{{Code: code, Detail: detail}}}
}

// fieldEntries gives one entry per field, ordered by attribute name so
// bodies are stable.
func fieldEntries(fe *index.FieldError) []errorEntry {
	attrs := make([]string, 0, len(fe.Fields))
	for a := range fe.Fields {
		attrs = append(attrs, a)
	}
	sort.Strings(attrs)
	out := make([]errorEntry, len(attrs))
	for i, a := range attrs {
		p := fe.Fields[a]
		code := p.Code
		if code == "" {
			code = "invalid"
		}
		out[i] = errorEntry{Code: code, Detail: p.Detail, Attr: &attrs[i]}
	}
	return out
}

// Fail answers the request with err's status and envelope. It is the
// only place that picks an error status; 5xx are logged with the request
// ID, everything else is the client's business.
func (s *Server) Fail(c *gin.Context, err error) {
	status, body := ErrorResponse(err)
	if status >= 500 {
		LogFailure(c, s.log, err)
	}
	if status == http.StatusUnauthorized {
		c.Header("WWW-Authenticate", "Token")
	}
	s.WriteJSON(c, status, body)
	c.Abort()
}

// LogFailure logs err, which failed the request with a 5xx, once, with
// the request's ID: at ERROR, or at WARN when the client went away and
// the failure (a cancelled query) is not the server's, as the request
// line then says 499. The API's and the pages' error answers all log
// through it.
func LogFailure(c *gin.Context, log *slog.Logger, err error) {
	level := slog.LevelError
	if ClientGone(c) || errors.Is(err, context.Canceled) {
		level = slog.LevelWarn
	}
	RequestLogger(c, log).Log(c.Request.Context(), level, "request failed", "err", err)
}
