package main

import (
	"bytes"
	"context"
	"mime/multipart"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// importMemory stores one translation memory entry in the demo project
// through the API, as the demo administrator.
func importMemory(t *testing.T, p *tolkProcess, entries string) {
	t.Helper()
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	_ = w.WriteField("project", "demo")
	f, _ := w.CreateFormFile("file", "memory.json")
	_, _ = f.Write([]byte(entries))
	_ = w.Close()
	req, _ := http.NewRequest("POST", p.base+"/api/memory/import/", &body)
	req.Header.Set("Authorization", "Token "+p.token)
	req.Header.Set("Content-Type", w.FormDataContentType())
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("memory import = %d", res.StatusCode)
	}
}

// demoBrowser starts tolk serve --demo with translator anna (password
// "correct horse battery", translate on the demo project) and headless
// Chromium, and returns the server and the browser's context, ended
// with the test (two minutes at most).
func demoBrowser(t *testing.T) (*tolkProcess, context.Context) {
	t.Helper()
	browserPath := chromium(t)
	bin := buildTolk(t)
	data := t.TempDir()
	p := runTolk(t, bin, data, "--demo")
	add := exec.Command(bin, withDB(t, "user", "add", "anna", "--full-name", "Anna Translator", "--password-stdin", "--data", data)...)
	add.Stdin = strings.NewReader("correct horse battery\n")
	if out, err := add.CombinedOutput(); err != nil {
		t.Fatalf("user add: %v\n%s", err, out)
	}
	if out, err := exec.Command(bin, withDB(t, "user", "grant", "anna", "translate", "--project", "demo", "--data", data)...).CombinedOutput(); err != nil {
		t.Fatalf("user grant: %v\n%s", err, out)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(browserPath),
		chromedp.NoSandbox, chromedp.WindowSize(1280, 900))
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelAlloc)
	ctx, cancel := chromedp.NewContext(allocCtx)
	t.Cleanup(cancel)
	ctx, cancelTimeout := context.WithTimeout(ctx, 2*time.Minute)
	t.Cleanup(cancelTimeout)
	return p, ctx
}
