package web_test

import (
	"context"
	"encoding/json"
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/sqlstore"
	"github.com/tolk-project/tolk/internal/servertest"
	"github.com/tolk-project/tolk/web"
)

// browser is a client that keeps cookies, as a browser does, and shows
// redirects rather than following them.
type browser struct {
	tb     testing.TB
	base   string
	client *http.Client
}

func newBrowser(tb testing.TB, base string) *browser {
	tb.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		tb.Fatal(err)
	}
	return &browser{tb: tb, base: base, client: &http.Client{Jar: jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

func (b *browser) send(method, path string, header http.Header, body io.Reader) servertest.Response {
	b.tb.Helper()
	req, err := http.NewRequest(method, b.base+path, body)
	if err != nil {
		b.tb.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	res, err := b.client.Do(req)
	if err != nil {
		b.tb.Fatal(err)
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		b.tb.Fatal(err)
	}
	return servertest.Response{Status: res.StatusCode, Header: res.Header, Body: data}
}

func (b *browser) get(path string) servertest.Response {
	b.tb.Helper()
	return b.send("GET", path, nil, nil)
}

// post sends a form.
func (b *browser) post(path string, form url.Values) servertest.Response {
	b.tb.Helper()
	return b.send("POST", path, http.Header{"Content-Type": {"application/x-www-form-urlencoded"}},
		strings.NewReader(form.Encode()))
}

var csrfRE = regexp.MustCompile(`name="csrf_token" value="([0-9a-f]+)"`)

// csrf returns the CSRF token a page's forms carry.
func csrf(tb testing.TB, page []byte) string {
	tb.Helper()
	m := csrfRE.FindSubmatch(page)
	if m == nil {
		tb.Fatalf("page has no CSRF token:\n%s", page)
	}
	return string(m[1])
}

// signIn signs the browser in as username with password and returns the
// CSRF token of the session.
func (b *browser) signIn(username, password string) string {
	b.tb.Helper()
	form := b.get("/accounts/login/")
	r := b.post("/accounts/login/", url.Values{"csrf_token": {csrf(b.tb, form.Body)}, "username": {username},
		"password": {password}, "next": {"/projects/demo/"}})
	if r.Status != http.StatusSeeOther || r.Header.Get("Location") != "/projects/demo/" {
		b.tb.Fatalf("sign in as %s = %d %v %s", username, r.Status, r.Header, r.Body)
	}
	return csrf(b.tb, b.get("/projects/demo/").Body)
}

// mustPassword gives a user a password.
func mustPassword(tb testing.TB, db *sqlstore.DB, username, password string) {
	tb.Helper()
	ctx := context.Background()
	u, err := db.FindUser(ctx, username)
	if err != nil {
		tb.Fatal(err)
	}
	hash, err := index.HashPassword(password)
	if err == nil {
		err = db.SetPassword(ctx, u.ID, hash)
	}
	if err != nil {
		tb.Fatal(err)
	}
}

func TestSignIn(t *testing.T) {
	srv, db := servertest.DemoServer(t)
	servertest.MustUser(t, db, "anna", false, [2]string{"Translate", "demo"})
	mustPassword(t, db, "anna", "correct horse")
	b := newBrowser(t, srv.URL)

	form := b.get("/accounts/login/?next=/projects/demo/app/")
	if form.Status != http.StatusOK || !strings.Contains(string(form.Body), `name="next" value="/projects/demo/app/"`) {
		t.Fatalf("sign-in form = %d %s", form.Status, form.Body)
	}
	token := csrf(t, form.Body)
	cases := []struct {
		name     string
		form     url.Values
		status   int
		contains string
	}{
		{"no CSRF token", url.Values{"username": {"anna"}, "password": {"correct horse"}}, http.StatusForbidden, "CSRF verification failed"},
		{"wrong CSRF token", url.Values{"csrf_token": {"00"}, "username": {"anna"}, "password": {"correct horse"}}, http.StatusForbidden, "CSRF"},
		{"wrong password", url.Values{"csrf_token": {token}, "username": {"anna"}, "password": {"wrong horse"}}, http.StatusOK, "The username or password is not right."},
		{"unknown user", url.Values{"csrf_token": {token}, "username": {"nobody"}, "password": {"correct horse"}}, http.StatusOK, "The username or password is not right."},
		// A user without a password signs in with tokens only.
		{"user without password", url.Values{"csrf_token": {token}, "username": {"anna2"}, "password": {""}}, http.StatusOK, "not right"},
	}
	servertest.MustUser(t, db, "anna2", false)
	for _, tc := range cases {
		r := b.post("/accounts/login/", tc.form)
		if r.Status != tc.status || !strings.Contains(string(r.Body), tc.contains) || r.Header.Get("Set-Cookie") != "" &&
			strings.Contains(r.Header.Get("Set-Cookie"), "tolk_session=tls") {
			t.Errorf("%s: = %d %v %s", tc.name, r.Status, r.Header, r.Body)
		}
	}

	// A failed sign-in keeps where the form was to lead.
	if r := b.post("/accounts/login/", url.Values{"csrf_token": {token}, "username": {"anna"}, "password": {"wrong horse"},
		"next": {"/projects/demo/app/"}}); !strings.Contains(string(r.Body), `name="next" value="/projects/demo/app/"`) {
		t.Errorf("the form after a failed sign-in lost next:\n%s", r.Body)
	}

	// An address off the site is not followed after signing in.
	r := b.post("/accounts/login/", url.Values{"csrf_token": {token}, "username": {"anna"}, "password": {"correct horse"},
		"next": {"//evil.example/"}})
	if r.Status != http.StatusSeeOther || r.Header.Get("Location") != "/" {
		t.Fatalf("sign in = %d %v %s", r.Status, r.Header, r.Body)
	}
	cookie := r.Header.Get("Set-Cookie")
	for _, want := range []string{"tolk_session=tls_", "HttpOnly", "SameSite=Lax", "Path=/"} {
		if !strings.Contains(strings.Join(r.Header.Values("Set-Cookie"), "\n"), want) {
			t.Errorf("session cookie %q lacks %s", cookie, want)
		}
	}
	if strings.Contains(cookie, "Secure") {
		t.Errorf("session cookie over plain HTTP is Secure: %q", cookie)
	}
	page := b.get("/projects/demo/")
	if !strings.Contains(string(page.Body), `<span class="user">anna</span>`) {
		t.Fatalf("signed-in page does not name anna:\n%s", page.Body)
	}
	session := csrf(t, page.Body)

	// A session is its user's principal in the API too, for reading: a
	// superuser's sees the e-mail addresses others do not.
	servertest.MustUser(t, db, "root", true)
	mustPassword(t, db, "root", "root password")
	root := newBrowser(t, srv.URL)
	root.signIn("root", "root password")
	if r := root.get("/api/users/anna/"); r.Status != http.StatusOK || !strings.Contains(string(r.Body), `"email":"anna@example.com"`) {
		t.Errorf("GET a user with a superuser's session = %d %s", r.Status, r.Body)
	}
	if r := b.get("/api/users/root/"); r.Status != http.StatusOK || strings.Contains(string(r.Body), `"email"`) {
		t.Errorf("GET a user with anna's session = %d %s", r.Status, r.Body)
	}

	// Signing out needs the token, and ends the session in the store.
	if r := b.post("/accounts/logout/", url.Values{}); r.Status != http.StatusForbidden {
		t.Errorf("sign out without CSRF = %d", r.Status)
	}
	stolen := b.client.Jar.Cookies(mustURL(t, srv.URL))
	if r := b.post("/accounts/logout/", url.Values{"csrf_token": {session}}); r.Status != http.StatusSeeOther {
		t.Errorf("sign out = %d %s", r.Status, r.Body)
	}
	if page := b.get("/projects/demo/"); strings.Contains(string(page.Body), `class="user"`) {
		t.Errorf("signed out, the page still names a user:\n%s", page.Body)
	}
	// The old cookie, replayed, is nobody's.
	replay := newBrowser(t, srv.URL)
	replay.client.Jar.SetCookies(mustURL(t, srv.URL), stolen)
	if page := replay.get("/projects/demo/"); strings.Contains(string(page.Body), `class="user"`) {
		t.Errorf("a signed-out session cookie still works:\n%s", page.Body)
	}
}

// TestSignInNext checks where the sign-in form leads: only to a path on
// this site. Browsers drop a TAB or newline anywhere in a URL and read a
// backslash as a slash, so "/\t/evil.example" would leave the site as
// "//evil.example" had it passed a check for "//".
func TestSignInNext(t *testing.T) {
	srv, db := servertest.DemoServer(t)
	b := newBrowser(t, srv.URL)
	cases := []struct {
		name, next string
		kept       bool
	}{
		{"a page", "/projects/demo/app/", true},
		{"a page with a query", "/translate/demo/app/fr/?q=a%20b&offset=2#unit", true},
		{"an encoded page", "/projects/d%C3%A9mo/", true},
		{"empty", "", false},
		{"relative", "projects/demo/", false},
		{"two slashes", "//evil.example/", false},
		{"three slashes", "///evil.example/", false},
		{"tab", "/\t/evil.example/", false},
		{"tab first", "\t//evil.example/", false},
		{"newline", "/\n/evil.example/", false},
		{"carriage return", "/\r/evil.example/", false},
		{"NUL", "/\x00/evil.example/", false},
		{"DEL", "/\x7f/evil.example/", false},
		{"C1 control", "/\u0085/evil.example/", false},
		{"backslash", "/\\evil.example/", false},
		{"backslash first", "\\/evil.example/", false},
		{"two backslashes", "/\\\\evil.example/", false},
		{"scheme", "https://evil.example/", false},
		{"scheme without slashes", "https:evil.example", false},
		{"javascript", "javascript:alert(1)", false},
		{"encoded slash", "/%2Fevil.example/", false},
		{"encoded tab", "/%09/evil.example/", false},
		{"encoded backslash", "/%5Cevil.example/", false},
		{"bad escape", "/%zz/", false},
		{"invalid UTF-8", "/\xff/", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			next, want := tc.next, "/"
			if tc.kept {
				want = next
			}
			form := b.get("/accounts/login/?next=" + url.QueryEscape(next))
			if form.Status != http.StatusOK || !strings.Contains(string(form.Body), `name="next" value="`+html.EscapeString(want)+`"`) {
				t.Errorf("next=%q: the form does not lead to %q:\n%s", next, want, form.Body)
			}
		})
	}

	// Signed in with such a next, the browser goes home.
	servertest.MustUser(t, db, "anna", false, [2]string{"Translate", "demo"})
	mustPassword(t, db, "anna", "correct horse")
	form := b.get("/accounts/login/")
	r := b.post("/accounts/login/", url.Values{"csrf_token": {csrf(t, form.Body)}, "username": {"anna"},
		"password": {"correct horse"}, "next": {"/\t/evil.example/"}})
	if r.Status != http.StatusSeeOther || r.Header.Get("Location") != "/" {
		t.Errorf("sign in with next=/\\t/evil.example/ = %d, Location %q", r.Status, r.Header.Get("Location"))
	}
}

func mustURL(tb testing.TB, s string) *url.URL {
	tb.Helper()
	u, err := url.Parse(s)
	if err != nil {
		tb.Fatal(err)
	}
	return u
}

func TestSignInLimit(t *testing.T) {
	srv, db := servertest.DemoServer(t)
	servertest.MustUser(t, db, "anna", false)
	mustPassword(t, db, "anna", "correct horse")
	b := newBrowser(t, srv.URL)
	token := csrf(t, b.get("/accounts/login/").Body)
	try := func(password string) servertest.Response {
		return b.post("/accounts/login/", url.Values{"csrf_token": {token}, "username": {"anna"}, "password": {password}})
	}
	for i := 0; i < web.LoginLimit; i++ {
		if r := try("wrong"); r.Status != http.StatusOK {
			t.Fatalf("failure %d = %d", i+1, r.Status)
		}
	}
	// Now even the right password waits.
	r := try("correct horse")
	if r.Status != http.StatusTooManyRequests || r.Header.Get("Retry-After") == "" ||
		!strings.Contains(string(r.Body), "Too many failed attempts") {
		t.Fatalf("after %d failures = %d %v %s", web.LoginLimit, r.Status, r.Header, r.Body)
	}
	// Another user from the same address is not held up.
	servertest.MustUser(t, db, "rita", false)
	mustPassword(t, db, "rita", "correct horse")
	r = b.post("/accounts/login/", url.Values{"csrf_token": {token}, "username": {"rita"}, "password": {"correct horse"}})
	if r.Status != http.StatusSeeOther {
		t.Errorf("rita = %d", r.Status)
	}
}

func TestSessionCookieSecure(t *testing.T) {
	db := servertest.MustOpenDB(t)
	servertest.SeedDemo(t, db)
	servertest.MustUser(t, db, "anna", false)
	mustPassword(t, db, "anna", "correct horse")
	srv := servertest.Serve(t, db, servertest.Options{BaseURL: "https://tolk.example.com"})
	b := newBrowser(t, srv.URL)
	form := b.get("/accounts/login/")
	r := b.post("/accounts/login/", url.Values{"csrf_token": {csrf(t, form.Body)}, "username": {"anna"},
		"password": {"correct horse"}})
	var session *http.Cookie
	for _, c := range (&http.Response{Header: r.Header}).Cookies() {
		if c.Name == "tolk_session" {
			session = c
		}
	}
	if r.Status != http.StatusSeeOther || session == nil || !session.Secure || !session.HttpOnly ||
		session.SameSite != http.SameSiteLaxMode {
		t.Errorf("sign in behind https = %d %v", r.Status, r.Header)
	}
}

// TestSessionAPIWrites: a session may write through the API only with
// its CSRF token in X-CSRF-Token, and then as its user.
func TestSessionAPIWrites(t *testing.T) {
	srv, db := servertest.DemoServer(t)
	servertest.MustUser(t, db, "anna", false, [2]string{"Translate", "demo"})
	mustPassword(t, db, "anna", "correct horse")
	b := newBrowser(t, srv.URL)
	token := b.signIn("anna", "correct horse")
	body := `{"target":["Hallo Welt"],"state":20}`
	json := http.Header{"Content-Type": {"application/json"}}
	if r := b.send("PATCH", "/api/units/7/", json, strings.NewReader(body)); r.Status != http.StatusForbidden ||
		!strings.Contains(string(r.Body), "CSRF") {
		t.Errorf("PATCH without CSRF = %d %s", r.Status, r.Body)
	}
	json.Set("X-CSRF-Token", token)
	if r := b.send("PATCH", "/api/units/7/", json, strings.NewReader(body)); r.Status != http.StatusOK {
		t.Errorf("PATCH with CSRF = %d %s", r.Status, r.Body)
	}
	ch := servertest.Results(t, servertest.GetObject(t, srv.URL+"/api/changes/?user=anna"))
	if len(ch) == 0 || !strings.HasSuffix(ch[0]["unit"].(string), "/api/units/7/") || ch[0]["action_name"] != "Translation changed" ||
		!strings.HasSuffix(ch[0]["author"].(string), "/api/users/anna/") {
		t.Errorf("anna's changes = %v", ch)
	}
}

func decodeJSON(tb testing.TB, body []byte) map[string]any {
	tb.Helper()
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		tb.Fatalf("%v: %s", err, body)
	}
	return m
}
