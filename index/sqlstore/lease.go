package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// A process alone on a PostgreSQL database (solo). The readers' write_log
// checks (replay.go: catchUp) exist only because another process may
// have written; most deployments run one. A process that can prove it
// is alone answers from its caches without them, which under load was
// most of what a cached read cost on PostgreSQL (BENCHMARKS.md,
// "Session 10: lease10").
//
// The proof is a session-level advisory lock, the lease, in the index's
// lock space (lockSpace "lease"), held on a connection of its own for
// the store's life:
//
//   - every process that opens the index takes it shared before its
//     first write (migrations included), and keeps it;
//   - a process is solo while it also holds it exclusively, which it
//     can take only when no other session holds it or waits for it. It
//     tries every soloRetry;
//   - a newcomer whose shared request finds it held exclusively sends a
//     NOTIFY on the lease's channel, which the solo process LISTENs for
//     on the lease's connection, and waits for the lock. The solo process
//     steps down at once: its readers check again (until is cleared, an
//     atomic the read path tests), it clears the marker (below), then it
//     releases the exclusive lock, which grants the newcomer's. So the
//     newcomer's first write comes after the step-down. A NOTIFY costs
//     the solo process nothing until one arrives, where a poll of
//     pg_locks for waiters would run all the time, and the newcomer
//     would wait for the next poll;
//   - the server frees a dead session's locks at once, and the solo
//     process may not know its connection died. So it is solo only until
//     soloTerm after it sent the last round trip the connection answered
//     (a heartbeat every soloBeat), measured on CLOCK_BOOTTIME (leaseClock). A
//     newcomer cannot tell that a lock it got had been held by a dead
//     session; the marker tells it: the row of solo_lease (migration
//     0098) holds the backend of the solo session, set after the
//     exclusive lock is taken and cleared before it is released. A
//     newcomer that finds it set once it holds the lease shared (so no
//     one holds it exclusively) knows a solo process ended without
//     stepping down and may still answer from its caches: it waits
//     soloTerm before its first write, then clears it. Only that crash
//     path costs soloTerm; the common start of a second process costs
//     the step-down, a few round trips;
//   - a process becoming solo first waits 2×soloTerm holding the lock
//     exclusively (a solo process whose lease session died unseen has
//     let go of it by then: its heartbeat is bounded by soloTerm, and
//     until then its writers skip the fence, below), then waits out every write
//     transaction under way (the write lock, taken and let go), then
//     replays write_log (a process that wrote and closed since the last
//     check left entries its caches have not seen), and only then skips
//     checks.
//
// A process whose lease session ends while the process goes on
// (pg_terminate_backend of that connection, a cut, a reconnect refused
// at max_connections) is held back by the database itself: every write
// transaction takes the lease shared first (fence), which a solo
// process's exclusive lease does not grant until it steps down. Only the
// solo process's own writers skip the fence, while its session holds the
// lease exclusively; its heartbeat, bounded by soloTerm, lets go of a
// session that died unseen before another process, which took the lease
// meanwhile, waits out 2×soloTerm.
//
// A solo process that stops answering while its session lives (stopped
// by SIGSTOP or a debugger, or its lease's round trips hanging) would
// hold every newcomer's start. Its own round trips are bounded (soloStep,
// and the heartbeat's soloTerm): one that does not answer drops the
// lease's connection, which ends the session and its locks. A process
// that is stopped runs nothing, so a newcomer bounds its wait instead
// (leaseWait): it logs the marker's process (its backend, its
// application_name and client in pg_stat_activity) and starts without
// the lease, asking for it in the background (joining), never solo until
// it has it. That is safe because of what the stopped process's
// exclusive lease still does: the newcomer's readers check write_log
// (not solo), so they see whatever the other writes; and the newcomer's
// every write transaction takes the fence, the lease shared, which the
// exclusive lease does not grant: no write of the newcomer commits while
// the stopped process may answer from its caches. Its writes wait until
// the other steps down (resumed, it finds the newcomer's NOTIFYs queued)
// or its session ends; its reads go on. A solo process that still
// answered round trips would have seen the NOTIFY within soloBeat, so one
// that has not for leaseWait (> soloTerm) is past its own solo term by
// its clock when it resumes. The newcomer waits on, without bound, when
// its migrations are not all applied: those do not take the fence.
//
// What is not covered: a process of a version before this one takes no
// lease and no fence: processes sharing a database are upgraded together
// (docs/postgresql.md), or the new ones run with Options.NoSolo (tolk
// serve --db-no-solo) beside old ones.
const (
	// soloTerm is how long after its last answered heartbeat a process
	// counts itself solo (T of the design above).
	soloTerm = 1500 * time.Millisecond
	// soloBeat is how often a solo process sends its heartbeat.
	soloBeat = soloTerm / 3
	// soloRetry is how often a process that is not solo tries to become
	// it, and checks that its lease's connection is alive.
	soloRetry = time.Second
	// leaseAsk is the lock_timeout of the lease's connection: a newcomer
	// waiting for the lease sends its NOTIFY again this often, in case
	// a process became solo between its NOTIFY and its wait.
	leaseAsk = 500 * time.Millisecond
	// soloDrain bounds the wait for the write transactions under way
	// when becoming solo: a longer one (an import's batch) puts it off
	// to the next try rather than hold up every writer behind it.
	soloDrain = 200 * time.Millisecond
	// soloStep bounds, in soloTerms, each of trySolo's and stepDown's
	// round trips on the lease's connection (the heartbeat's is bounded
	// by soloTerm): one that does not answer drops the connection, so
	// the process is not solo and a waiting newcomer is let in.
	soloStep = 3
	// leaseWait bounds, in soloTerms, a newcomer's wait for the lease
	// held exclusively by a process that does not step down (see
	// above): it then starts without the lease.
	leaseWait = 5
)

