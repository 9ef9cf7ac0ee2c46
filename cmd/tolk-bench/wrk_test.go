package main

import (
	"testing"
	"time"
)

// TestParseWrk reads a report of Debian's wrk 4.1 with --latency, with
// the error lines it adds when there are errors.
func TestParseWrk(t *testing.T) {
	out := `Running 5s test @ http://127.0.0.1:40123/api/changes/
  2 threads and 8 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency   812.00us    1.20ms  30.01ms   95.12%
    Req/Sec     5.61k   412.33     6.20k    71.00%
  Latency Distribution
     50%  524.00us
     75%  700.00us
     90%    1.02ms
     99%    8.53ms
  55786 requests in 5.00s, 886.41MB read
  Socket errors: connect 0, read 2, write 0, timeout 1
  Non-2xx or 3xx responses: 4
Requests/sec:  11157.20
Transfer/sec:    177.28MB
`
	st, err := parseWrk([]byte(out))
	if err != nil {
		t.Fatal(err)
	}
	want := wrkStats{RPS: 11157.20, Requests: 55786, Errors: 7, P50: 524 * time.Microsecond, P99: 8530 * time.Microsecond}
	if st != want {
		t.Errorf("parseWrk = %+v, want %+v", st, want)
	}
	if _, err := parseWrk([]byte("     50%  12.3xs\nRequests/sec:  1.0\n1 requests in 1s\n")); err == nil {
		t.Error("a latency in an unknown unit was taken")
	}
	if _, err := parseWrk([]byte("wrk: connection refused\n")); err == nil {
		t.Error("a report without figures was taken")
	}
}
