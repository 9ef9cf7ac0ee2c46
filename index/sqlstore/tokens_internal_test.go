package sqlstore

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/tolk-project/tolk/index"
)

// testClock is a clock the test moves by hand.
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *testClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// mustToken creates a user with a token and returns the token.
func mustToken(tb testing.TB, db *DB, username string, expires time.Time) (string, index.Token) {
	tb.Helper()
	ctx := context.Background()
	u, err := db.CreateUser(ctx, index.User{Username: username, FullName: username, IsActive: true})
	if err != nil {
		tb.Fatal(err)
	}
	secret := index.NewToken(index.UserTokenPrefix)
	tok, err := db.CreateToken(ctx, index.Token{UserID: u.ID, Hash: index.HashToken(secret),
		Prefix: index.UserTokenPrefix, Scope: index.ScopeAdmin, Expires: expires})
	if err != nil {
		tb.Fatal(err)
	}
	return secret, tok
}

// TestTokenLastUsed: a token's last_used is written off the request
// path, at most once a minute per token however often it is used.
func TestTokenLastUsed(t *testing.T) {
	ctx := context.Background()
	clock := &testClock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	db, err := openFreshWith(t, Options{Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	secret, tok := mustToken(t, db, "anna", time.Time{})

	lastUsed := func() time.Time {
		t.Helper()
		toks, err := db.FindTokens(ctx, tok.UserID)
		if err != nil || len(toks) != 1 {
			t.Fatalf("FindTokens = %v, %v", toks, err)
		}
		return toks[0].LastUsed
	}
	// use authenticates with the token n times at once, then waits
	// until what they noted is written.
	use := func(n int) {
		t.Helper()
		var wg sync.WaitGroup
		for range n {
			wg.Go(func() {
				if _, _, err := db.Authenticate(ctx, secret); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		for deadline := time.Now().Add(10 * time.Second); ; {
			db.tokenUses.mu.Lock()
			idle := !db.tokenUses.writing
			db.tokenUses.mu.Unlock()
			if idle {
				return
			}
			if time.Now().After(deadline) {
				t.Fatal("token uses still being written after 10s")
			}
			time.Sleep(time.Millisecond)
		}
	}

	if got := lastUsed(); !got.IsZero() {
		t.Fatalf("last_used of an unused token = %v", got)
	}
	first := clock.Now()
	commits := db.commits.Load()
	use(50)
	if got := lastUsed(); !got.Equal(first) {
		t.Errorf("last_used after 50 uses = %v, want %v", got, first)
	}
	if n := db.commits.Load() - commits; n != 1 {
		t.Errorf("50 uses in the same minute wrote %d times, want 1", n)
	}

	clock.advance(59 * time.Second)
	commits = db.commits.Load()
	use(10)
	if got := lastUsed(); !got.Equal(first) {
		t.Errorf("last_used 59s later = %v, want %v still", got, first)
	}
	if n := db.commits.Load() - commits; n != 0 {
		t.Errorf("uses within the minute wrote %d times, want 0", n)
	}

	clock.advance(time.Second)
	use(10)
	if got, want := lastUsed(), first.Add(time.Minute); !got.Equal(want) {
		t.Errorf("last_used a minute later = %v, want %v", got, want)
	}
}
