package sqlstore

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/tolk-project/tolk/index"
)

// TestTokenCacheAcrossProcesses: on PostgreSQL a process keeps the
// tokens its requests authenticate with (Authenticate), and another
// process's revocation, deactivation or grant reaches its next request
// at once, through write_log; the token's expiry is judged at every use.
func TestTokenCacheAcrossProcesses(t *testing.T) {
	a, b, _ := twoWriters(t)
	ctx := context.Background()
	secret, tok := mustToken(t, a, "tina", time.Time{})
	request := func() (index.Principal, error) {
		p, _, err := b.Authenticate(index.WithRequestStart(ctx, time.Now()), secret)
		return p, err
	}
	for range 2 { // the second from b's cache
		if p, err := request(); err != nil || p.User.Username != "tina" || len(p.Grants) != 0 {
			t.Fatalf("b authenticates tina: %+v, %v", p, err)
		}
	}

	// A grant made by a reaches b's next request.
	if err := a.AddGrant(ctx, index.Grant{UserID: tok.UserID, Role: "Translate"}); err != nil {
		t.Fatal(err)
	}
	if p, err := request(); err != nil || len(p.Grants) != 1 {
		t.Fatalf("b after a's grant: %+v, %v", p, err)
	}

	// So does a deactivation, and its undoing.
	active := func(on bool) {
		t.Helper()
		if _, err := a.UpdateUser(ctx, "tina", index.UserUpdate{IsActive: &on}); err != nil {
			t.Fatal(err)
		}
	}
	active(false)
	if _, err := request(); !errors.Is(err, index.ErrUnauthenticated) {
		t.Fatalf("b after a deactivated tina: %v, want ErrUnauthenticated", err)
	}
	active(true)
	if _, err := request(); err != nil {
		t.Fatalf("b after a reactivated tina: %v", err)
	}

	// A cached principal is a copy: changing it changes no other answer.
	p, _ := request()
	p.User.Username = "changed"
	if p, _ := request(); p.User.Username != "tina" {
		t.Fatalf("a cached user changed by a caller: %q", p.User.Username)
	}

	// And a revocation.
	if err := a.DeleteToken(ctx, tok.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := request(); !errors.Is(err, index.ErrUnauthenticated) {
		t.Fatalf("b after a revoked the token: %v, want ErrUnauthenticated", err)
	}
}

// TestCachedTokenExpires: a token kept in the cache stops working when
// it expires, with no write in between.
func TestCachedTokenExpires(t *testing.T) {
	db, clock := openClocked(t)
	secret, _ := mustToken(t, db, "tom", clock.Now().Add(time.Hour))
	ctx := context.Background()
	if _, _, err := db.Authenticate(ctx, secret); err != nil {
		t.Fatal(err)
	}
	clock.advance(2 * time.Hour)
	if _, _, err := db.Authenticate(ctx, secret); !errors.Is(err, index.ErrUnauthenticated) {
		t.Fatalf("an expired token, cached before: %v, want ErrUnauthenticated", err)
	}
}
