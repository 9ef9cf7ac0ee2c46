package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/internal/servertest"
)

// TestSignInLink: a one-time link's page signs nobody in until its button
// is pressed (with the CSRF token); pressing it opens a session and leads
// on; the link then works no more; bad links are said to be bad.
func TestSignInLink(t *testing.T) {
	srv, db := servertest.DemoServer(t)
	servertest.MustUser(t, db, "anna", false, [2]string{"Translate", "demo"})
	ctx := context.Background()
	u, err := db.FindUser(ctx, "anna")
	if err != nil {
		t.Fatal(err)
	}
	secret := index.NewToken(index.LoginLinkPrefix)
	if err := db.CreateLoginLink(ctx, index.Session{Hash: index.HashToken(secret), UserID: u.ID,
		Expires: time.Now().Add(index.LoginLinkLifetime)}); err != nil {
		t.Fatal(err)
	}
	b := newBrowser(t, srv.URL)
	page := b.get("/accounts/login/link/?key=" + secret + "&next=/projects/demo/")
	if page.Status != http.StatusOK || !strings.Contains(string(page.Body), `name="key" value="`+secret+`"`) ||
		!strings.Contains(string(page.Body), `name="next" value="/projects/demo/"`) {
		t.Fatalf("link page = %d %s", page.Status, page.Body)
	}
	// Opening the page spent nothing and signed nobody in.
	if strings.Contains(strings.Join(page.Header.Values("Set-Cookie"), "\n"), "tolk_session=tls_") {
		t.Errorf("GET of the link opened a session: %v", page.Header)
	}
	token := csrf(t, page.Body)
	form := url.Values{"csrf_token": {token}, "key": {secret}, "next": {"/projects/demo/"}}
	// Without the CSRF token: refused, and the link stays usable.
	if r := b.post("/accounts/login/link/", url.Values{"key": {secret}}); r.Status != http.StatusForbidden {
		t.Errorf("link without CSRF = %d %s", r.Status, r.Body)
	}
	r := b.post("/accounts/login/link/", form)
	if r.Status != http.StatusSeeOther || r.Header.Get("Location") != "/projects/demo/" ||
		!strings.Contains(strings.Join(r.Header.Values("Set-Cookie"), "\n"), "tolk_session=tls_") {
		t.Fatalf("redeem = %d %v %s", r.Status, r.Header, r.Body)
	}
	if p := b.get("/projects/demo/"); !strings.Contains(string(p.Body), `<span class="user">anna</span>`) {
		t.Fatalf("after the link, the page names nobody:\n%s", p.Body)
	}
	// Spent: a second browser is told so and is not signed in.
	other := newBrowser(t, srv.URL)
	otherPage := other.get("/accounts/login/link/?key=" + secret)
	r = other.post("/accounts/login/link/", url.Values{"csrf_token": {csrf(t, otherPage.Body)}, "key": {secret}})
	if r.Status != http.StatusUnauthorized || !strings.Contains(string(r.Body), "used already") ||
		strings.Contains(strings.Join(r.Header.Values("Set-Cookie"), "\n"), "tolk_session=tls_") {
		t.Errorf("second use = %d %v %s", r.Status, r.Header, r.Body)
	}
	// Not a link at all, and a link leading off the site.
	if r := other.get("/accounts/login/link/?key=%3Cscript%3E"); r.Status != http.StatusBadRequest ||
		strings.Contains(string(r.Body), "<script>") || !strings.Contains(string(r.Body), "not a sign-in link") {
		t.Errorf("garbage key = %d %s", r.Status, r.Body)
	}
	if r := other.get("/accounts/login/link/?key=" + secret + "&next=//evil.example/"); !strings.Contains(string(r.Body), `name="next" value="/"`) {
		t.Errorf("off-site next kept:\n%s", r.Body)
	}
}
