package api_test

import (
	"strings"
	"testing"
	"time"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/internal/servertest"
)

func TestTokensOnReads(t *testing.T) {
	srv, db := servertest.DemoServer(t)
	anna := servertest.MustUser(t, db, "anna", false, [2]string{"Translate", "demo"})
	expired := servertest.MustScopedUser(t, db, "old", false, index.Token{Scope: index.ScopeAdmin,
		Expires: servertest.ClockStart.Add(-time.Hour)})
	const invalid = `{"type":"client_error","errors":[{"code":"authentication_failed","detail":"Invalid token.","attr":null}]}`
	for _, tc := range []struct {
		name, auth string
		status     int
	}{
		{"anonymous", "", 200}, {"token", anna, 200},
		{"made up", "Token wlu_" + strings.Repeat("Q", 36), 401}, {"expired", expired, 401},
	} {
		r := servertest.DoJSON(t, "GET", srv.URL+"/api/units/1/", tc.auth, nil)
		if r.Status != tc.status || (tc.status == 401 && (string(r.Body) != invalid ||
			r.Header.Get("WWW-Authenticate") != "Token")) {
			t.Errorf("%s: GET = %d %s %v, want %d", tc.name, r.Status, r.Body, r.Header, tc.status)
		}
	}
}