// lease is a process's lease on a PostgreSQL index (see above). Its
// connection is used by open (before the store starts) and then only by
// run's goroutine; solo is safe for concurrent use.
type lease struct {
	db      *DB
	cfg     *pgx.ConnConfig
	key     string // the advisory lock's keys, "space, 0"
	drain   string // waits out the write transactions under way
	channel string // the NOTIFY channel of newcomers
	noSolo  bool   // Options.NoSolo: hold the lease shared, never solo
	// term, beat and retry are soloTerm, soloBeat and soloRetry, or
	// shorter in tests (Options.soloTerm).
	term, beat, retry time.Duration
	// until is when solo ends, in nanoseconds on leaseClock (which
	// counts a suspend of the machine); 0 when not solo.
	until atomic.Int64
	// pid is the lease session's backend, for tests.
	pid atomic.Uint32
	// changes counts the times the process became solo or stopped being
	// it (DB.SoloChanges, tolk_db_solo_changes_total): a count growing
	// fast says processes come and go beside it, each start costing the
	// step-down and each end 2×soloTerm before reads skip checks again.
	changes atomic.Uint64
	// fenceStmt is the writers' fence: every write transaction of a
	// process takes the lease shared, for the transaction, before its
	// write lock (fence), unless its own lease session holds the lease
	// exclusively (exclusive). So no other process's write can commit
	// while a process is solo, whatever became of that other process's
	// own lease session: the database holds it back until the solo
	// process steps down. fenceMu orders the writers' choice against
	// taking the lease exclusively: a writer that chose to take the
	// fence holds it read until its lock is granted, so that the lease
	// is never taken exclusively between its choice and its lock (its
	// own writer would then wait for its own process's lease).
	fenceStmt string
	fenceMu   sync.RWMutex
	// exclusive says the lease's session holds the lock exclusively:
	// set once the try is granted, cleared before the unlock (and by
	// drop, which ends the session). The lease's goroutine reads it to
	// choose between the heartbeat and the idle wait, the writers to
	// skip the fence.
	exclusive atomic.Bool
	// reconnect is how long the lease waits before it connects again
	// after its connection failed: 0 but in tests (Options.leaseReconnect).
	reconnect time.Duration

	conn   *pgx.Conn
	marked bool // solo_lease holds this session's backend
	// joining says the lease is not held yet: open gave up waiting for
	// a process that holds it exclusively and does not step down, and
	// run asks for it until it has it (see above).
	joining bool
	stop    context.CancelFunc
	done    chan struct{}
}

