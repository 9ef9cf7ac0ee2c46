package sqlstore

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestLeaseClockCountsSuspend checks that solo's term is counted on the
// clock that goes on through a suspend of the machine: /proc/uptime
// reads the same clock (CLOCK_BOOTTIME). Go's monotonic clock since the
// process started, which stops during a suspend, is hours away from it
// on any machine that has been up longer than the test binary.
func TestLeaseClockCountsSuspend(t *testing.T) {
	b, err := os.ReadFile("/proc/uptime")
	if err != nil {
		t.Skip("no /proc/uptime:", err)
	}
	got := leaseClock()
	fields := strings.Fields(string(b))
	up, err := strconv.ParseFloat(fields[0], 64)
	if err != nil {
		t.Fatalf("/proc/uptime %q: %v", b, err)
	}
	want := time.Duration(up * float64(time.Second))
	if d := got - want; d < -time.Second || d > time.Second {
		t.Errorf("leaseClock() = %v, /proc/uptime says %v since boot: not CLOCK_BOOTTIME", got, want)
	}
	if later := leaseClock(); later < got {
		t.Errorf("leaseClock went back: %v after %v", later, got)
	}
}
