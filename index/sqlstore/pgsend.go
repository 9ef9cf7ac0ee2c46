package sqlstore

import (
	"errors"
	"slices"

	"github.com/jackc/pgx/v5/pgproto3"
)

// The send buffer of a flush. pgx encodes a batch's messages (a Bind
// and an Execute a statement) by appending them to its connection's
// send buffer, which it shrinks back to 1 KiB after each flush that
// wrote more: a batch of a few KiB (the statistics upsert's hundreds of
// parameters, a multi-row change INSERT) grew it from 1 KiB by append's
// steps, a dozen allocations and copies whose sum is several times the
// batch, at every such flush (Bind.Encode was 12% of the bytes the
// writer allocated at concurrency 8, issue 31). flush makes room for
// the batch first, one allocation of about its size (sendRoom).

// sendRoom is a message of no bytes whose encoding grows the send
// buffer to hold n more: sent before the batch, it leaves the bytes
// sent unchanged.
type sendRoom int

func (sendRoom) Frontend() {}

func (n sendRoom) Encode(dst []byte) ([]byte, error) { return slices.Grow(dst, int(n)), nil }

func (sendRoom) Decode([]byte) error { return errors.New("sqlstore: sendRoom is never received") }

var _ pgproto3.FrontendMessage = sendRoom(0)

// sendSize estimates the bytes pgx sends for statements of args: a
// Bind (the cached statement's 58-byte name, a format code and a length
// a parameter, the parameter) and an Execute each, and the Sync. An
// estimate short of the truth costs one more growth, one past it unused
// room; neither changes what is sent.
func sendSize(stmts []laterStmt) int {
	n := 5
	for i := range stmts {
		n += 128
		for _, a := range stmts[i].args {
			n += 6 + argSize(a)
		}
	}
	return n
}

// argSize is the encoded size of a parameter, as pgx sends it: integers
// and floats in binary, strings as text, arrays of integers in binary.
func argSize(a any) int {
	switch a := a.(type) {
	case nil:
		return 0
	case string:
		return len(a)
	case []byte:
		return len(a)
	case []int64:
		return 20 + 12*len(a)
	case []string:
		n := 20
		for _, s := range a {
			n += 4 + len(s)
		}
		return n
	default:
		return 8
	}
}