func newLease(db *DB, cfg *pgx.ConnConfig, schema string, o Options) *lease {
	cfg = cfg.Copy()
	cfg.RuntimeParams["lock_timeout"] = strconv.FormatInt(leaseAsk.Milliseconds(), 10)
	// The lease's session writes only its marker row; named apart, so
	// that whoever watches a process's sessions for its writes (an
	// operator in pg_stat_activity, the kill test) sees only the writer's.
	if name := cfg.RuntimeParams["application_name"]; name != "" {
		cfg.RuntimeParams["application_name"] = name + " lease"
	}
	space := lockSpace("lease", schema)
	// Every write transaction takes the write lock (postgresLocks'
	// exclusive or shared) first and holds it to its end.
	drain := fmt.Sprintf("SELECT set_config('lock_timeout', '%d', true), pg_advisory_xact_lock(%d, 0)",
		soloDrain.Milliseconds(), lockSpace("write", schema))
	l := &lease{db: db, cfg: cfg, key: fmt.Sprintf("%d, 0", space), drain: drain,
		fenceStmt: fmt.Sprintf("SELECT pg_advisory_xact_lock_shared(%d, 0)", space),
		channel:   fmt.Sprintf("tolk_lease_%08x", uint32(space)), noSolo: o.NoSolo,
		term: soloTerm, beat: soloBeat, retry: soloRetry}
	if t := o.soloTerm; t > 0 {
		l.term, l.beat, l.retry = t, t/3, t*2/3
	}
	l.reconnect = o.leaseReconnect
	return l
}

// fence queues, for a write transaction about to take its write lock,
// the lease taken shared for the transaction, unless this process holds
// it exclusively, and returns what to call once the transaction's locks
// are granted (or it failed). See fenceStmt.
func (l *lease) fence(tx *Tx) (done func(), err error) {
	if l == nil {
		return func() {}, nil
	}
	l.fenceMu.RLock()
	if l.exclusive.Load() {
		l.fenceMu.RUnlock()
		return func() {}, nil
	}
	if err := tx.execLater(l.fenceStmt); err != nil {
		l.fenceMu.RUnlock()
		return nil, err
	}
	return l.fenceMu.RUnlock, nil
}

// solo reports whether the process is alone on the database now, so
// that its readers need not ask write_log for other processes' writes.
func (l *lease) solo() bool {
	if l == nil {
		return false
	}
	u := l.until.Load()
	return u != 0 && int64(leaseClock()) < u
}

// Solo reports whether this process is alone on its PostgreSQL database
// now, its readers answering from its caches without asking write_log
// (lease.go). Always false on SQLite, whose readers never ask.
func (db *DB) Solo() bool { return db.lease.solo() }

// SoloChanges counts the times this process became alone on its
// PostgreSQL database or stopped being it since Open (a solo spell is
// two). Always 0 on SQLite.
func (db *DB) SoloChanges() uint64 {
	if db.lease == nil {
		return 0
	}
	return db.lease.changes.Load()
}

// endSolo ends solo, if the process was, and counts the change.
func (l *lease) endSolo() bool {
	if l.until.Swap(0) == 0 {
		return false
	}
	l.changes.Add(1)
	return true
}

// open connects and takes the lease shared, asking a solo process to
// step down, and waits soloTerm if a solo process ended without doing so.
// A solo process that does not step down within leaseWait soloTerms
// leaves the store to start without the lease (joining; see above), its
// migrations all applied.
func (l *lease) open(ctx context.Context) error {
	conn, err := pgx.ConnectConfig(ctx, l.cfg)
	if err != nil {
		return fmt.Errorf("lease: %w", err)
	}
	l.conn = conn
	l.pid.Store(conn.PgConn().PID())
	if _, err := conn.Exec(ctx, "LISTEN "+l.channel); err != nil {
		return fmt.Errorf("lease: listen: %w", err)
	}
	got, err := l.join(ctx, time.Now().Add(leaseWait*l.term))
	if err != nil {
		return err
	}
	if !got {
		without, err := l.startWithout(ctx)
		if err != nil {
			return err
		}
		if without {
			l.joining = true
			return nil
		}
		if _, err := l.join(ctx, time.Time{}); err != nil {
			return err
		}
	}
	return l.joined(ctx)
}

