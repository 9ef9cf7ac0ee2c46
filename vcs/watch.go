package vcs

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"
)

// Default bounds of a network operation (see Timeouts).
const (
	DefaultStallTimeout = 2 * time.Minute
	DefaultTotalTimeout = time.Hour
)

// Timeouts bound the network operations of Clone, OpenOrClone, Pull,
// Fetch, Push and the listing of remote branches. The zero value means
// the defaults.
type Timeouts struct {
	// Stall ends an operation during which nothing arrived for this
	// long: neither a progress message of the remote nor a packet of
	// the pack being received (up to 64 KiB: keep Stall well above the
	// time the slowest link takes for that). A large clone that keeps
	// receiving is never stalled. 0 means DefaultStallTimeout; negative
	// turns it off. A push sends rather than receives, so only Total
	// bounds it.
	Stall time.Duration
	// Total bounds an operation however much it progresses. 0 means
	// DefaultTotalTimeout; negative turns it off.
	Total time.Duration
}

func (t Timeouts) withDefaults() Timeouts {
	if t.Stall == 0 {
		t.Stall = DefaultStallTimeout
	}
	if t.Total == 0 {
		t.Total = DefaultTotalTimeout
	}
	return t
}

// watch is the context of one network operation: it ends after the
// total timeout, or once nothing moved for the stall timeout. Progress
// is what go-git writes to the watch (the remote's progress messages,
// its Progress writer) and the growth of the files in packDir, where
// go-git streams the pack it receives. Call stop when the operation
// returns.
type watch struct {
	ctx     context.Context
	stop    func()
	last    atomic.Int64 // UnixNano of the last progress
	forward io.Writer    // the caller's Progress writer; may be nil
}

// watchRemote starts watching an operation under ctx; packDir "" (or
// t.Stall negative) watches only the progress messages (or nothing).
func watchRemote(ctx context.Context, t Timeouts, packDir string, forward io.Writer) *watch {
	t = t.withDefaults()
	w := &watch{forward: forward}
	var cancelTotal context.CancelFunc = func() {}
	if t.Total > 0 {
		ctx, cancelTotal = context.WithTimeoutCause(ctx, t.Total,
			fmt.Errorf("%w: not done after %v", ErrTimeout, t.Total))
	}
	ctx, cancel := context.WithCancelCause(ctx)
	w.ctx = ctx
	done := make(chan struct{})
	w.stop = func() {
		close(done)
		cancel(nil)
		cancelTotal()
	}
	if t.Stall < 0 {
		return w
	}
	w.touch()
	// Checked a few times per stall period, so a stall is seen within
	// about a quarter of it late.
	tick := min(max(t.Stall/4, 10*time.Millisecond), time.Second)
	go func() {
		ticker := time.NewTicker(tick)
		defer ticker.Stop()
		size := packBytes(packDir)
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-ticker.C:
			}
			if s := packBytes(packDir); s != size {
				size = s
				w.touch()
			}
			if idle := time.Since(time.Unix(0, w.last.Load())); idle >= t.Stall {
				cancel(fmt.Errorf("%w: nothing received for %v", ErrStalled, t.Stall))
				return
			}
		}
	}()
	return w
}

func (w *watch) touch() { w.last.Store(time.Now().UnixNano()) }

// Write is go-git's Progress writer: every message is progress.
func (w *watch) Write(p []byte) (int, error) {
	w.touch()
	if w.forward != nil {
		w.forward.Write(p)
	}
	return len(p), nil
}

// packBytes sums the sizes of the files in dir; 0 when dir is "" or
// cannot be read (yet).
func packBytes(dir string) int64 {
	if dir == "" {
		return 0
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	var n int64
	for _, e := range entries {
		if info, err := e.Info(); err == nil {
			n += info.Size()
		}
	}
	return n
}

// packDir is where go-git writes the packs of the checkout at dir.
func packDir(dir string) string { return filepath.Join(dir, ".git", "objects", "pack") }
