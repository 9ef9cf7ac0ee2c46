package index

import "time"

// A one-time sign-in link lets a person into the browser without a
// password: `tolk serve --demo` prints one for its administrator, who
// otherwise has only an API token. The link carries a secret shaped like
// a token (LoginLinkPrefix and 36 random characters); the index keeps
// only its SHA-256 (HashToken), as it does for tokens and sessions.
// Redeeming it removes it in the transaction that opens the session, so
// a link signs in once, and not after LoginLinkLifetime.

// LoginLinkPrefix starts every one-time sign-in secret.
const LoginLinkPrefix = "tll_"

// LoginLinkLifetime is how long a printed sign-in link stays usable. An
// hour is long enough to copy it from a terminal into a browser; a demo
// restarted later prints a fresh one.
const LoginLinkLifetime = time.Hour

// LooksLikeLoginLink reports whether s has the shape of a sign-in
// link's secret, so that garbage is refused without a lookup.
func LooksLikeLoginLink(s string) bool {
	return len(s) == len(LoginLinkPrefix)+tokenRandomLen && s[:len(LoginLinkPrefix)] == LoginLinkPrefix &&
		onlyTokenAlphabet(s[len(LoginLinkPrefix):])
}