// join takes the lease shared, sending a NOTIFY to the solo process
// before each wait of leaseAsk, until deadline (none when zero): false
// when it passed without the lease.
func (l *lease) join(ctx context.Context, deadline time.Time) (bool, error) {
	for {
		var got bool
		if err := l.conn.QueryRow(ctx, "SELECT pg_try_advisory_lock_shared("+l.key+")").Scan(&got); err != nil {
			return false, fmt.Errorf("lease: %w", err)
		}
		if got {
			return true, nil
		}
		if !deadline.IsZero() && time.Now().After(deadline) {
			return false, nil
		}
		if _, err := l.conn.Exec(ctx, "SELECT pg_notify($1, 'join')", l.channel); err != nil {
			return false, fmt.Errorf("lease: ask the solo process to step down: %w", err)
		}
		_, err := l.conn.Exec(ctx, "SELECT pg_advisory_lock_shared("+l.key+")")
		if err == nil {
			return true, nil
		}
		if !isLockTimeout(err) {
			return false, fmt.Errorf("lease: %w", err)
		}
	}
}

// startWithout logs what holds the lease exclusively past a newcomer's
// bounded wait (the marker's backend, as pg_stat_activity shows it) and
// reports whether the store may start without it: when every migration
// of this binary is applied, as the migrations do not take the fence.
func (l *lease) startWithout(ctx context.Context) (bool, error) {
	var holder *int32
	var app, client, since string
	var marker bool
	if err := l.conn.QueryRow(ctx, "SELECT to_regclass('solo_lease') IS NOT NULL").Scan(&marker); err != nil {
		return false, fmt.Errorf("lease: %w", err)
	}
	if marker {
		err := l.conn.QueryRow(ctx, `SELECT s.holder, coalesce(a.application_name, ''),
			coalesce(host(a.client_addr), 'local'), coalesce(CAST(a.backend_start AS text), '')
			FROM solo_lease s LEFT JOIN pg_stat_activity a ON a.pid = s.holder`).Scan(&holder, &app, &client, &since)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return false, fmt.Errorf("lease: %w", err)
		}
	}
	backend := "unknown"
	if holder != nil {
		backend = strconv.Itoa(int(*holder))
	}
	applied := false
	if names, err := l.db.migrationNames(); err == nil {
		if err := l.conn.QueryRow(ctx, "SELECT count(*) = 1 FROM migrations WHERE name = $1",
			"migrations/"+names[len(names)-1]).Scan(&applied); err != nil {
			return false, fmt.Errorf("lease: %w", err)
		}
	}
	if !applied {
		l.db.log.Warn("index: a process holds the database alone and does not step down (stopped?); this one's migrations are not all applied, so it waits for it",
			"backend", backend, "application_name", app, "client", client, "backend_start", since, "waited", leaseWait*l.term)
		return false, nil
	}
	l.db.log.Warn("index: a process holds the database alone and does not step down (stopped?); starting without the lease: reads check write_log, writes wait until it steps down or its session ends",
		"backend", backend, "application_name", app, "client", client, "backend_start", since, "waited", leaseWait*l.term)
	return true, nil
}

// joined is what follows taking the lease shared: when a solo process
// ended without stepping down, waiting soloTerm before the first write.
func (l *lease) joined(ctx context.Context) error {
	conn := l.conn
	var marker bool
	if err := conn.QueryRow(ctx, "SELECT to_regclass('solo_lease') IS NOT NULL").Scan(&marker); err != nil {
		return fmt.Errorf("lease: %w", err)
	}
	if !marker { // before migration 0098: no process of this version was ever solo here
		return nil
	}
	var holder *int32
	if err := conn.QueryRow(ctx, "SELECT holder FROM solo_lease").Scan(&holder); err != nil &&
		!errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("lease: %w", err)
	}
	if holder == nil {
		return nil
	}
	l.db.log.Warn("index: a process alone on the database ended without stepping down; waiting for it to stop answering from its caches",
		"backend", *holder, "wait", l.term)
	select {
	case <-time.After(l.term):
	case <-ctx.Done():
		return ctx.Err()
	}
	if _, err := conn.Exec(ctx, "UPDATE solo_lease SET holder = NULL WHERE holder = $1", *holder); err != nil {
		return fmt.Errorf("lease: clear the marker: %w", err)
	}
	return nil
}

// isLockTimeout reports whether err is PostgreSQL's lock_timeout.
func isLockTimeout(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "55P03"
}

// start runs the lease in the background, once the store has started
// (solo_lease exists when its migration has run).
func (l *lease) start() {
	ctx, stop := context.WithCancel(context.Background())
	l.stop, l.done = stop, make(chan struct{})
	go l.run(ctx)
}

