package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/sqlstore"
)

// mustUser creates a user with the given grants (roles by name, in the
// project with the given slug or, for "", site-wide) and returns an
// "Authorization" header value carrying a fresh token for it.
func mustUser(tb testing.TB, db *sqlstore.DB, username string, superuser bool, grants ...[2]string) string {
	tb.Helper()
	return mustScopedUser(tb, db, username, superuser, index.Token{Scope: index.ScopeAdmin}, grants...)
}

// mustScopedUser is mustUser with a token narrowed as tok says (Scope,
// ProjectID, Expires).
func mustScopedUser(tb testing.TB, db *sqlstore.DB, username string, superuser bool, tok index.Token, grants ...[2]string) string {
	tb.Helper()
	ctx := context.Background()
	u, err := db.SaveUser(ctx, index.User{Username: username, FullName: username + " Example",
		Email: username + "@example.com", IsActive: true, IsSuperuser: superuser})
	if err != nil {
		tb.Fatal(err)
	}
	for _, g := range grants {
		grant := index.Grant{UserID: u.ID, Role: g[0]}
		if g[1] != "" {
			p, err := db.FindProject(ctx, g[1])
			if err != nil {
				tb.Fatal(err)
			}
			grant.ProjectID = p.ID
		}
		if err := db.AddGrant(ctx, grant); err != nil {
			tb.Fatal(err)
		}
	}
	secret := index.NewToken(index.UserTokenPrefix)
	tok.UserID, tok.Hash, tok.Prefix = u.ID, index.HashToken(secret), index.UserTokenPrefix
	if _, err := db.CreateToken(ctx, tok); err != nil {
		tb.Fatal(err)
	}
	return "Token " + secret
}

// doJSON sends body (marshalled unless it is already []byte) as JSON with
// the given Authorization header ("" for none).
func doJSON(tb testing.TB, method, url, auth string, body any) response {
	tb.Helper()
	data, ok := body.([]byte)
	if !ok && body != nil {
		var err error
		if data, err = json.Marshal(body); err != nil {
			tb.Fatal(err)
		}
	}
	h := http.Header{}
	if body != nil {
		h.Set("Content-Type", "application/json")
	}
	if auth != "" {
		h.Set("Authorization", auth)
	}
	return doBody(tb, method, url, h, bytes.NewReader(data))
}

func TestTokensOnReads(t *testing.T) {
	srv, db := demoServer(t)
	anna := mustUser(t, db, "anna", false, [2]string{"Translate", "demo"})
	expired := mustScopedUser(t, db, "old", false, index.Token{Scope: index.ScopeAdmin,
		Expires: clockStart.Add(-time.Hour)})
	const invalid = `{"type":"client_error","errors":[{"code":"authentication_failed","detail":"Invalid token.","attr":null}]}`
	for _, tc := range []struct {
		name, auth string
		status     int
	}{
		{"anonymous", "", 200}, {"token", anna, 200},
		{"made up", "Token wlu_" + strings.Repeat("Q", 36), 401}, {"expired", expired, 401},
	} {
		r := doJSON(t, "GET", srv.URL+"/api/units/1/", tc.auth, nil)
		if r.status != tc.status || (tc.status == 401 && (string(r.body) != invalid ||
			r.header.Get("WWW-Authenticate") != "Token")) {
			t.Errorf("%s: GET = %d %s %v, want %d", tc.name, r.status, r.body, r.header, tc.status)
		}
	}
}
