package edge

import (
	clist "container/list"
	"fmt"
	"math"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gin-gonic/gin"
)

// RateLimit is how many requests one client may make per period. The
// zero value sets no limit.
type RateLimit struct {
	Requests int
	Period   time.Duration
}

// The reference's defaults (../shared/reference/weblate-core.md,
// "Authentication and tokens").
var (
	DefaultAnonymousRateLimit = RateLimit{Requests: 100, Period: 24 * time.Hour}
	DefaultUserRateLimit      = RateLimit{Requests: 5000, Period: time.Hour}
)

// DefaultAnonymousPageRateLimit is Tolk's own: the reference limits only
// its API, and a person reading a public project's pages makes hundreds
// of requests a day, which the API's 100/day would cut off within minutes.
var DefaultAnonymousPageRateLimit = RateLimit{Requests: 1000, Period: time.Hour}

// periods are the period names ParseRateLimit reads; like the reference's
// throttle rates, only the first letter counts.
var periods = map[byte]struct {
	name string
	d    time.Duration
}{
	's': {"second", time.Second}, 'm': {"minute", time.Minute},
	'h': {"hour", time.Hour}, 'd': {"day", 24 * time.Hour},
}

// ParseRateLimit reads a limit in the reference's notation, "N/period"
// with a period of second, minute, hour or day (or any word starting with
// their letter: "100/d", "5000/hours"), or "0" or "off" for no limit.
func ParseRateLimit(s string) (RateLimit, error) {
	s = strings.TrimSpace(s)
	if s == "0" || strings.EqualFold(s, "off") {
		return RateLimit{}, nil
	}
	n, period, ok := strings.Cut(s, "/")
	requests, err := strconv.Atoi(n)
	p, known := periods[0]
	if period != "" {
		p, known = periods[strings.ToLower(period)[0]]
	}
	if !ok || err != nil || requests < 0 || !known {
		return RateLimit{}, fmt.Errorf("rate limit %q: want N/second, N/minute, N/hour, N/day, or off", s)
	}
	if requests == 0 {
		return RateLimit{}, nil
	}
	return RateLimit{Requests: requests, Period: p.d}, nil
}

// Off reports whether the limit lets everything through.
func (r RateLimit) Off() bool { return r.Requests <= 0 }

// String writes the limit as ParseRateLimit reads it.
func (r RateLimit) String() string {
	if r.Off() {
		return "off"
	}
	for _, p := range periods {
		if p.d == r.Period {
			return strconv.Itoa(r.Requests) + "/" + p.name
		}
	}
	return strconv.Itoa(r.Requests) + "/" + r.Period.String()
}

// MarshalText and UnmarshalText make a RateLimit a flag value.
func (r RateLimit) MarshalText() ([]byte, error) { return []byte(r.String()), nil }

// UnmarshalText reads what ParseRateLimit reads.
func (r *RateLimit) UnmarshalText(b []byte) error {
	v, err := ParseRateLimit(string(b))
	if err == nil {
		*r = v
	}
	return err
}

