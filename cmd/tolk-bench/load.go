package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/tolk-project/tolk/api"
	"github.com/tolk-project/tolk/index/sqlstore"
)

// endpoint is one read the load section measures.
type endpoint struct {
	Name string
	Path string
	// Sweep, a component's API path, makes the endpoint every units page
	// of every translation of that component in turn instead of Path, so
	// that no page is read twice within thousands of requests: what an
	// index cache of recent pages cannot help with.
	Sweep string
}

// endpoints are the reads the issue names, on one translation of the
// biggest component (jellyfin, de: 1,946 units). The late page is filled
// in by resolveEndpoints from the list's count.
func endpoints(project, component, lang string) []endpoint {
	tr := "/api/translations/" + project + "/" + component + "/" + lang + "/"
	return []endpoint{
		{Name: "translation detail", Path: tr},
		{Name: "units page 1", Path: tr + "units/"},
		{Name: "units late page", Path: tr + "units/?page=last"},
		{Name: "units, every page in turn", Path: "/api/translations/" + project + "/" + component + "/*/units/?page=*",
			Sweep: "/api/components/" + project + "/" + component + "/"},
		{Name: "translation statistics", Path: tr + "statistics/"},
		{Name: "language statistics", Path: "/api/languages/" + lang + "/statistics/"},
		{Name: "project statistics", Path: "/api/projects/" + project + "/statistics/"},
		{Name: "translation changes", Path: tr + "changes/"},
		{Name: "changes list", Path: "/api/changes/"},
	}
}

// server is an http.Server on a loopback port of its own.
type server struct {
	srv  *http.Server
	ln   net.Listener
	done chan error
}

func serve(h http.Handler) (*server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listen: %w", err)
	}
	s := &server{srv: &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}, ln: ln, done: make(chan error, 1)}
	go func() { s.done <- s.srv.Serve(ln) }()
	return s, nil
}

func (s *server) base() string { return "http://" + s.ln.Addr().String() }

func (s *server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := s.srv.Shutdown(ctx)
	if serr := <-s.done; !errors.Is(serr, http.ErrServerClosed) {
		err = errors.Join(err, serr)
	}
	return err
}

// newClient returns a client that keeps a connection per worker alive,
// so the load measures requests, not TCP handshakes.
func newClient() *http.Client {
	return &http.Client{
		Timeout: 30 * time.Second,
		Transport: &http.Transport{
			Proxy:               nil, // loopback only, whatever the environment says
			MaxIdleConns:        512,
			MaxIdleConnsPerHost: 512,
			IdleConnTimeout:     time.Minute,
			DisableCompression:  true,
		},
	}
}

// get fetches one URL and returns its status and body.
func get(ctx context.Context, c *http.Client, url string) (int, []byte, error) {
	return sendAuth(ctx, c, http.MethodGet, url, "", "", nil)
}

// target is an endpoint as served: its URL, its body (for the ceiling)
// and whether it exists yet.
type target struct {
	endpoint
	Paths  []string // what is requested, in turn: Path, or a sweep's pages
	Status int
	Body   []byte // of the first path
	Err    string
}

// sweepPaths lists the units pages of every translation of the component
// at compPath, translation by translation.
func sweepPaths(ctx context.Context, c *http.Client, base, compPath string) ([]string, error) {
	status, body, err := get(ctx, c, base+compPath+"translations/?page_size=1000")
	if err != nil {
		return nil, err
	}
	if status != http.StatusOK {
		return nil, fmt.Errorf("translations of %s: status %d", compPath, status)
	}
	var list struct {
		Results []struct {
			URL   string `json:"url"`
			Total int    `json:"total"`
		}
	}
	if err := json.Unmarshal(body, &list); err != nil {
		return nil, fmt.Errorf("translations of %s: %w", compPath, err)
	}
	var paths []string
	for _, t := range list.Results {
		tr := strings.TrimPrefix(t.URL, base)
		for page := 1; page <= max(1, (t.Total+49)/50); page++ {
			paths = append(paths, tr+"units/?page="+strconv.Itoa(page))
		}
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("translations of %s: none", compPath)
	}
	return paths, nil
}

