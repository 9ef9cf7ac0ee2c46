package metrics

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// ContentType is the media type of the text exposition format.
const ContentType = "text/plain; version=0.0.4; charset=utf-8"

// Registry holds metric families and writes them in the order they were
// added. It is safe for concurrent use.
type Registry struct {
	mu       sync.Mutex // guards families
	families []family
	names    map[string]bool
}

// family is one metric family: its # HELP and # TYPE lines and samples.
type family interface {
	write(ctx context.Context, w *bufio.Writer)
}

var (
	nameRe  = regexp.MustCompile(`^[a-zA-Z_:][a-zA-Z0-9_:]*$`)
	labelRe = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`)
)

// add registers f under name; it panics on an invalid or repeated name,
// a programming error.
func (r *Registry) add(name string, labels []string, f family) {
	if !nameRe.MatchString(name) {
		panic(fmt.Sprintf("metrics: invalid metric name %q", name))
	}
	for _, l := range labels {
		if !labelRe.MatchString(l) || strings.HasPrefix(l, "__") || l == "le" {
			panic(fmt.Sprintf("metrics: invalid label name %q for %s", l, name))
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.names[name] {
		panic(fmt.Sprintf("metrics: %s registered twice", name))
	}
	if r.names == nil {
		r.names = map[string]bool{}
	}
	r.names[name] = true
	r.families = append(r.families, f)
}

// Write writes every family in the text format. Gauge functions run
// with ctx.
func (r *Registry) Write(ctx context.Context, w io.Writer) error {
	r.mu.Lock()
	families := slices.Clone(r.families)
	r.mu.Unlock()
	bw := bufio.NewWriter(w)
	for _, f := range families {
		f.write(ctx, bw)
	}
	return bw.Flush()
}

// Handler serves the registry in the text format, for GET and HEAD.
func (r *Registry) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Method != http.MethodGet && req.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("Content-Type", ContentType)
		r.Write(req.Context(), w)
	})
}

// vec keeps one value (or histogram) per combination of label values.
type vec[T any] struct {
	name, help, typ string
	labels          []string
	mu              sync.Mutex // guards series
	series          map[string]*labeled[T]
}

type labeled[T any] struct {
	values []string
	v      T
}

// with returns the series of the label values, creating it with init;
// the caller holds v.mu.
func (v *vec[T]) with(values []string, init func() T) *labeled[T] {
	if len(values) != len(v.labels) {
		panic(fmt.Sprintf("metrics: %s takes %d label values, got %d", v.name, len(v.labels), len(values)))
	}
	key := strings.Join(values, "\xff")
	s, ok := v.series[key]
	if !ok {
		if v.series == nil {
			v.series = map[string]*labeled[T]{}
		}
		s = &labeled[T]{values: slices.Clone(values), v: init()}
		v.series[key] = s
	}
	return s
}

// each calls fn for every series in the order of their label values;
// the caller holds v.mu.
func (v *vec[T]) each(fn func(labels string, x T)) {
	keys := make([]string, 0, len(v.series))
	for k := range v.series {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		s := v.series[k]
		fn(labelPairs(v.labels, s.values), s.v)
	}
}

func (v *vec[T]) header(w *bufio.Writer) {
	fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s %s\n", v.name, escapeHelp(v.help), v.name, v.typ)
}

// Counter is a family of counters, one per combination of label values.
type Counter struct{ v vec[float64] }

// Counter registers a counter family. Its name should end in _total.
func (r *Registry) Counter(name, help string, labels ...string) *Counter {
	c := &Counter{vec[float64]{name: name, help: help, typ: "counter", labels: labels}}
	r.add(name, labels, c)
	return c
}

// Add adds d (not negative) to the counter of the label values, given
// in the order the labels were registered.
func (c *Counter) Add(d float64, values ...string) {
	c.v.mu.Lock()
	defer c.v.mu.Unlock()
	c.v.with(values, func() float64 { return 0 }).v += d
}

// Inc adds one.
func (c *Counter) Inc(values ...string) { c.Add(1, values...) }

func (c *Counter) write(_ context.Context, w *bufio.Writer) {
	c.v.mu.Lock()
	defer c.v.mu.Unlock()
	c.v.header(w)
	c.v.each(func(labels string, x float64) {
		fmt.Fprintf(w, "%s%s %s\n", c.v.name, braces(labels), formatFloat(x))
	})
}

// Histogram is a family of histograms with the same buckets.
type Histogram struct {
	v       vec[*histogram]
	buckets []float64
}

type histogram struct {
	counts []uint64 // per bucket, not cumulative; the last is +Inf
	sum    float64
	count  uint64
}

// DefaultBuckets suit durations in seconds from a few milliseconds to
// ten seconds, as client_golang's defaults do.
var DefaultBuckets = []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}

// Histogram registers a histogram family with the given upper bounds,
// in increasing order (+Inf is implied).
func (r *Registry) Histogram(name, help string, buckets []float64, labels ...string) *Histogram {
	if !slices.IsSorted(buckets) || len(buckets) == 0 {
		panic(fmt.Sprintf("metrics: %s: buckets must be given in increasing order", name))
	}
	h := &Histogram{vec[*histogram]{name: name, help: help, typ: "histogram", labels: labels}, slices.Clone(buckets)}
	r.add(name, labels, h)
	return h
}

// Observe records x in the histogram of the label values.
func (h *Histogram) Observe(x float64, values ...string) {
	h.v.mu.Lock()
	defer h.v.mu.Unlock()
	s := h.v.with(values, func() *histogram { return &histogram{counts: make([]uint64, len(h.buckets)+1)} }).v
	i, _ := slices.BinarySearch(h.buckets, x) // the first bound >= x
	s.counts[i]++
	s.sum += x
	s.count++
}

func (h *Histogram) write(_ context.Context, w *bufio.Writer) {
	h.v.mu.Lock()
	defer h.v.mu.Unlock()
	h.v.header(w)
	h.v.each(func(labels string, s *histogram) {
		sep := ""
		if labels != "" {
			sep = ","
		}
		var cum uint64
		for i, n := range s.counts {
			cum += n
			le := "+Inf"
			if i < len(h.buckets) {
				le = formatFloat(h.buckets[i])
			}
			fmt.Fprintf(w, "%s_bucket{%s%sle=\"%s\"} %d\n", h.v.name, labels, sep, le, cum)
		}
		fmt.Fprintf(w, "%s_sum%s %s\n%s_count%s %d\n", h.v.name, braces(labels), formatFloat(s.sum),
			h.v.name, braces(labels), s.count)
	})
}

// Sample is one value of a gauge family read when the registry is
// written: its label values, in the order of the family's labels.
type Sample struct {
	Values []string
	Value  float64
}

// gaugeFunc is a gauge family whose samples are read at each write.
type gaugeFunc struct {
	name, help, typ string
	labels          []string
	read            func(ctx context.Context) ([]Sample, error)
}

// GaugeFunc registers a gauge read at each write by read; a read that
// fails leaves the family without samples.
func (r *Registry) GaugeFunc(name, help string, read func(ctx context.Context) (float64, error)) {
	r.add(name, nil, &gaugeFunc{name: name, help: help, typ: "gauge", read: func(ctx context.Context) ([]Sample, error) {
		v, err := read(ctx)
		return []Sample{{Value: v}}, err
	}})
}

// GaugeVecFunc registers a gauge family with labels, its samples read at
// each write.
func (r *Registry) GaugeVecFunc(name, help string, labels []string, read func(ctx context.Context) ([]Sample, error)) {
	r.add(name, labels, &gaugeFunc{name: name, help: help, typ: "gauge", labels: labels, read: read})
}

// CounterFunc registers a counter read at each write, for counts kept
// elsewhere (the runtime's).
func (r *Registry) CounterFunc(name, help string, read func(ctx context.Context) (float64, error)) {
	r.add(name, nil, &gaugeFunc{name: name, help: help, typ: "counter", read: func(ctx context.Context) ([]Sample, error) {
		v, err := read(ctx)
		return []Sample{{Value: v}}, err
	}})
}

func (g *gaugeFunc) write(ctx context.Context, w *bufio.Writer) {
	fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s %s\n", g.name, escapeHelp(g.help), g.name, g.typ)
	samples, err := g.read(ctx)
	if err != nil {
		return
	}
	for _, s := range samples {
		if len(s.Values) != len(g.labels) {
			continue
		}
		fmt.Fprintf(w, "%s%s %s\n", g.name, braces(labelPairs(g.labels, s.Values)), formatFloat(s.Value))
	}
}

// labelPairs renders name="value" pairs, values escaped.
func labelPairs(names, values []string) string {
	var b strings.Builder
	for i, n := range names {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(n)
		b.WriteString(`="`)
		b.WriteString(labelEscaper.Replace(values[i]))
		b.WriteByte('"')
	}
	return b.String()
}

func braces(labels string) string {
	if labels == "" {
		return ""
	}
	return "{" + labels + "}"
}

var (
	labelEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	helpEscaper  = strings.NewReplacer(`\`, `\\`, "\n", `\n`)
)

func escapeHelp(s string) string { return helpEscaper.Replace(s) }

func formatFloat(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "+Inf"
	case math.IsInf(f, -1):
		return "-Inf"
	case math.IsNaN(f):
		return "NaN"
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}
