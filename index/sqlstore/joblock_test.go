package sqlstore_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tolk-project/tolk/index/indextest"
	"github.com/tolk-project/tolk/index/internal/testengine"
	"github.com/tolk-project/tolk/index/sqlstore"
)

// twoProcesses opens two indexes on one PostgreSQL schema, as two Tolk
// processes sharing it would; it skips on SQLite, whose file one process
// owns. The caller closes them.
func twoProcesses(t *testing.T) (a, b *sqlstore.DB) {
	t.Helper()
	if testengine.Engine() != testengine.Postgres {
		t.Skip("one process per SQLite file")
	}
	dsn := indextest.Location(t)
	a, err := indextest.Reopen(t, dsn)
	if err != nil {
		t.Fatal(err)
	}
	if b, err = indextest.Reopen(t, dsn); err != nil {
		a.Close()
		t.Fatal(err)
	}
	return a, b
}

// lockTestID is a component id no other test locks: advisory locks are
// the database's, shared by the schemas of tests running at once.
func lockTestID() int64 { return 1_000_000 + time.Now().UnixNano()%1_000_000_000 }

func TestLockComponentSQLiteIsNoOp(t *testing.T) {
	if testengine.Engine() != testengine.SQLite {
		t.Skip("SQLite only")
	}
	db := mustOpen(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	u1, err := db.LockComponent(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	// The process's own mutex orders its jobs: a second holder is not
	// kept waiting by the store.
	u2, err := db.LockComponent(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	u1()
	u2()
	if db.SharedCheckouts() {
		t.Error("SharedCheckouts on SQLite")
	}
}

func TestLockComponentAcrossProcesses(t *testing.T) {
	a, b := twoProcesses(t)
	defer b.Close()
	id := lockTestID()
	ctx := context.Background()

	t.Run("never held together", func(t *testing.T) {
		var holders, most atomic.Int32
		var wg sync.WaitGroup
		for i := range 6 {
			db := a
			if i%2 == 1 {
				db = b
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range 5 {
					unlock, err := db.LockComponent(ctx, id)
					if err != nil {
						t.Error(err)
						return
					}
					n := holders.Add(1)
					for {
						m := most.Load()
						if n <= m || most.CompareAndSwap(m, n) {
							break
						}
					}
					time.Sleep(2 * time.Millisecond)
					holders.Add(-1)
					unlock()
				}
			}()
		}
		wg.Wait()
		if most.Load() != 1 {
			t.Fatalf("at most %d holders at once, want 1", most.Load())
		}
	})

	t.Run("a wait ends with its context", func(t *testing.T) {
		unlock, err := a.LockComponent(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		wctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
		defer cancel()
		start := time.Now()
		if _, err := b.LockComponent(wctx, id); err == nil {
			t.Fatal("b took the lock a holds")
		}
		if took := time.Since(start); took > 5*time.Second {
			t.Errorf("the cancelled wait took %v", took)
		}
		unlock()
		// The cancelled wait left nothing behind.
		actx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		u, err := b.LockComponent(actx, id)
		if err != nil {
			t.Fatalf("lock after a cancelled wait: %v", err)
		}
		u()
	})

	t.Run("a dead holder frees it", func(t *testing.T) {
		if _, err := a.LockComponent(ctx, id); err != nil {
			t.Fatal(err)
		}
		got := make(chan error, 1)
		go func() {
			wctx, cancel := context.WithTimeout(ctx, 20*time.Second)
			defer cancel()
			u, err := b.LockComponent(wctx, id)
			if err == nil {
				u()
			}
			got <- err
		}()
		select {
		case err := <-got:
			t.Fatalf("b took the lock while a held it (err %v)", err)
		case <-time.After(200 * time.Millisecond):
		}
		a.Close() // the process dies with the lock held
		select {
		case err := <-got:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(15 * time.Second):
			t.Fatal("the lock outlived its holder")
		}
	})
}

// lockChildEnv, when set in a test binary's environment, makes
// TestLockComponentDeadProcess the child process: it takes the lock
// named there ("dsn id"), says so, and waits to be killed.
const lockChildEnv = "TOLK_TEST_LOCK_CHILD"

// TestLockComponentDeadProcess: a process killed (SIGKILL, no Close)
// while holding a component's lock releases it at once.
func TestLockComponentDeadProcess(t *testing.T) {
	if spec := os.Getenv(lockChildEnv); spec != "" {
		holdLockUntilKilled(t, spec)
		return
	}
	if testengine.Engine() != testengine.Postgres {
		t.Skip("one process per SQLite file")
	}
	loc := indextest.Location(t)
	b, err := indextest.Reopen(t, loc)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	id := lockTestID()
	cmd := exec.Command(os.Args[0], "-test.run=^TestLockComponentDeadProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), lockChildEnv+"="+loc+" "+strconv.FormatInt(id, 10),
		testengine.EngineEnv+"="+testengine.Postgres)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	if !waitForLine(out, "locked") {
		t.Fatal("the child never took the lock")
	}
	ctx := context.Background()
	wctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	if _, err := b.LockComponent(wctx, id); err == nil {
		t.Fatal("took the lock the child holds")
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	start := time.Now()
	lctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	unlock, err := b.LockComponent(lctx, id)
	if err != nil {
		t.Fatalf("the lock outlived its killed holder: %v", err)
	}
	unlock()
	t.Logf("lock taken %v after the holder was killed", time.Since(start))
}

func holdLockUntilKilled(t *testing.T, spec string) {
	dsn, idText, _ := strings.Cut(spec, " ")
	id, err := strconv.ParseInt(idText, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	db, err := indextest.Reopen(t, dsn)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.LockComponent(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	fmt.Println("locked")
	select {} // until killed
}

// waitForLine reports whether r says line within ten seconds.
func waitForLine(r io.Reader, line string) bool {
	found := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			if strings.TrimSpace(sc.Text()) == line {
				found <- true
				return
			}
		}
		found <- false
	}()
	select {
	case ok := <-found:
		return ok
	case <-time.After(10 * time.Second):
		return false
	}
}

// TestLocksArePerSchema: indexes in two schemas of one database (two
// deployments, or two tests) lock the same component id without waiting
// for each other.
func TestLocksArePerSchema(t *testing.T) {
	if testengine.Engine() != testengine.Postgres {
		t.Skip("advisory locks are PostgreSQL's")
	}
	a, b := indextest.Open(t), indextest.Open(t)
	unlock, err := a.LockComponent(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	unlockB, err := b.LockComponent(ctx, 1)
	if err != nil {
		t.Fatalf("the other schema's lock of component 1 waited for this one's: %v", err)
	}
	unlockB()
}