// resolveEndpoints fetches each endpoint once: a 404 marks it "n/a" (not
// merged yet), any other non-200 is an error of the run. The late page
// becomes the last page by number, read from the first page's count.
func resolveEndpoints(ctx context.Context, c *http.Client, base string, eps []endpoint) []target {
	out := make([]target, 0, len(eps))
	count := -1
	for _, ep := range eps {
		if ep.Name == "units late page" && count > 0 {
			ep.Path = strings.TrimSuffix(ep.Path, "?page=last") + "?page=" + strconv.Itoa((count+49)/50)
		}
		t := target{endpoint: ep, Paths: []string{ep.Path}}
		if ep.Sweep != "" {
			paths, err := sweepPaths(ctx, c, base, ep.Sweep)
			if err != nil {
				t.Err = err.Error()
				out = append(out, t)
				continue
			}
			t.Paths = paths
		}
		status, body, err := get(ctx, c, base+t.Paths[0])
		t.Status, t.Body = status, body
		switch {
		case err != nil:
			t.Err = err.Error()
		case status != http.StatusOK && status != http.StatusNotFound:
			t.Err = fmt.Sprintf("status %d: %.200s", status, body)
		}
		if ep.Name == "units page 1" && status == http.StatusOK {
			var page struct{ Count int }
			if err := json.Unmarshal(body, &page); err == nil {
				count = page.Count
			}
		}
		out = append(out, t)
	}
	return out
}

// loadStats is one measured point.
type loadStats struct {
	Requests int
	Errors   int // transport errors and unexpected statuses
	Seconds  float64
	RPS      float64
	P50, P99 time.Duration
}

// sample is the raw outcome of sending requests for a while.
type sample struct {
	lats    []time.Duration
	errors  int
	elapsed time.Duration
}

func (a *sample) add(b sample) {
	a.lats = append(a.lats, b.lats...)
	a.errors += b.errors
	a.elapsed += b.elapsed
}

func (a sample) stats() loadStats {
	st := loadStats{Requests: len(a.lats), Errors: a.errors, Seconds: a.elapsed.Seconds()}
	if a.elapsed > 0 {
		st.RPS = float64(len(a.lats)) / a.elapsed.Seconds()
	}
	lats := slices.Clone(a.lats)
	slices.Sort(lats)
	st.P50, st.P99 = quantile(lats, 0.50), quantile(lats, 0.99)
	return st
}

// op is one request of a load point; n counts the requests of one send
// from 0. ok reports the expected answer (a 200); an error means no
// answer at all (a transport error), which has no latency. Both are
// errors of the point.
type op func(ctx context.Context, n int64) (ok bool, err error)

// getEach is an op that GETs urls in turn.
func getEach(c *http.Client, urls []string) op {
	return func(ctx context.Context, n int64) (bool, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, urls[n%int64(len(urls))], nil)
		if err != nil {
			return false, err
		}
		return roundTrip(c, req)
	}
}

// roundTrip sends req and reads its body to the end; ok is a 200 read
// whole.
func roundTrip(c *http.Client, req *http.Request) (bool, error) {
	resp, err := c.Do(req)
	if err != nil {
		return false, err
	}
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return err == nil && resp.StatusCode == http.StatusOK, nil
}

