package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"log/slog"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestCommandLine runs the built binary as an operator would: --version
// and version print the revision it was built from, --help exits 0 and
// lists every flag of tolk serve, and a wrong command line (a stray
// argument, an unknown flag or value) exits 2 saying what is wrong.
func TestCommandLine(t *testing.T) {
	rev := cliRevision()
	if rev == "" {
		t.Skip("not in a git checkout")
	}
	bin := buildTolk(t) // with the revision
	var flags []string
	cfg := DefaultConfig()
	serveFlags(&cfg, new(string)).VisitAll(func(f *flag.Flag) { flags = append(flags, "\n  -"+f.Name) })

	data := t.TempDir()
	for _, tc := range []struct {
		args   []string
		code   int
		stdout []string
		stderr string
	}{
		// The version is "devel+<rev>" from a worktree and a
		// pseudo-version naming the revision from a clone (Go stamps it
		// from the repository): the short revision is in both.
		{[]string{"--version"}, 0, []string{"tolk ", rev[:12], "revision " + rev}, ""},
		{[]string{"version"}, 0, []string{"revision " + rev}, ""},
		{[]string{"version", "now"}, 2, nil, `version takes no arguments, got "now"`},
		{[]string{"--help"}, 0, append([]string{"tolk user", "tolk token", "tolk version"}, flags...), ""},
		{[]string{"serve", "--help"}, 0, flags, ""},
		{[]string{"serve", "-h"}, 0, flags, ""},
		{[]string{"user", "--help"}, 0, []string{"tolk user add NAME"}, ""},
		{[]string{"token", "--help"}, 0, []string{"tolk token create NAME"}, ""},
		{nil, 2, nil, "tolk serve [flags]"},
		{[]string{"serv"}, 2, nil, `tolk: unknown command "serv"`},
		{[]string{"serve", "--data", data, "extra"}, 2, nil, `tolk serve: unexpected argument "extra"`},
		{[]string{"serve", "--data", data, "--log-format", "xml"}, 2, nil, `tolk serve: --log-format "xml": want text or json`},
		{[]string{"serve", "--data", data, "--log-level", "loud"}, 2, nil, `invalid value "loud" for flag -log-level`},
		{[]string{"serve", "--data", data, "--colour"}, 2, nil, "flag provided but not defined: -colour"},
		{[]string{"serve", "--data", data, "--max-response-size", "abc"}, 2, nil, `invalid value "abc" for flag -max-response-size`},
		{[]string{"serve", "--data", data, "--max-response-size", "0"}, 2, nil, "want a positive number of bytes"},
		{[]string{"serve", "--data", data, "--page-cache-size", "-1"}, 2, nil, `invalid value "-1" for flag -page-cache-size`},
		{[]string{"serve", "--data", data, "--listen", "127.0.0.1:0", "--metrics-listen", "nonsense"}, 1, nil, "metrics"},
		{[]string{"user", "frobnicate", "--data", data}, 2, nil, "usage: tolk user"},
		{[]string{"serve", "--data", data, "--config", filepath.Join(data, "missing.yaml"), "--listen", "127.0.0.1:0"}, 1, nil, "tolk: read config"},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		cmd := exec.CommandContext(ctx, bin, tc.args...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		cancel()
		code := 0
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			code = exit.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if code != tc.code {
			t.Errorf("tolk %q: exit %d, want %d\nstdout: %s\nstderr: %s", tc.args, code, tc.code, stdout.String(), stderr.String())
		}
		for _, want := range tc.stdout {
			if !strings.Contains(stdout.String(), want) {
				t.Errorf("tolk %q: stdout lacks %q:\n%s", tc.args, want, stdout.String())
			}
		}
		if !strings.Contains(stderr.String(), tc.stderr) {
			t.Errorf("tolk %q: stderr lacks %q:\n%s", tc.args, tc.stderr, stderr.String())
		}
	}
}

// TestJSONLogDurations: JSON logs write durations in seconds, not
// slog's nanoseconds; text logs keep Go's duration strings.
func TestJSONLogDurations(t *testing.T) {
	for format, want := range map[string]string{"json": `"duration":1.5`, "text": "duration=1.5s"} {
		var buf bytes.Buffer
		cfg := DefaultConfig()
		cfg.LogFormat = format
		newLogger(cfg, &buf).Info("request", "duration", 1500*time.Millisecond,
			slog.Group("job", slog.Duration("duration", 250*time.Millisecond)))
		if !strings.Contains(buf.String(), want) {
			t.Errorf("%s log %q lacks %q", format, buf.String(), want)
		}
		if format == "json" {
			var line struct {
				Job struct{ Duration float64 } `json:"job"`
			}
			if err := json.Unmarshal(buf.Bytes(), &line); err != nil || line.Job.Duration != 0.25 {
				t.Errorf("nested duration: %s, %v", buf.String(), err)
			}
		}
	}
}

// TestServerHeader: every response names the build that answered it.
func TestServerHeader(t *testing.T) {
	m := mustRunMain(t, t.TempDir())
	defer m.Close()
	for _, path := range []string{"/api/", "/api/nope/"} {
		resp := getAs(t, "http://"+m.Addr().String()+path, "")
		resp.Body.Close()
		if got, want := resp.Header.Get("Server"), "Tolk/"+readBuildVersion().Short(); got != want {
			t.Errorf("GET %s: Server %q, want %q", path, got, want)
		}
	}
}
