// Package apytest starts a real Apertium APy (Debian's apertium-apy
// with the English-Spanish pair, apertium-eng-spa) on loopback for
// tests of the machine translation engines, the way the reference's
// users run it: apertium-apy over the installed modes directory.
package apytest

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// ModesDir is where Debian's language pairs install their modes.
const ModesDir = "/usr/share/apertium/modes"

// Start starts APy on a free loopback port, waits until it lists the
// English-Spanish pair, and returns its URL; the process (and its
// translation pipelines) is stopped at the end of the test. Without
// apertium-apy or the pair the test is skipped, unless CI is "true":
// there it fails, since .ci/run installs both.
func Start(tb testing.TB) string {
	tb.Helper()
	bin, err := exec.LookPath("apertium-apy")
	_, modeErr := os.Stat(ModesDir + "/eng-spa.mode")
	if err != nil || modeErr != nil {
		msg := "Apertium APy is not installed (apt-get install apertium-apy apertium-eng-spa)"
		if os.Getenv("CI") == "true" {
			tb.Fatal(msg + "; CI must run this test")
		}
		tb.Skip(msg)
	}
	port := freePort(tb)
	cmd := exec.Command(bin, "-p", fmt.Sprint(port), "-j", "1", ModesDir)
	cmd.Dir = tb.TempDir()
	// Its own process group, so that stopping it stops the pipelines it
	// forks too.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		tb.Fatalf("start apertium-apy: %v", err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	tb.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
		}
	})
	url := fmt.Sprintf("http://127.0.0.1:%d", port)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for {
		if ready(ctx, url) {
			return url
		}
		select {
		case <-done:
			tb.Fatalf("apertium-apy exited before it answered:\n%s", out.String())
		case <-ctx.Done():
			tb.Fatalf("apertium-apy did not list eng|spa within 60s:\n%s", out.String())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// ready reports whether APy at url answers /listPairs with eng→spa.
func ready(ctx context.Context, url string) bool {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url+"/listPairs", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return err == nil && resp.StatusCode == 200 && strings.Contains(string(body), `"targetLanguage": "spa"`)
}

// freePort returns a loopback port nothing listens on now.
func freePort(tb testing.TB) int {
	tb.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
