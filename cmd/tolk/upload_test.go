package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"regexp"
	"strings"
	"testing"
)

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"1024": 1024, "10MiB": 10 << 20, "512 KiB": 512 << 10,
		"2m": 2 << 20, "1GB": 1 << 30, "7B": 7} {
		if got, err := parseSize(in); err != nil || got != want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "0", "-5", "ten", "5 parsecs", "9999999999GiB"} {
		if got, err := parseSize(in); err == nil {
			t.Errorf("parseSize(%q) = %d, want an error", in, got)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := run(ctx, []string{"serve", "--max-upload-size", "lots"}, io.Discard, io.Discard); err != errUsage {
		t.Errorf("run with a bad --max-upload-size = %v, want the usage error", err)
	}
}

// TestUploadWired uploads to the demo through the whole program, as its
// administrator: the upload reaches the index through the sync service's
// parser, the download shows it before any commit, and the configured
// size limit holds.
func TestUploadWired(t *testing.T) {
	var out bytes.Buffer
	cfg := DefaultConfig()
	cfg.DataDir, cfg.Listen, cfg.Demo, cfg.MaxUploadBytes = t.TempDir(), "127.0.0.1:0", true, 256
	m := &Main{Config: cfg, Logger: slog.New(slog.DiscardHandler), Stdout: &out}
	openMain(t, m)
	defer m.Close()
	token := regexp.MustCompile(`wlu_[A-Za-z0-9]{36}`).FindString(out.String())
	url := "http://" + m.Addr().String() + "/api/translations/demo/app/de/file/"
	post := func(file string) (int, string) {
		var body bytes.Buffer
		mw := multipart.NewWriter(&body)
		w, _ := mw.CreateFormFile("file", "de.json")
		io.WriteString(w, file)
		mw.Close()
		req, _ := http.NewRequest("POST", url, &body)
		req.Header.Set("Content-Type", mw.FormDataContentType())
		req.Header.Set("Authorization", "Token "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if status, body := post(`{"farewell": "Auf Wiedersehen"}`); status != 200 || !strings.Contains(body, `"accepted":1`) {
		t.Fatalf("upload = %d %s", status, body)
	}
	if status, body := post(`{"farewell": "` + strings.Repeat("x", 300) + `"}`); status != 400 ||
		!strings.Contains(body, "Uploaded translation file is too big.") {
		t.Errorf("upload over --max-upload-size = %d %s", status, body)
	}
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(got), `"farewell": "Auf Wiedersehen"`) {
		t.Errorf("download after the upload:\n%s", got)
	}
}
