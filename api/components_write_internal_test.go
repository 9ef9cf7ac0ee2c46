package api

import "testing"

// TestWithoutCredentials: user names and passwords go; everything else,
// user@host:path (scp-like, not a URL) included, stays as written.
func TestWithoutCredentials(t *testing.T) {
	for in, want := range map[string]string{
		"https://user:secret@git.example.org/r.git": "https://git.example.org/r.git",
		"https://token@git.example.org/r.git":       "https://git.example.org/r.git",
		"ssh://git@git.example.org:2222/r.git":      "ssh://git.example.org:2222/r.git",
		"https://git.example.org/r.git":             "https://git.example.org/r.git",
		"https://git.example.org/a@b/r.git":         "https://git.example.org/a@b/r.git",
		"git@github.com:owner/r.git":                "git@github.com:owner/r.git",
		"file:///srv/git/r.git":                     "file:///srv/git/r.git",
		"":                                          "",
		"%zz@bad":                                   "%zz@bad",
	} {
		if got := withoutCredentials(in); got != want {
			t.Errorf("withoutCredentials(%q) = %q, want %q", in, got, want)
		}
	}
}
