package index

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Error kinds. Every layer wraps one of these (with a message safe to show
// users) when the caller can act on the failure; everything else is an
// internal error. Test with errors.Is.
var (
	ErrNotFound        = errors.New("index: not found")
	ErrInvalid         = errors.New("index: invalid")
	ErrConflict        = errors.New("index: conflict")
	ErrPermission      = errors.New("index: permission denied")
	ErrUnauthenticated = errors.New("index: not authenticated")
	ErrLocked          = errors.New("index: locked")
)

// Error carries a kind plus a message that is safe to show users.
type Error struct {
	Kind    error  // one of the Err* kinds above
	Message string // safe for users
}

func (e *Error) Error() string { return e.Message }

// Unwrap lets errors.Is match the kind.
func (e *Error) Unwrap() error { return e.Kind }

// Errorf builds an *Error of the given kind with a formatted user message.
func Errorf(kind error, format string, args ...any) error {
	return &Error{Kind: kind, Message: fmt.Sprintf(format, args...)}
}

// FieldError is an ErrInvalid that names the offending fields. Keys are the
// API's attribute names (dotted for nested ones); values are user messages.
type FieldError struct {
	Fields map[string]FieldProblem
}

// FieldProblem is one field's complaint: a machine code such as "required"
// or "invalid" and a sentence for people.
type FieldProblem struct {
	Code   string
	Detail string
}

func (e *FieldError) Error() string {
	keys := make([]string, 0, len(e.Fields))
	for k := range e.Fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + ": " + e.Fields[k].Detail
	}
	return "invalid " + strings.Join(parts, "; ")
}

// Unwrap makes a FieldError match ErrInvalid.
func (e *FieldError) Unwrap() error { return ErrInvalid }

// ErrorMessage returns the user-safe message of err if it carries one, and
// "" for internal errors.
func ErrorMessage(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Message
	}
	return ""
}
