package sqlstore_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/indextest"
	"github.com/tolk-project/tolk/index/sqlstore"
)

func TestSessions(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	db := indextest.OpenWith(t, sqlstore.Options{Now: func() time.Time { return now }})
	u, err := db.SaveUser(ctx, index.User{Username: "anna", IsActive: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, hash, err := db.FindPassword(ctx, "anna"); err != nil || hash != "" {
		t.Fatalf("new user's password = %q, %v; want none", hash, err)
	}
	if _, _, err := db.FindPassword(ctx, "nobody"); !errors.Is(err, index.ErrNotFound) {
		t.Errorf("unknown user's password: %v", err)
	}
	hash, err := index.HashPassword("correct horse")
	if err != nil {
		t.Fatal(err)
	}
	if err := db.SetPassword(ctx, u.ID, hash); err != nil {
		t.Fatal(err)
	}
	if err := db.SetPassword(ctx, 999, hash); !errors.Is(err, index.ErrNotFound) {
		t.Errorf("password of an unknown id: %v", err)
	}
	got, stored, err := db.FindPassword(ctx, "anna")
	if err != nil || got.ID != u.ID || !index.PasswordMatches(stored, "correct horse") || index.PasswordMatches(stored, "wrong") {
		t.Fatalf("FindPassword = %+v %q %v", got, stored, err)
	}

	open := func() string {
		cookie := index.NewToken(index.SessionPrefix)
		if err := db.CreateSession(ctx, index.Session{Hash: index.HashToken(cookie), UserID: u.ID,
			Expires: now.Add(time.Hour)}); err != nil {
			t.Fatal(err)
		}
		return cookie
	}
	cookie := open()
	p, err := db.SessionPrincipal(ctx, cookie)
	if err != nil || p.User.Username != "anna" || p.Scope != index.ScopeAdmin || p.ScopeProjectID != 0 {
		t.Fatalf("SessionPrincipal = %+v, %v", p, err)
	}
	for name, c := range map[string]string{"garbage": "x", "unknown": index.NewToken(index.SessionPrefix),
		"a token's shape": index.NewToken(index.UserTokenPrefix)} {
		if _, err := db.SessionPrincipal(ctx, c); !errors.Is(err, index.ErrUnauthenticated) {
			t.Errorf("%s cookie: %v", name, err)
		}
	}
	// Expired.
	now = now.Add(2 * time.Hour)
	if _, err := db.SessionPrincipal(ctx, cookie); !errors.Is(err, index.ErrUnauthenticated) {
		t.Errorf("expired session: %v", err)
	}
	// Signed out.
	cookie = open()
	if err := db.DeleteSession(ctx, index.HashToken(cookie)); err != nil {
		t.Fatal(err)
	}
	if _, err := db.SessionPrincipal(ctx, cookie); !errors.Is(err, index.ErrUnauthenticated) {
		t.Errorf("deleted session: %v", err)
	}
	// A new password ends every session; so does deactivation.
	cookie = open()
	if err := db.SetPassword(ctx, u.ID, hash); err != nil {
		t.Fatal(err)
	}
	if _, err := db.SessionPrincipal(ctx, cookie); !errors.Is(err, index.ErrUnauthenticated) {
		t.Errorf("session after a password change: %v", err)
	}
	cookie = open()
	inactive := false
	if _, err := db.UpdateUser(ctx, "anna", index.UserUpdate{IsActive: &inactive}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.SessionPrincipal(ctx, cookie); !errors.Is(err, index.ErrUnauthenticated) {
		t.Errorf("session of an inactive user: %v", err)
	}
}

func TestPasswordLength(t *testing.T) {
	for _, pw := range []string{"", "short", string(make([]byte, index.MaxPasswordLength+1))} {
		if _, err := index.HashPassword(pw); !errors.Is(err, index.ErrInvalid) {
			t.Errorf("HashPassword(%d bytes) = %v, want ErrInvalid", len(pw), err)
		}
	}
	if index.PasswordMatches("", "") {
		t.Error("an empty hash matches")
	}
}
