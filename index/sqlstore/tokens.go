package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/tolk-project/tolk/index"
)

const tokenColumns = `k.id, k.user_id, u.username, k.name, k.hash, k.prefix, k.scope, k.project_id,
	k.created, k.expires, k.last_used`

func scanToken(s interface{ Scan(...any) error }) (index.Token, error) {
	var t index.Token
	var scope, created, expires, used string
	err := s.Scan(&t.ID, &t.UserID, &t.Username, &t.Name, &t.Hash, &t.Prefix, &scope, &t.ProjectID,
		&created, &expires, &used)
	t.Scope = index.TokenScope(scope)
	t.Created, t.Expires, t.LastUsed = parseTime(created), parseTime(expires), parseTime(used)
	if expires != "" && t.Expires.IsZero() {
		// Only "" means "never expires". An expiry that does not parse
		// (written by hand, or in another layout) fails closed: it
		// reads as long past, so the token is refused and listed as
		// expired.
		t.Expires = unreadableExpiry
	}
	return t, err
}

// unreadableExpiry is the expiry of a token whose stored one does not
// parse.
var unreadableExpiry = time.Unix(0, 0).UTC()

// CreateToken stores a token (its hash, never the token) and returns it
// with its ID and creation time.
func (db *DB) CreateToken(ctx context.Context, t index.Token) (index.Token, error) {
	if t.Hash == "" || t.UserID == 0 || !t.Scope.Valid() {
		return t, fmt.Errorf("sqlstore: create token: missing hash, user or scope")
	}
	err := db.write(ctx, func(tx *Tx) error {
		t.Created = tx.now
		return tx.QueryRow(`INSERT INTO tokens (user_id, name, hash, prefix, scope, project_id,
			created, expires) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`, t.UserID, t.Name, t.Hash,
			t.Prefix, string(t.Scope), t.ProjectID, formatTime(t.Created), formatTime(t.Expires)).Scan(&t.ID)
	})
	return t, err
}

// FindTokens returns every token of the user with the given id (of every
// user for 0), oldest first.
func (db *DB) FindTokens(ctx context.Context, userID int64) ([]index.Token, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT `+tokenColumns+` FROM tokens k JOIN users u ON u.id = k.user_id
		WHERE ? = 0 OR k.user_id = ? ORDER BY k.id`, userID, userID)
	if err != nil {
		return nil, formatError(err)
	}
	defer rows.Close()
	var out []index.Token
	for rows.Next() {
		t, err := scanToken(rows)
		if err != nil {
			return nil, formatError(err)
		}
		out = append(out, t)
	}
	return out, formatError(rows.Err())
}

// DeleteToken removes the token with the given id, or answers ErrNotFound.
func (db *DB) DeleteToken(ctx context.Context, id int64) error {
	return db.write(ctx, func(tx *Tx) error {
		res, err := tx.Exec(`DELETE FROM tokens WHERE id = ?`, id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return index.Errorf(index.ErrNotFound, "No token with id %d.", id)
		}
		return nil
	})
}

// Authenticate returns the principal a token stands for: its user, the
// user's grants and the token's scope. An unknown token, an expired one
// and one whose user is inactive all answer ErrUnauthenticated. The
// lookup is by hash: the token's SHA-256 is uniformly spread, so the
// index walk leaks nothing about how near a guess came, and the stored
// hash is compared again in constant time.
//
// Tokens change from the command line while the server runs, and a
// revoked token must stop working at once. On SQLite, where the command
// line is another process writing the file unseen, the token and its
// user are read by one query at every request (a call within Tolk). On
// PostgreSQL every process learns of the others' writes through
// write_log, and every write to tokens or users but a token's last use
// touches everything, so the pair is kept in a cache (tokenUsers) that
// any such write, in any process, makes stale: a request's token then
// costs no round trip of its own, only the write_log check the grants'
// lookup makes anyway. The user's grants come from the grants cache
// (userGrants), which every write to teams or roles makes stale, on
// PostgreSQL in every process (write_log). Expiry is judged at every
// use, cached or not.
func (db *DB) Authenticate(ctx context.Context, token string) (index.Principal, index.Token, error) {
	denied := index.Errorf(index.ErrUnauthenticated, "Invalid token.")
	if !index.LooksLikeToken(token) {
		return index.Principal{}, index.Token{}, denied
	}
	hash := index.HashToken(token)
	find := func() (tokenUser, error) { return db.findTokenUser(ctx, hash) }
	var tu tokenUser
	var err error
	if db.dialect.shared {
		tu, err = lookup(ctx, db, &db.tokenUsers, hash, nil, find)
	} else {
		tu, err = find()
	}
	if errors.Is(err, errNoToken) {
		return index.Principal{}, index.Token{}, denied
	}
	if err != nil {
		return index.Principal{}, index.Token{}, formatError(err)
	}
	t, u := tu.token, *tu.user // a copy: the cache's user is shared
	u.SecondaryLanguages = slices.Clone(u.SecondaryLanguages)
	p := index.Principal{User: &u}
	now := db.now()
	if !index.TokenMatches(token, t.Hash) || t.Expired(now) || !p.User.IsActive {
		return index.Principal{}, index.Token{}, denied
	}
	if p.Grants, err = db.userGrants(ctx, p.User.ID); err != nil {
		return index.Principal{}, index.Token{}, formatError(err)
	}
	db.noteTokenUse(t, now)
	p.Scope, p.ScopeProjectID = t.Scope, t.ProjectID
	return p, t, nil
}

// tokenUser is a token and its user, as Authenticate reads them.
type tokenUser struct {
	token index.Token
	user  *index.User
}

// errNoToken is findTokenUser's answer for a hash no token has; it is
// never cached (lookup keeps only what it found).
var errNoToken = errors.New("sqlstore: no such token")

// findTokenUser reads the token whose hash is hash and its user.
func (db *DB) findTokenUser(ctx context.Context, hash string) (tokenUser, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT `+tokenColumns+`, `+principalColumns+`
		FROM tokens k JOIN users u ON u.id = k.user_id WHERE k.hash = ?`, hash)
	if err != nil {
		return tokenUser{}, err
	}
	defer rows.Close()
	var tu tokenUser
	var p index.Principal
	found := false
	for rows.Next() {
		if tu.token, err = scanToken(principalScanner{rows, &p}); err != nil {
			return tokenUser{}, err
		}
		tu.user, found = p.User, true
	}
	if err := rows.Err(); err != nil {
		return tokenUser{}, err
	}
	if !found {
		return tokenUser{}, errNoToken
	}
	return tu, nil
}

