package sqlstore

import (
	"time"

	"golang.org/x/sys/unix"
)

// leaseClock is the clock solo's term is counted on: CLOCK_BOOTTIME,
// which goes on while the machine is suspended. Go's monotonic clock
// (CLOCK_MONOTONIC) stops then, so a virtual machine resumed after a
// suspend longer than the database's keepalive would still count itself
// solo for what was left of its term, its readers skipping write_log
// although the database dropped its lease session meanwhile and another
// process may have written. On this clock the term has run out by the
// resume: solo ends until a heartbeat reaches the database again.
// A failing call (no such clock: Linux before 2.6.39) falls back to the
// monotonic clock.
func leaseClock() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_BOOTTIME, &ts); err != nil {
		return time.Since(processStart)
	}
	return time.Duration(ts.Nano())
}

// processStart is the monotonic clock's origin for leaseClock's
// fallback.
var processStart = time.Now()
