package index

import (
	"sync"
	"time"

	"golang.org/x/crypto/bcrypt"
)

// Passwords let people sign in from the browser; tools use tokens. They
// are stored as bcrypt hashes (golang.org/x/crypto/bcrypt): memory-hard
// enough at cost 10 to make a stolen table slow to search, with the salt
// and cost inside the hash, so raising the cost later needs no migration.

// MinPasswordLength and MaxPasswordLength bound a password; bcrypt reads
// only the first 72 bytes, so a longer one would silently lose its end.
const (
	MinPasswordLength = 8
	MaxPasswordLength = 72
)

// ErrPasswordLength is a password outside MinPasswordLength (characters)
// and MaxPasswordLength (bytes).
var ErrPasswordLength = Errorf(ErrInvalid, "A password needs %d to %d bytes.", MinPasswordLength, MaxPasswordLength)

// HashPassword returns the hash under which a password is stored, or
// ErrPasswordLength.
func HashPassword(password string) (string, error) {
	if len(password) < MinPasswordLength || len(password) > MaxPasswordLength {
		return "", ErrPasswordLength
	}
	h, err := bcrypt.GenerateFromPassword([]byte(password), bcrypt.DefaultCost)
	return string(h), err
}

// dummyHash is compared against when a user has no password or does not
// exist, so that the time a failed sign-in takes does not tell which.
// It is made at the first such sign-in, not when a binary starts.
var dummyHash = sync.OnceValue(func() []byte {
	h, _ := bcrypt.GenerateFromPassword([]byte("tolk: no such password"), bcrypt.DefaultCost)
	return h
})

// PasswordMatches reports whether password is the one hash was made
// from; an empty hash (no password set) matches nothing, in the time a
// real comparison takes.
func PasswordMatches(hash, password string) bool {
	if hash == "" || len(password) > MaxPasswordLength {
		bcrypt.CompareHashAndPassword(dummyHash(), []byte(password))
		return false
	}
	return bcrypt.CompareHashAndPassword([]byte(hash), []byte(password)) == nil
}

// SessionPrefix starts every session cookie's value.
const SessionPrefix = "tls_"

// SessionLifetime is how long a browser session lasts after sign-in.
const SessionLifetime = 14 * 24 * time.Hour

// Session is a signed-in browser, as stored: the SHA-256 of its cookie
// (HashToken), never the cookie.
type Session struct {
	Hash    string
	UserID  int64
	Expires time.Time
}

// LooksLikeSession reports whether s has the shape of a session cookie's
// value, so that garbage is refused without a lookup.
func LooksLikeSession(s string) bool {
	return len(s) == len(SessionPrefix)+tokenRandomLen && s[:len(SessionPrefix)] == SessionPrefix &&
		onlyTokenAlphabet(s[len(SessionPrefix):])
}