// send runs do from conc workers until dur has passed or max requests
// have been sent. Latency is per request, from send to last body byte.
func send(ctx context.Context, do op, conc int, dur time.Duration, max int) sample {
	var sent, errs atomic.Int64
	lats := make([][]time.Duration, conc)
	deadline := time.Now().Add(dur)
	start := time.Now()
	var wg sync.WaitGroup
	for w := range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil && time.Now().Before(deadline) {
				n := sent.Add(1)
				if n > int64(max) {
					break
				}
				t0 := time.Now()
				ok, err := do(ctx, n-1)
				if err != nil {
					errs.Add(1)
					continue
				}
				lats[w] = append(lats[w], time.Since(t0))
				if !ok {
					errs.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	return sample{lats: slices.Concat(lats...), errors: int(errs.Load()), elapsed: time.Since(start)}
}

// measure runs do for dur at conc after a short warm-up that opens the
// connections.
func measure(ctx context.Context, do op, conc int, dur time.Duration, max int) loadStats {
	send(ctx, do, conc, dur/10, conc*4)
	return send(ctx, do, conc, dur, max).stats()
}

// pairRounds is how many rounds measurePair alternates its two ops in.
const pairRounds = 4

// measurePair runs an op and its ceiling in alternating rounds, so that
// other work on a shared machine falls on both alike.
func measurePair(ctx context.Context, real, ceil op, conc int, dur time.Duration, max int) (realStats, ceilStats loadStats) {
	send(ctx, real, conc, dur/10, conc*4)
	send(ctx, ceil, conc, dur/10, conc*4)
	var r, cl sample
	for range pairRounds {
		r.add(send(ctx, real, conc, dur/pairRounds, (max+pairRounds-1)/pairRounds))
		cl.add(send(ctx, ceil, conc, dur/pairRounds, (max+pairRounds-1)/pairRounds))
	}
	return r.stats(), cl.stats()
}

// quantile of sorted values, nearest rank.
func quantile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(q*float64(len(sorted))+0.5) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

// loadPoint is an endpoint at one concurrency, beside its ceiling.
type loadPoint struct {
	Endpoint    string
	Path        string
	Paths       []string // what was requested, in turn
	Concurrency int
	NA          bool // the endpoint answered 404: not served by this build
	Err         string
	Bytes       int
	Real, Ceil  loadStats
}

// PctOfCeiling is the endpoint's throughput as a share of its ceiling's.
func (p loadPoint) PctOfCeiling() float64 {
	if p.Ceil.RPS == 0 {
		return 0
	}
	return 100 * p.Real.RPS / p.Ceil.RPS
}

// loadOptions bound the load section.
type loadOptions struct {
	Concurrency []int
	Duration    time.Duration
	MaxRequests int
	Ceiling     bool // also measure the pre-built-bytes ceiling
}

// ceilingHandler is gin in the same process with nothing behind it: one
// route per endpoint answering a pre-built copy of that endpoint's body
// with the same content type, so it costs what gin and net/http cost to
// move that many bytes and no more.
func ceilingHandler(targets []target) http.Handler {
	gin.SetMode(gin.ReleaseMode)
	e := gin.New()
	for i, t := range targets {
		body := slices.Clone(t.Body)
		e.GET("/ceiling/"+strconv.Itoa(i)+"/", func(c *gin.Context) {
			c.Data(http.StatusOK, "application/json", body)
		})
	}
	return e
}

// loadRig is the real API serving an index on loopback, the endpoints
// resolved against it, and optionally the ceiling serving their bodies.
type loadRig struct {
	api, ceil *server // ceil is nil without a ceiling
	client    *http.Client
	targets   []target
}

func newLoadRig(ctx context.Context, db *sqlstore.DB, eps []endpoint, ceiling bool) (*loadRig, error) {
	apiSrv, err := serve(serverHandler(db, api.Options{}))
	if err != nil {
		return nil, err
	}
	r := &loadRig{api: apiSrv, client: newClient()}
	r.targets = resolveEndpoints(ctx, r.client, apiSrv.base(), eps)
	if ceiling {
		if r.ceil, err = serve(ceilingHandler(r.targets)); err != nil {
			r.Close()
			return nil, err
		}
	}
	return r, nil
}

// Close stops both servers.
func (r *loadRig) Close() {
	r.client.CloseIdleConnections()
	r.api.Close()
	if r.ceil != nil {
		r.ceil.Close()
	}
}

// runLoad serves db with the real API and the ceiling on loopback and
// measures every endpoint at every concurrency. Both servers stop before
// it returns.
func runLoad(ctx context.Context, db *sqlstore.DB, eps []endpoint, o loadOptions) ([]loadPoint, error) {
	rig, err := newLoadRig(ctx, db, eps, o.Ceiling)
	if err != nil {
		return nil, err
	}
	defer rig.Close()
	apiSrv, ceil, client, targets := rig.api, rig.ceil, rig.client, rig.targets
	var points []loadPoint
	for i, t := range targets {
		for _, conc := range o.Concurrency {
			p := loadPoint{Endpoint: t.Name, Path: t.Path, Paths: t.Paths, Concurrency: conc, Bytes: len(t.Body),
				Err: t.Err}
			switch {
			case t.Err != "":
			case t.Status == http.StatusNotFound:
				p.NA = true
			default:
				if ceil != nil {
					p.Real, p.Ceil = measurePair(ctx, getEach(client, prefixed(apiSrv.base(), t.Paths)),
						getEach(client, []string{ceil.base() + "/ceiling/" + strconv.Itoa(i) + "/"}), conc, o.Duration, o.MaxRequests)
				} else {
					p.Real = measure(ctx, getEach(client, prefixed(apiSrv.base(), t.Paths)), conc, o.Duration, o.MaxRequests)
				}
				if p.Real.Errors > 0 {
					p.Err = fmt.Sprintf("%d of %d requests failed", p.Real.Errors, p.Real.Requests)
				}
			}
			points = append(points, p)
			if err := ctx.Err(); err != nil {
				return points, err
			}
		}
	}
	return points, nil
}

// prefixed returns base+path for each of paths.
func prefixed(base string, paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = base + p
	}
	return out
}

// profileEndpoint loads one endpoint (paths in turn) for dur at conc
// while prof runs (a CPU profile of the slowest read).
func profileEndpoint(ctx context.Context, db *sqlstore.DB, paths []string, conc int, dur time.Duration, prof func(func() error) error) error {
	apiSrv, err := serve(serverHandler(db, api.Options{}))
	if err != nil {
		return err
	}
	defer apiSrv.Close()
	client := newClient()
	defer client.CloseIdleConnections()
	return prof(func() error {
		st := measure(ctx, getEach(client, prefixed(apiSrv.base(), paths)), conc, dur, 1<<30)
		if st.Errors > 0 {
			return fmt.Errorf("profile %s: %d of %d requests failed", paths[0], st.Errors, st.Requests)
		}
		return nil
	})
}