// RateLimits are a Server's request limits on the API, the pages and
// the Git export (throttle). The zero value limits nothing.
type RateLimits struct {
	// Anonymous limits each client address (gin's ClientIP, which
	// believes forwarded addresses only from TrustedProxies; IPv6
	// addresses by their /64, the block one host holds) without a valid
	// token. A request with a token that fails counts here too.
	Anonymous RateLimit
	// AnonymousPages limits the pages and their forms each anonymous
	// client address may request, in a window of its own: people read
	// pages far more often than tools call the API.
	AnonymousPages RateLimit
	// User limits each signed-in user, whichever of its tokens it uses,
	// on every route (the API, the pages, the Git export).
	User RateLimit
	// MaxClients bounds how many clients each limit tracks at once, so
	// that a flood of addresses cannot grow memory without bound; 0 means
	// 100,000. When it is reached, the client whose window ends first is
	// forgotten (and starts afresh if it comes back).
	MaxClients int
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

const defaultMaxClients = 100_000

// validate fills defaults and rejects negative or period-less limits.
func (r *RateLimits) validate() error {
	for _, l := range []RateLimit{r.Anonymous, r.AnonymousPages, r.User} {
		if l.Requests < 0 || (l.Requests > 0 && l.Period <= 0) {
			return fmt.Errorf("edge: rate limit %d per %v: want a positive count and period", l.Requests, l.Period)
		}
	}
	if r.MaxClients <= 0 {
		r.MaxClients = defaultMaxClients
	}
	if r.Now == nil {
		r.Now = time.Now
	}
	return nil
}

// Limiter counts requests per client in fixed windows that open with a
// client's first request: N requests from then until a period later.
// Every window of one Limiter lasts as long, so the order windows opened
// in is the order they end in, and the oldest are dropped from the front
// of one list. It is safe for concurrent use.
type Limiter struct {
	limit RateLimit
	max   int
	now   func() time.Time

	mu      sync.Mutex // guards windows and order
	windows map[string]*clist.Element
	order   clist.List // of *window, by start
}

type window struct {
	key   string
	start time.Time
	used  int
}

// NewLimiter returns a limiter for l, or nil when l limits nothing.
func NewLimiter(l RateLimit, opts *RateLimits) *Limiter {
	if l.Off() {
		return nil
	}
	return &Limiter{limit: l, max: opts.MaxClients, now: opts.Now, windows: map[string]*clist.Element{}}
}

// Take counts a request of the client key unless its window is used up,
// and returns whether it may go on, the requests left in its window and
// the time until the window ends.
func (l *Limiter) Take(key string) (ok bool, left int, reset time.Duration) {
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	for e := l.order.Front(); e != nil && l.ended(e.Value.(*window), now); e = l.order.Front() {
		l.drop(e)
	}
	e := l.windows[key]
	if e != nil && l.ended(e.Value.(*window), now) {
		// Behind a window that has not ended, after a clock step back.
		l.drop(e)
		e = nil
	}
	if e == nil {
		if l.order.Len() >= l.max {
			l.drop(l.order.Front())
		}
		e = l.order.PushBack(&window{key: key, start: now})
		l.windows[key] = e
	}
	w := e.Value.(*window)
	reset = w.start.Add(l.limit.Period).Sub(now)
	if w.used >= l.limit.Requests {
		return false, 0, reset
	}
	w.used++
	return true, l.limit.Requests - w.used, reset
}

// Forget drops the window of the client key, which starts afresh.
func (l *Limiter) Forget(key string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if e := l.windows[key]; e != nil {
		l.drop(e)
	}
}

func (l *Limiter) ended(w *window, now time.Time) bool {
	return !now.Before(w.start.Add(l.limit.Period))
}

func (l *Limiter) drop(e *clist.Element) {
	delete(l.windows, e.Value.(*window).key)
	l.order.Remove(e)
}

// throttle applies the rate limits to a request a client could loop
// on: the API, the pages and their forms, the Git export (rateLimited).
// It sets X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Reset
// (seconds until the window ends, as the reference counts them) and
// answers 429 with Retry-After once the window is used up: the JSON
// envelope under /api/ and /git/, the pages' error page elsewhere. It
// reports whether the request may go on.
func (s *Server) throttle(c *gin.Context) bool {
	path := c.Request.URL.Path
	if !rateLimited(path) {
		return true
	}
	page := !under(path, "/api") && !under(path, "/git")
	var l *Limiter
	var key string
	if p := Principal(c); !p.Anonymous() {
		l, key = s.userLimit, "user:"+strconv.FormatInt(p.User.ID, 10)
	} else {
		// Only an anonymous client is known by its address, which takes
		// walking the forwarded headers and parsing.
		l = s.anonLimit
		if page {
			l = s.anonPageLimit
		}
		if l != nil {
			key = ClientKey(c.ClientIP())
		}
	}
	if l == nil {
		return true
	}
	ok, left, reset := l.Take(key)
	wait := int(math.Ceil(reset.Seconds()))
	h := c.Writer.Header()
	h.Set("X-RateLimit-Limit", strconv.Itoa(l.limit.Requests))
	h.Set("X-RateLimit-Remaining", strconv.Itoa(left))
	h.Set("X-RateLimit-Reset", strconv.Itoa(wait))
	if ok {
		return true
	}
	h.Set("Retry-After", strconv.Itoa(wait))
	unit := "seconds"
	if wait == 1 {
		unit = "second"
	}
	err := &RequestError{Status: http.StatusTooManyRequests, Code: "throttled",
		Detail: fmt.Sprintf("Request was throttled. Expected available in %d %s.", wait, unit)}
	if s.router.pageFail == nil || !page {
		s.Fail(c, err)
		return false
	}
	s.router.pageFail(c, err)
	c.Abort()
	return false
}

// rateLimited reports whether requests for path count against the rate
// limits: all but the stylesheet and script under /static/, which every
// page view fetches (a view costs one request, not three) and which are
// the same few kilobytes for everyone, and the Git hosts' /hooks/, which
// arrive from a few shared addresses of the hosts for all their users,
// are signed, and only queue a pull. The probes, /healthz and /readyz,
// are answered before the middleware (health.go).
func rateLimited(path string) bool {
	return !under(path, "/static") && !under(path, "/hooks")
}

// under reports whether path is dir or below it.
func under(path, dir string) bool {
	return path == dir || strings.HasPrefix(path, dir+"/")
}

// ClientKey is the key of an anonymous client: its address, or for IPv6
// its /64, since one host commonly holds a whole /64 and could otherwise
// take a fresh limit with every request.
func ClientKey(ip string) string {
	addr, err := netip.ParseAddr(ip)
	if err != nil {
		return "ip:" + ip
	}
	addr = addr.Unmap()
	if addr.Is6() {
		prefix, _ := addr.Prefix(64)
		return "ip:" + prefix.String()
	}
	return "ip:" + addr.String()
}