// principalColumns are the user columns Authenticate reads after a
// token's (as userColumns); the grants follow from the user's teams.
var principalColumns = qualify("u", userColumns)

// principalScanner scans the row of Authenticate: the token's columns
// for scanToken, then the user's into p.
type principalScanner struct {
	rows *sql.Rows
	p    *index.Principal
}

func (s principalScanner) Scan(tokenDest ...any) error {
	u, err := scanUser(scanAfter{s.rows, tokenDest})
	if err != nil {
		return err
	}
	s.p.User = &u
	return nil
}

// scanAfter scans a row whose first columns go to first, the rest to
// the destinations Scan is given.
type scanAfter struct {
	rows  *sql.Rows
	first []any
}

func (s scanAfter) Scan(dest ...any) error {
	return s.rows.Scan(append(append([]any(nil), s.first...), dest...)...)
}

// qualify prefixes each of the comma-separated columns with table's
// name.
func qualify(table, columns string) string {
	cols := strings.Split(columns, ",")
	for i, c := range cols {
		cols[i] = table + "." + strings.TrimSpace(c)
	}
	return strings.Join(cols, ", ")
}

// UserPrincipal returns the user with the given id and their grants, as
// a request of theirs with an unscoped token would carry them: for work
// done on a user's behalf outside a request (an automatic translation's
// personal memory scope). An inactive user is an index.ErrPermission.
func (db *DB) UserPrincipal(ctx context.Context, userID int64) (index.Principal, error) {
	return db.userPrincipal(ctx, userID, index.Errorf(index.ErrPermission, "The user is not active."))
}

// userPrincipal returns the user with the given id and their grants, or
// denied when the user is inactive.
func (db *DB) userPrincipal(ctx context.Context, userID int64, denied error) (index.Principal, error) {
	u, err := db.FindUserByID(ctx, userID)
	if err != nil {
		return index.Principal{}, err
	}
	if !u.IsActive {
		return index.Principal{}, denied
	}
	grants, err := db.FindGrants(ctx, u.ID)
	if err != nil {
		return index.Principal{}, err
	}
	return index.Principal{User: &u, Grants: grants, Scope: index.ScopeAdmin}, nil
}

// tokenUseEvery is how often a token's last_used is written at most.
// Writing it at every request would put a write, and on PostgreSQL a
// round trip, on the path of every request with a token; a minute is
// as precise as anyone reads it.
const tokenUseEvery = time.Minute

// tokenUses are the token uses noted by Authenticate, written by one
// goroutine at a time off the request path (writeTokenUses).
type tokenUses struct {
	mu sync.Mutex // guards the fields below
	// due are the uses not written yet, by token id.
	due map[int64]time.Time
	// noted is when each token's use was last made due, so that a
	// token used many times a minute is due at most once a minute even
	// before its row says so; entries older than tokenUseEvery are
	// dropped by writeTokenUses.
	noted map[int64]time.Time
	// writing says a writeTokenUses goroutine is running.
	writing bool
	// writers is that goroutine, which Close waits for, so that the uses
	// noted before it are written and nothing outlives the index.
	writers sync.WaitGroup
}

// noteTokenUse records that t was used at now, unless its row or this
// process already has a use less than tokenUseEvery old. It never
// waits for the database: the write happens in writeTokenUses.
func (db *DB) noteTokenUse(t index.Token, now time.Time) {
	if now.Sub(t.LastUsed) < tokenUseEvery {
		return
	}
	u := &db.tokenUses
	u.mu.Lock()
	defer u.mu.Unlock()
	if at, ok := u.noted[t.ID]; ok && now.Sub(at) < tokenUseEvery {
		return
	}
	if u.due == nil {
		u.due, u.noted = map[int64]time.Time{}, map[int64]time.Time{}
	}
	u.due[t.ID], u.noted[t.ID] = now, now
	if !u.writing {
		u.writing = true
		u.writers.Add(1)
		go db.writeTokenUses()
	}
}

// writeTokenUses writes the due token uses, in one narrow write (the
// token cache, tokenUsers, does not hold last_used), until none is left. A failure is logged, not
// retried: the next use a minute on notes the token again.
func (db *DB) writeTokenUses() {
	u := &db.tokenUses
	defer u.writers.Done()
	for {
		u.mu.Lock()
		due := u.due
		u.due = nil
		if len(due) == 0 {
			now := db.now()
			for id, at := range u.noted {
				if now.Sub(at) >= tokenUseEvery {
					delete(u.noted, id)
				}
			}
			u.writing = false
			u.mu.Unlock()
			return
		}
		u.mu.Unlock()
		err := db.writeNarrow(context.Background(), func(tx *Tx) error {
			for id, at := range due {
				if _, err := tx.Exec(`UPDATE tokens SET last_used = ? WHERE id = ?`, formatTime(at), id); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil && !errors.Is(err, errClosed) {
			db.log.Warn("record token use", "tokens", len(due), "err", err)
		}
	}
}
