package sqlstore

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/internal/testengine"
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

// openClocked opens a fresh index on a clock the test moves, at noon on
// 1 March 2026, closed when the test ends.
func openClocked(tb testing.TB) (*DB, *testClock) {
	tb.Helper()
	clock := &testClock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	db, err := openFreshWith(tb, Options{Now: clock.Now})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	return db, clock
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
	db, clock := openClocked(t)
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

// TestTokenExpiresUnparsable: an expiry the index cannot read (written
// by hand, or in another layout) fails closed, as expired, never as
// "never expires".
func TestTokenExpiresUnparsable(t *testing.T) {
	ctx := context.Background()
	db, _ := openClocked(t)
	for i, tc := range []struct {
		name, expires string
		ok            bool
	}{
		{"never", "", true},
		{"later", "2026-03-02T12:00:00.000000Z", true},
		{"past", "2026-02-28T12:00:00.000000Z", false},
		{"garbage", "soon", false},
		{"another layout", "2030-01-01", false},
		{"out of range", "2030-13-45T00:00:00.000000Z", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			secret, tok := mustToken(t, db, "user"+strconv.Itoa(i), time.Time{})
			if err := db.write(ctx, func(tx *Tx) error {
				_, err := tx.Exec(`UPDATE tokens SET expires = ? WHERE id = ?`, tc.expires, tok.ID)
				return err
			}); err != nil {
				t.Fatal(err)
			}
			_, _, err := db.Authenticate(ctx, secret)
			if tc.ok && err != nil || !tc.ok && !errors.Is(err, index.ErrUnauthenticated) {
				t.Errorf("expires %q: Authenticate = %v, want ok %v", tc.expires, err, tc.ok)
			}
		})
	}
}

// TestAuthenticateGrantsCache: the grants Authenticate reads are cached
// (userGrants), kept across edits, which touch no team, and made stale
// by a grant given or taken back; on PostgreSQL also by another
// process's.
func TestAuthenticateGrantsCache(t *testing.T) {
	ctx := context.Background()
	f := mustWriteFixture(t)
	db := f.db
	secret, tok := mustToken(t, db, "anna", time.Time{})
	p, err := db.FindProject(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	translate := index.Grant{UserID: tok.UserID, Role: "Translate", ProjectID: p.ID}
	roles := func(db *DB) []string {
		t.Helper()
		pr, _, err := db.Authenticate(ctx, secret)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, g := range pr.Grants {
			out = append(out, g.Role)
		}
		return out
	}
	if got := roles(db); len(got) != 0 {
		t.Fatalf("grants before any: %v", got)
	}
	if err := db.AddGrant(ctx, translate); err != nil {
		t.Fatal(err)
	}
	if got := roles(db); !slices.Equal(got, []string{"Translate"}) {
		t.Fatalf("grants after AddGrant: %v", got)
	}
	_, kept, ok := db.grants.get(tok.UserID)
	if !ok {
		t.Fatal("Authenticate kept no grants")
	}
	f.edit(t, 1, "Bearbeitet")
	if got := roles(db); !slices.Equal(got, []string{"Translate"}) {
		t.Fatalf("grants after an edit: %v", got)
	}
	if _, tag, _ := db.grants.get(tok.UserID); tag != kept {
		t.Errorf("an edit made the grants stale: read again at %d, kept at %d", tag, kept)
	}
	if err := db.RemoveGrant(ctx, translate); err != nil {
		t.Fatal(err)
	}
	if got := roles(db); len(got) != 0 {
		t.Fatalf("grants after RemoveGrant: %v", got)
	}

	if testengine.Engine() != testengine.Postgres {
		return
	}
	fa, b := twoProcesses(t)
	a := fa.db
	secret, tok = mustToken(t, a, "bert", time.Time{})
	if p, err = a.FindProject(ctx, "p"); err != nil {
		t.Fatal(err)
	}
	translate = index.Grant{UserID: tok.UserID, Role: "Translate", ProjectID: p.ID}
	if err := a.AddGrant(ctx, translate); err != nil {
		t.Fatal(err)
	}
	if got := roles(b); !slices.Equal(got, []string{"Translate"}) {
		t.Fatalf("b's grants after a's AddGrant: %v", got)
	}
	if err := a.RemoveGrant(ctx, translate); err != nil {
		t.Fatal(err)
	}
	if got := roles(b); len(got) != 0 {
		t.Errorf("b's grants after a's RemoveGrant: %v (a stale cache)", got)
	}
}
