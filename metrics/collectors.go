package metrics

import (
	"context"
	"runtime"
	runtimemetrics "runtime/metrics"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/tolk-project/tolk/index"
)

// Source is what the gauges read at each scrape count (*sqlstore.DB in
// cmd/tolk). Its methods must be safe for concurrent use.
type Source interface {
	// CountPendingUnits counts the units edited or added and not yet
	// committed to their repository.
	CountPendingUnits(ctx context.Context) (int, error)
	// CountDeliveries counts the webhook deliveries in the outbox by
	// state; a state absent from the map has none.
	CountDeliveries(ctx context.Context) (map[index.DeliveryState]int, error)
	// PageCacheSize reports the pages the list-page cache holds and
	// their bytes.
	PageCacheSize() (pages, bytes int)
	// Solo reports whether the process is alone on its PostgreSQL
	// database, its reads skipping the write_log checks; SoloChanges
	// counts the times it became so or stopped being so.
	Solo() bool
	SoloChanges() uint64
	// WriterStats reports what the index's writers have done since it
	// opened: batches, the writes in them, round trips, busy time.
	WriterStats() index.WriterStats
}

// scrapeTimeout bounds the queries of one scrape. A collector gets no
// context from client_golang, so the scrape's own cannot cancel them;
// this is Prometheus' default scrape_timeout, after which no scraper is
// left to read the answer.
const scrapeTimeout = 10 * time.Second

var (
	pendingUnitsDesc = prometheus.NewDesc("tolk_pending_units",
		"Units edited or added and not yet committed to their repository.", nil, nil)
	deliveriesDesc = prometheus.NewDesc("tolk_webhook_deliveries",
		"Webhook deliveries in the outbox, by state (pending, delivered, failed).", []string{"state"}, nil)
	pageCachePagesDesc = prometheus.NewDesc("tolk_page_cache_pages",
		"List pages (units, changes) held by the page cache.", nil, nil)
	pageCacheBytesDesc = prometheus.NewDesc("tolk_page_cache_bytes",
		"Bytes of the list pages held by the page cache, the unit it is bounded in.", nil, nil)
	soloDesc = prometheus.NewDesc("tolk_db_solo",
		"1 while this process is alone on its PostgreSQL database (reads answer from the caches without "+
			"checking write_log), else 0; always 0 on SQLite.", nil, nil)
	soloChangesDesc = prometheus.NewDesc("tolk_db_solo_changes_total",
		"Times this process became alone on its PostgreSQL database or stopped being so.", nil, nil)
	// The writers' batches (group commit): writes against batches is the
	// batch size that shares a batch's fixed cost, round trips against
	// writes what each write costs on the wire, busy time against wall
	// time how near the writers are to their bound.
	writeBatchesDesc = prometheus.NewDesc("tolk_db_write_batches_total",
		"Write batches the index's writers committed or rolled back, each one transaction "+
			"(a batch run again apart counts once).", nil, nil)
	writesDesc = prometheus.NewDesc("tolk_db_writes_total",
		"Writes the index's write batches held (edits, and every other write).", nil, nil)
	writeBatchesApartDesc = prometheus.NewDesc("tolk_db_write_batches_apart_total",
		"Write batches run again with each write's statements sent apart, after a pipelined statement failed "+
			"(PostgreSQL).", nil, nil)
	writerRoundTripsDesc = prometheus.NewDesc("tolk_db_writer_round_trips_total",
		"Round trips of the index's writers to their PostgreSQL server (a statement or a pipeline of them); "+
			"always 0 on SQLite.", nil, nil)
	writerBusyDesc = prometheus.NewDesc("tolk_db_writer_busy_seconds_total",
		"Seconds during which at least one of the index's writers ran a batch.", nil, nil)
)

// sourceCollector reads Source's gauges at each scrape. A count whose
// query fails is left out of that scrape, as if it had no series, rather
// than failing the whole scrape or reporting a false zero.
type sourceCollector struct{ src Source }

func (c sourceCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- pendingUnitsDesc
	ch <- deliveriesDesc
	ch <- pageCachePagesDesc
	ch <- pageCacheBytesDesc
	ch <- soloDesc
	ch <- soloChangesDesc
	ch <- writeBatchesDesc
	ch <- writesDesc
	ch <- writeBatchesApartDesc
	ch <- writerRoundTripsDesc
	ch <- writerBusyDesc
}

func (c sourceCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), scrapeTimeout)
	defer cancel()
	if n, err := c.src.CountPendingUnits(ctx); err == nil {
		ch <- prometheus.MustNewConstMetric(pendingUnitsDesc, prometheus.GaugeValue, float64(n))
	}
	if counts, err := c.src.CountDeliveries(ctx); err == nil {
		for _, s := range []index.DeliveryState{index.DeliveryPending, index.DeliveryDelivered, index.DeliveryFailed} {
			ch <- prometheus.MustNewConstMetric(deliveriesDesc, prometheus.GaugeValue, float64(counts[s]), s.String())
		}
	}
	pages, bytes := c.src.PageCacheSize()
	ch <- prometheus.MustNewConstMetric(pageCachePagesDesc, prometheus.GaugeValue, float64(pages))
	ch <- prometheus.MustNewConstMetric(pageCacheBytesDesc, prometheus.GaugeValue, float64(bytes))
	solo := 0.0
	if c.src.Solo() {
		solo = 1
	}
	ch <- prometheus.MustNewConstMetric(soloDesc, prometheus.GaugeValue, solo)
	ch <- prometheus.MustNewConstMetric(soloChangesDesc, prometheus.CounterValue, float64(c.src.SoloChanges()))
	w := c.src.WriterStats()
	ch <- prometheus.MustNewConstMetric(writeBatchesDesc, prometheus.CounterValue, float64(w.Batches))
	ch <- prometheus.MustNewConstMetric(writesDesc, prometheus.CounterValue, float64(w.Writes))
	ch <- prometheus.MustNewConstMetric(writeBatchesApartDesc, prometheus.CounterValue, float64(w.Apart))
	ch <- prometheus.MustNewConstMetric(writerRoundTripsDesc, prometheus.CounterValue, float64(w.RoundTrips))
	ch <- prometheus.MustNewConstMetric(writerBusyDesc, prometheus.CounterValue, w.Busy.Seconds())
}

// runtimeExtras are the two runtime series Tolk served before it used
// client_golang, which its Go collector does not write under these
// names (it has go_sched_gomaxprocs_threads, and GC cycles only as
// go_gc_cycles_total_gc_cycles_total when asked): dashboards read them.
func runtimeExtras() []prometheus.Collector {
	return []prometheus.Collector{
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "go_gc_cycles_total",
			Help: "Completed garbage collection cycles."}, func() float64 {
			s := []runtimemetrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
			runtimemetrics.Read(s)
			if s[0].Value.Kind() != runtimemetrics.KindUint64 {
				return 0 // not in this runtime; it has been since Go 1.17
			}
			return float64(s[0].Value.Uint64())
		}),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "go_gomaxprocs",
			Help: "GOMAXPROCS: the CPUs Go code may run on at once."},
			func() float64 { return float64(runtime.GOMAXPROCS(0)) }),
	}
}