// run keeps the lease: it becomes solo when it can, steps down when a
// newcomer asks, and takes the lease again when its connection dies.
func (l *lease) run(ctx context.Context) {
	defer close(l.done)
	defer l.drop()
	for ctx.Err() == nil {
		if l.conn == nil {
			if err := l.open(ctx); err != nil {
				l.drop()
				if ctx.Err() == nil {
					l.db.log.Warn("index: cannot take the lease of the processes sharing the database; retrying", "err", err)
				}
				sleep(ctx, l.retry)
				continue
			}
		}
		var err error
		switch {
		case l.joining:
			err = l.rejoin(ctx)
		case l.exclusive.Load():
			err = l.heartbeat(ctx)
		default:
			err = l.idle(ctx)
		}
		if err != nil && ctx.Err() == nil {
			l.db.log.Warn("index: the lease's connection failed; reconnecting", "err", err)
			l.drop()
			sleep(ctx, l.reconnect)
		}
	}
	// Closing: step down cleanly, so that the next process need not wait
	// (the log's "another process" would be wrong).
	l.endSolo()
	if l.conn != nil {
		sctx, cancel := context.WithTimeout(context.Background(), sharedTimeout)
		defer cancel()
		if err := l.stepDown(sctx); err != nil {
			l.db.log.Warn("index: cannot step down cleanly; the next process to open the database waits", "err", err, "wait", l.term)
		}
	}
}

// rejoin asks again for the lease open did not get (joining), for
// leaseWait soloTerms at a time.
func (l *lease) rejoin(ctx context.Context) error {
	got, err := l.join(ctx, time.Now().Add(leaseWait*l.term))
	if err != nil || !got {
		return err
	}
	if err := l.joined(ctx); err != nil {
		return err
	}
	l.joining = false
	l.db.log.Info("index: took the lease of the processes sharing the database")
	return nil
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// idle waits soloRetry, then tries to become solo, which also tells that
// the connection lives. A newcomer's NOTIFY meanwhile asks nothing of a
// process that is not solo, but says one is about to take the lease: the
// try would only make it ask again (leaseAsk later).
func (l *lease) idle(ctx context.Context) error {
	joined, err := l.waitJoin(ctx, l.retry)
	if err != nil {
		return err
	}
	if l.noSolo || joined {
		return l.conn.Ping(ctx)
	}
	return l.trySolo(ctx)
}

// step bounds a round trip of trySolo's or stepDown's (soloStep).
func (l *lease) step(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, soloStep*l.term)
}

// stepErr names a round trip that did not answer within its bound: the
// caller drops the connection, so the process is not solo and a waiting
// newcomer is let in.
func (l *lease) stepErr(what string, err error) error {
	if errors.Is(err, context.DeadlineExceeded) || pgconn.Timeout(err) {
		return fmt.Errorf("lease: %s did not answer within %v: %w", what, soloStep*l.term, err)
	}
	return err
}

// trySolo becomes solo if no other process holds or waits for the lease.
// Each round trip is bounded (step).
func (l *lease) trySolo(ctx context.Context) error {
	var got, marker bool
	// No writer of this process between its choice of the fence and its
	// lock (fence): the try would fail on a granted fence, and a fence
	// chosen after the try and before exclusive is set would wait for
	// this session's lock.
	l.fenceMu.Lock()
	sctx, cancel := l.step(ctx)
	err := l.conn.QueryRow(sctx, "SELECT pg_try_advisory_lock("+l.key+"), to_regclass('solo_lease') IS NOT NULL").Scan(&got, &marker)
	cancel()
	if err == nil && got {
		l.exclusive.Store(true)
	}
	l.fenceMu.Unlock()
	if err != nil {
		return l.stepErr("the try for the lease", err)
	}
	if !got {
		return nil
	}
	if !marker { // a schema before migration 0098 has no marker: never solo
		return l.stepDown(ctx)
	}
	sctx, cancel = l.step(ctx)
	_, err = l.conn.Exec(sctx, "UPDATE solo_lease SET holder = pg_backend_pid()")
	cancel()
	if err != nil {
		return l.stepErr("the marker", err)
	}
	l.marked = true
	// A process whose lease session died unnoticed writes on until it
	// notices, at its next round trip on it (soloRetry < 2×soloTerm).
	joined, err := l.waitJoin(ctx, 2*l.term)
	if err != nil {
		return err
	}
	if joined {
		return l.stepDown(ctx)
	}
	// The write transactions under way commit first: the replay below
	// sees them.
	sctx, cancel = l.step(ctx)
	_, err = l.conn.Exec(sctx, l.drain)
	cancel()
	if isLockTimeout(err) {
		return l.stepDown(ctx)
	}
	if err != nil {
		return l.stepErr("the wait for the writes under way", err)
	}
	// What other processes wrote before they closed, in the caches' clock.
	l.db.catchUp(context.Background())
	sent := leaseClock()
	pctx, cancel := context.WithTimeout(ctx, l.term)
	defer cancel()
	if err := l.conn.Ping(pctx); err != nil {
		return l.stepErr("the first heartbeat", err)
	}
	// Counted first: the count is odd whenever solo reports true.
	l.changes.Add(1)
	l.until.Store(int64(sent + l.term))
	l.db.log.Info("index: alone on the database: reads answer from the caches without checking write_log")
	return nil
}

