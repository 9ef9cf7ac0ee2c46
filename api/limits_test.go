package api_test

import (
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/sqlstore"
	"github.com/tolk-project/tolk/internal/servertest"
)

// seedLong adds project "long" whose component "strings" has n units
// whose source and German target are each size bytes long: a page of
// them is a large response.
func seedLong(tb testing.TB, db *sqlstore.DB, n, size int) {
	tb.Helper()
	p := servertest.MustProject(tb, db, index.Project{Name: "Long", Slug: "long"})
	c := index.DefaultComponent()
	c.ProjectID, c.Name, c.Slug, c.Filemask, c.Template = p.ID, "Strings", "strings", "*.json", "en.json"
	c = servertest.MustComponent(tb, db, c)
	source := make([]index.ImportUnit, n)
	de := make([]index.ImportUnit, n)
	for i := range n {
		key := fmt.Sprintf("key.%04d", i)
		text := fmt.Sprintf("%04d", i) + strings.Repeat("s", size-4)
		source[i] = servertest.Unit(key, text, text, index.StateReadOnly)
		de[i] = servertest.Unit(key, text, fmt.Sprintf("%04d", i)+strings.Repeat("z", size-4), index.StateTranslated)
	}
	src := servertest.MustImport(tb, db, index.TranslationImport{ComponentID: c.ID, LanguageCode: "en",
		Filename: "en.json", Revision: "s", IsSource: true, IsTemplate: true, Monolingual: true, Units: source})
	servertest.MustImport(tb, db, index.TranslationImport{ComponentID: c.ID, LanguageCode: "de", Filename: "de.json",
		Revision: "d", Monolingual: true, SourceTranslationID: src, Units: de})
}

// rawRequest sends a GET for path on a connection of its own and returns
// the connection unread; the caller closes it.
func rawRequest(tb testing.TB, ts *servertest.Running, path string) net.Conn {
	tb.Helper()
	conn, err := net.Dial("tcp", ts.Listener.Addr().String())
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: %s\r\n\r\n", path, ts.Listener.Addr()); err != nil {
		conn.Close()
		tb.Fatal(err)
	}
	return conn
}

// waitLog waits up to d for the server's log to hold want and returns
// the log.
func waitLog(tb testing.TB, ts *servertest.Running, want string, d time.Duration) string {
	tb.Helper()
	return waitLogCount(tb, ts, want, 1, d)
}

// waitLogCount waits up to d for the server's log to hold want n times
// and returns the log.
func waitLogCount(tb testing.TB, ts *servertest.Running, want string, n int, d time.Duration) string {
	tb.Helper()
	for end := time.Now().Add(d); ; time.Sleep(20 * time.Millisecond) {
		logs := ts.Logs.String()
		if strings.Count(logs, want) >= n {
			return logs
		}
		if time.Now().After(end) {
			tb.Fatalf("after %s the log holds %q fewer than %d times:\n%.2000s", d, want, n, logs)
		}
	}
}

// A client that asks for a large page and never reads it must not pin
// the response: the write deadline ends the request once the socket
// buffers are full and nothing moves for WriteTimeout.
func TestWriteTimeoutEndsUnreadResponse(t *testing.T) {
	db := servertest.MustOpenDB(t)
	// 80 units of 2 × 256 KiB: a page of about 40 MB, more than loopback
	// socket buffers hold.
	seedLong(t, db, 80, 256<<10)
	ts := servertest.Serve(t, db, servertest.Options{WriteTimeout: 300 * time.Millisecond})
	conn := rawRequest(t, ts, "/api/translations/long/strings/de/units/?page_size=80")
	defer conn.Close()
	logs := waitLog(t, ts, `"path":"/api/translations/long/strings/de/units/"`, 10*time.Second)
	if !strings.Contains(logs, `"status":499`) {
		t.Errorf("a response the client never read is not logged as 499:\n%.2000s", logs)
	}
}

// A client that leaves before its answer is done is not a server error:
// the request line says 499 at WARN, never 500 at ERROR. Clients that
// close at once catch the handler either in its query (which used to
// fail with a 500) or in its write.
func TestClientGoneIsNotServerError(t *testing.T) {
	db := servertest.MustOpenDB(t)
	seedLong(t, db, 20, 64<<10)
	ts := servertest.Serve(t, db, servertest.Options{})
	const n = 30
	for range n {
		rawRequest(t, ts, "/api/translations/long/strings/de/units/?page_size=20").Close()
	}
	logs := waitLogCount(t, ts, `"msg":"request"`, n, 10*time.Second)
	if strings.Contains(logs, `"level":"ERROR"`) || strings.Contains(logs, `"status":500`) {
		t.Errorf("clients that left are logged as server errors:\n%.3000s", logs)
	}
	if !strings.Contains(logs, `"level":"WARN","msg":"request"`) || !strings.Contains(logs, `"status":499`) {
		t.Errorf("no request of a client that left is logged as 499 at WARN:\n%.3000s", logs)
	}
}

// Anonymous requests varying page_size over long strings used to fill
// the page cache by the row: 40 units of 2 × 64 KiB, every page size
// from 1 to 40, hold 105 MB of pages. Bounded in bytes, the cache stays
// under its bound and still answers.
func TestPageCacheBoundedInBytes(t *testing.T) {
	const bound = 4 << 20
	db := servertest.MustOpenDBWith(t, sqlstore.Options{PageCacheBytes: bound})
	seedLong(t, db, 40, 64<<10)
	ts := servertest.Serve(t, db, servertest.Options{})
	most := 0
	for size := 1; size <= 40; size++ {
		r := servertest.Do(t, "GET", ts.URL+fmt.Sprintf("/api/translations/long/strings/de/units/?page_size=%d", size), nil)
		if r.Status != 200 {
			t.Fatalf("page_size=%d: %d %.300s", size, r.Status, r.Body)
		}
		_, held := db.PageCacheSize()
		if held > bound {
			t.Fatalf("after page_size=%d the page cache holds %d bytes, over its bound of %d", size, held, bound)
		}
		most = max(most, held)
	}
	if most < bound/4 {
		t.Errorf("the page cache held at most %d bytes: pages of long strings are not cached at all", most)
	}
}

// TestResponseSizeCap: a page of long strings over the cap on one answer
// is a 400 on page_size saying how large it would be; a smaller page is
// served.
func TestResponseSizeCap(t *testing.T) {
	db := servertest.MustOpenDB(t)
	seedLong(t, db, 20, 64<<10)
	ts := servertest.Serve(t, db, servertest.Options{MaxResponseBytes: 1 << 20})
	r := servertest.Do(t, "GET", ts.URL+"/api/translations/long/strings/de/units/?page_size=20", nil)
	if r.Status != 400 {
		t.Fatalf("20 rows of 128 KiB over a 1 MiB cap: %d %.200s", r.Status, r.Body)
	}
	obj := servertest.Decode(t, r.Body)
	errs, _ := obj["errors"].([]any)
	if obj["type"] != "validation_error" || len(errs) != 1 {
		t.Fatalf("body = %s", r.Body)
	}
	e := errs[0].(map[string]any)
	if e["attr"] != "page_size" || !strings.HasPrefix(e["detail"].(string), "This page would be 2.") {
		t.Errorf("error = %v", e)
	}
	if r := servertest.Do(t, "GET", ts.URL+"/api/translations/long/strings/de/units/?page_size=4", nil); r.Status != 200 {
		t.Errorf("4 rows under the cap: %d", r.Status)
	}
}
