package sqlstore_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/indextest"
	"github.com/tolk-project/tolk/index/sqlstore"
)

// TestLoginLinks: a one-time link opens one session, once, before it
// expires, for an active user only; racing browsers get one session.
func TestLoginLinks(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	db := indextest.OpenWith(t, sqlstore.Options{Now: clock})
	u, err := db.SaveUser(ctx, index.User{Username: "anna", IsActive: true})
	if err != nil {
		t.Fatal(err)
	}
	link := func() string {
		t.Helper()
		secret := index.NewToken(index.LoginLinkPrefix)
		if err := db.CreateLoginLink(ctx, index.Session{Hash: index.HashToken(secret), UserID: u.ID,
			Expires: clock().Add(index.LoginLinkLifetime)}); err != nil {
			t.Fatal(err)
		}
		return secret
	}
	session := func() (string, index.Session) {
		cookie := index.NewToken(index.SessionPrefix)
		return cookie, index.Session{Hash: index.HashToken(cookie), Expires: clock().Add(index.SessionLifetime)}
	}

	secret := link()
	cookie, s := session()
	got, err := db.RedeemLoginLink(ctx, secret, s)
	if err != nil || got.ID != u.ID {
		t.Fatalf("RedeemLoginLink = %+v, %v", got, err)
	}
	if p, err := db.SessionPrincipal(ctx, cookie); err != nil || p.User.Username != "anna" {
		t.Fatalf("the link's session: %+v, %v", p, err)
	}
	// Used once: the second time it is refused and opens nothing.
	cookie, s = session()
	if _, err := db.RedeemLoginLink(ctx, secret, s); !errors.Is(err, index.ErrUnauthenticated) {
		t.Errorf("second use: %v", err)
	}
	if _, err := db.SessionPrincipal(ctx, cookie); !errors.Is(err, index.ErrUnauthenticated) {
		t.Errorf("second use opened a session: %v", err)
	}
	for name, bad := range map[string]string{"garbage": "x", "unknown": index.NewToken(index.LoginLinkPrefix),
		"a session's shape": index.NewToken(index.SessionPrefix), "empty": ""} {
		_, s := session()
		if _, err := db.RedeemLoginLink(ctx, bad, s); !errors.Is(err, index.ErrUnauthenticated) {
			t.Errorf("%s link: %v", name, err)
		}
	}
	// Expired.
	secret = link()
	mu.Lock()
	now = now.Add(index.LoginLinkLifetime)
	mu.Unlock()
	_, s = session()
	if _, err := db.RedeemLoginLink(ctx, secret, s); !errors.Is(err, index.ErrUnauthenticated) {
		t.Errorf("expired link: %v", err)
	}
	// An inactive user's link signs nobody in.
	secret = link()
	u.IsActive = false
	if _, err := db.SaveUser(ctx, u); err != nil {
		t.Fatal(err)
	}
	cookie, s = session()
	if _, err := db.RedeemLoginLink(ctx, secret, s); !errors.Is(err, index.ErrUnauthenticated) {
		t.Errorf("inactive user's link: %v", err)
	}
	u.IsActive = true
	if _, err := db.SaveUser(ctx, u); err != nil {
		t.Fatal(err)
	}
	// Eight browsers with one link: one session.
	secret = link()
	var wg sync.WaitGroup
	var won sync.Map
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cookie, s := session()
			if _, err := db.RedeemLoginLink(ctx, secret, s); err == nil {
				won.Store(cookie, true)
			} else if !errors.Is(err, index.ErrUnauthenticated) {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	n := 0
	won.Range(func(cookie, _ any) bool {
		n++
		if _, err := db.SessionPrincipal(ctx, cookie.(string)); err != nil {
			t.Errorf("the winner's session: %v", err)
		}
		return true
	})
	if n != 1 {
		t.Errorf("%d sessions from one link, want 1", n)
	}
	indextest.CheckCounts(t, db)
}
