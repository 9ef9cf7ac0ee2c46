//go:build !linux

package sqlstore

import "time"

// leaseClock is the clock solo's term is counted on: Go's monotonic
// clock, since the process started. On Linux it is CLOCK_BOOTTIME,
// which goes on through a suspend (lease_clock_linux.go); elsewhere a
// suspend longer than the database's keepalive may leave the process
// counting itself solo for what was left of its term.
func leaseClock() time.Duration { return time.Since(processStart) }

// processStart is leaseClock's origin.
var processStart = time.Now()
