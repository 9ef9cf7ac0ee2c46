package vcs

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCreateBare(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	files := map[string][]byte{
		"a.txt":           []byte("a\n"),
		"a-b":             []byte("dash\n"),
		"a/b":             []byte("nested\n"),
		"a/c/d.json":      []byte("{}"),
		"locales/en.json": []byte(`{"hello": "Hello"}`),
		"empty":           {},
	}
	dir := filepath.Join(t.TempDir(), "demo", "app.git")
	if err := CreateBare(ctx, dir, "", files, "Add demo translations"); err != nil {
		t.Fatalf("CreateBare: %v", err)
	}
	// The git CLI finds a valid repository with the expected content.
	if out := mustGit(t, dir, "fsck", "--strict", "--no-dangling"); out != "" {
		t.Errorf("git fsck:\n%s", out)
	}
	if got := mustGit(t, dir, "symbolic-ref", "HEAD"); got != "refs/heads/main" {
		t.Errorf("HEAD -> %s, want refs/heads/main", got)
	}
	if got := mustGit(t, dir, "log", "--format=%an <%ae>|%s"); got != "Tolk <tolk@localhost>|Add demo translations" {
		t.Errorf("git log = %q", got)
	}
	r := mustClone(t, "file://"+dir)
	listed, err := listFiles(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(listed) != len(files) {
		t.Errorf("clone has %d files, want %d", len(listed), len(files))
	}
	for p, want := range files {
		if got := mustReadFile(t, r, p); got != string(want) {
			t.Errorf("%s = %q, want %q", p, got, want)
		}
	}

	if err := CreateBare(ctx, t.TempDir(), "dev", nil, "Empty"); err != nil {
		t.Errorf("CreateBare(no files, empty dir) = %v", err)
	}

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	tests := []struct {
		name    string
		ctx     context.Context
		dir     string
		files   map[string][]byte
		msg     string
		wantErr error
	}{
		{name: "exists", dir: dir, msg: "m", wantErr: ErrDirNotEmpty},
		{name: "no dir", msg: "m", wantErr: ErrMissingDir},
		{name: "no message", dir: "x", wantErr: ErrMissingMessage},
		{name: "bad path", dir: "x", msg: "m", files: map[string][]byte{"../x": nil}, wantErr: ErrInvalidPath},
		{name: "file and dir", dir: "x", msg: "m", files: map[string][]byte{"a": nil, "a/b": nil}, wantErr: ErrInvalidPath},
		{name: "cancelled", ctx: cancelled, dir: "x", msg: "m", files: map[string][]byte{"a": nil}, wantErr: context.Canceled},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := tc.ctx
			if ctx == nil {
				ctx = context.Background()
			}
			d := tc.dir
			if d == "x" {
				d = filepath.Join(t.TempDir(), "x.git")
			}
			err := CreateBare(ctx, d, "main", tc.files, tc.msg)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("CreateBare = %v, want %v", err, tc.wantErr)
			}
			if tc.dir == "x" {
				entries, _ := os.ReadDir(filepath.Dir(d))
				if len(entries) != 0 {
					t.Errorf("failed CreateBare left %d entries", len(entries))
				}
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "HEAD")); err != nil || !strings.HasSuffix(dir, ".git") {
		t.Errorf("existing repository was touched: %v", err)
	}
}
