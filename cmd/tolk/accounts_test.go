package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/sqlstore"
)

// runCLI runs one tolk command line and returns what it printed.
func runCLI(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := run(context.Background(), withDB(t, args...), &out, &errOut)
	return out.String(), errOut.String(), err
}

func mustCLI(t *testing.T, args ...string) string {
	t.Helper()
	out, errOut, err := runCLI(t, args...)
	if err != nil {
		t.Fatalf("tolk %s: %v\n%s", strings.Join(args, " "), err, errOut)
	}
	return out
}

// get requests url with an Authorization header (none when auth is "").
func get(t *testing.T, url, auth string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

var tokenRE = regexp.MustCompile(`wl[up]_[A-Za-z0-9]{36}`)

func TestAccountsCommandLineAndTokens(t *testing.T) {
	dir := t.TempDir()
	m := mustRunMain(t, dir)
	defer m.Close()
	base := "http://" + m.Addr().String() + "/api/projects/"

	// The server is running; the command line writes beside it.
	mustCLI(t, "user", "add", "anna", "--email", "anna@example.com", "--data", dir)
	if _, _, err := runCLI(t, "user", "add", "anna", "--data", dir); err == nil {
		t.Error("adding anna twice succeeded")
	}
	mustCLI(t, "user", "grant", "anna", "translator", "--project", "demo", "--data", dir)
	tok := strings.TrimSpace(mustCLI(t, "token", "create", "anna", "--label", "laptop", "--data", dir))
	if !tokenRE.MatchString(tok) || !strings.HasPrefix(tok, "wlu_") {
		t.Fatalf("token create printed %q, want a wlu_ token", tok)
	}
	soon := strings.TrimSpace(mustCLI(t, "token", "create", "anna", "--expires", "1s", "--data", dir))
	ptok := strings.TrimSpace(mustCLI(t, "token", "create", "ci", "--project", "demo", "--role", "repository", "--data", dir))
	if !strings.HasPrefix(ptok, "wlp_") {
		t.Fatalf("project token = %q, want wlp_", ptok)
	}
	list := mustCLI(t, "token", "list", "--data", dir)
	if strings.Contains(list, tok) || strings.Contains(list, ptok) {
		t.Fatalf("token list shows a secret:\n%s", list)
	}
	for _, want := range []string{"anna", "laptop", "bot-demo-ci", "wlp_", "demo", "LAST USED", "never"} {
		if !strings.Contains(list, want) {
			t.Errorf("token list lacks %q:\n%s", want, list)
		}
	}
	users := mustCLI(t, "user", "list", "--data", dir)
	if !strings.Contains(users, "Translate@demo") || !strings.Contains(users, "Manage repository@demo") {
		t.Errorf("user list lacks the grants:\n%s", users)
	}

	const invalid = `{"type":"client_error","errors":[{"code":"authentication_failed","detail":"Invalid token.","attr":null}]}`
	for _, tc := range []struct {
		name, auth string
		status     int
		body       string
	}{
		{"anonymous", "", 200, ""},
		{"token", "Token " + tok, 200, ""},
		{"bearer", "Bearer " + tok, 200, ""},
		{"project token", "Token " + ptok, 200, ""},
		{"made-up token", "Token wlu_" + strings.Repeat("x", 36), 401, invalid},
		{"garbage", "Token nonsense", 401, invalid},
		{"empty", "Token ", 401, `{"type":"client_error","errors":[{"code":"authentication_failed","detail":"Invalid token header. No credentials provided.","attr":null}]}`},
		{"other scheme", "Basic YTpi", 200, ""},
	} {
		status, body := get(t, base, tc.auth)
		if status != tc.status || (tc.body != "" && body != tc.body) {
			t.Errorf("%s: GET = %d %s, want %d %s", tc.name, status, body, tc.status, tc.body)
		}
	}

	// Expiry and revocation take effect at once, on a running server.
	time.Sleep(1100 * time.Millisecond)
	if status, body := get(t, base, "Token "+soon); status != 401 || body != invalid {
		t.Errorf("expired token: %d %s, want 401", status, body)
	}
	id := strings.Fields(strings.Split(mustCLI(t, "token", "list", "anna", "--data", dir), "\n")[1])[0]
	mustCLI(t, "token", "revoke", id, "--data", dir)
	if status, _ := get(t, base, "Token "+tok); status != 401 {
		t.Errorf("revoked token: %d, want 401", status)
	}
}

func TestDemoPrintsAdminTokenOnce(t *testing.T) {
	var out bytes.Buffer
	dir := t.TempDir()
	cfg := DefaultConfig()
	cfg.DataDir, cfg.Listen, cfg.Demo = dir, "127.0.0.1:0", true
	for i, wantToken := range []bool{true, false} {
		out.Reset()
		m := &Main{Config: cfg, Logger: slog.New(slog.DiscardHandler), Stdout: &out}
		openMain(t, m)
		tok := tokenRE.FindString(out.String())
		if (tok != "") != wantToken {
			t.Fatalf("start %d printed %q, want a token: %v", i+1, out.String(), wantToken)
		}
		if tok != "" {
			status, _ := get(t, "http://"+m.Addr().String()+"/api/projects/", "Token "+tok)
			if status != 200 {
				t.Errorf("admin token: %d", status)
			}
		}
		m.Close()
	}
}

func TestUserPassword(t *testing.T) {
	dir := t.TempDir()
	defer func(r io.Reader) { passwordInput = r }(passwordInput)
	passwordInput = strings.NewReader("first password\n")
	mustCLI(t, "user", "add", "anna", "--password-stdin", "--data", dir)
	check := func(password string, want bool) {
		t.Helper()
		db, err := openDB(context.Background(), dir, testDB(t, dir), sqlstore.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		_, hash, err := db.FindPassword(context.Background(), "anna")
		if err != nil || index.PasswordMatches(hash, password) != want {
			t.Errorf("password %q matches = %v, want %v (%v)", password, !want, want, err)
		}
	}
	check("first password", true)
	passwordInput = strings.NewReader("second password\r\n")
	if out := mustCLI(t, "user", "passwd", "anna", "--data", dir); !strings.Contains(out, "password set for anna") {
		t.Errorf("passwd said %q", out)
	}
	check("first password", false)
	check("second password", true)
	passwordInput = strings.NewReader("short\n")
	if _, _, err := runCLI(t, "user", "passwd", "anna", "--data", dir); err == nil || !strings.Contains(err.Error(), "8 to 72") {
		t.Errorf("short password: %v", err)
	}
	passwordInput = strings.NewReader("third password\n")
	if _, _, err := runCLI(t, "user", "passwd", "nobody", "--data", dir); err == nil {
		t.Error("passwd of an unknown user succeeded")
	}
}