// heartbeat is the solo process's heartbeat: it steps down if a newcomer asks
// within soloBeat, and otherwise extends solo to soloTerm past the
// heartbeat's send.
func (l *lease) heartbeat(ctx context.Context) error {
	joined, err := l.waitJoin(ctx, l.beat)
	if err != nil {
		return err
	}
	if joined {
		return l.stepDown(ctx)
	}
	sent := leaseClock()
	// Bounded: while it holds the lease exclusively its writers take no
	// fence, so a session that died unseen must be let go (drop) before
	// a process that took the lease meanwhile becomes solo, 2×term later.
	pctx, cancel := context.WithTimeout(ctx, l.term)
	defer cancel()
	if err := l.conn.Ping(pctx); err != nil {
		return err
	}
	l.until.Store(int64(sent + l.term))
	return nil
}

// waitJoin waits at most d for a newcomer's NOTIFY, and reports whether
// one came.
func (l *lease) waitJoin(ctx context.Context, d time.Duration) (bool, error) {
	wctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	self := l.conn.PgConn().PID()
	for {
		n, err := l.conn.WaitForNotification(wctx)
		if err != nil {
			if ctx.Err() == nil && wctx.Err() != nil {
				return false, nil
			}
			return false, err
		}
		if n.PID != self {
			return true, nil
		}
	}
}

// stepDown ends solo: the readers check again before anything else, then
// the marker is cleared and the exclusive lock let go, which lets a
// waiting newcomer in. On an error the caller drops the connection, which
// ends the lock with the session (and leaves the marker: a newcomer
// waits soloTerm).
func (l *lease) stepDown(ctx context.Context) error {
	if l.endSolo() {
		l.db.log.Info("index: another process shares the database: reads check write_log again")
	}
	if l.marked {
		sctx, cancel := l.step(ctx)
		_, err := l.conn.Exec(sctx, "UPDATE solo_lease SET holder = NULL")
		cancel()
		if err != nil {
			return l.stepErr("the step-down's marker", err)
		}
		l.marked = false
	}
	if l.exclusive.Load() {
		// The writers fence themselves again first: one that chooses the
		// fence now waits for this session's lock until the unlock.
		l.exclusive.Store(false)
		sctx, cancel := l.step(ctx)
		_, err := l.conn.Exec(sctx, "SELECT pg_advisory_unlock("+l.key+")")
		cancel()
		if err != nil {
			return l.stepErr("the step-down's unlock", err)
		}
	}
	return nil
}

// drop ends the lease's session (and with it every lock it holds).
func (l *lease) drop() {
	if l.endSolo() {
		l.db.log.Info("index: the lease's connection ended: reads check write_log again")
	}
	if l.conn != nil {
		ctx, cancel := context.WithTimeout(context.Background(), sharedTimeout)
		l.conn.Close(ctx)
		cancel()
		l.conn = nil
	}
	l.marked, l.joining = false, false
	l.exclusive.Store(false)
}

// close steps down and ends the lease, after the store's last write.
func (l *lease) close() {
	if l == nil {
		return
	}
	if l.stop == nil { // never started: open's connection only
		l.drop()
		return
	}
	l.stop()
	<-l.done
}
