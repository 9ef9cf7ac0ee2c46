package api

import (
	"math"
	"net/http"
	"net/url"
	"strconv"

	"github.com/gin-gonic/gin"
	"github.com/tolk-project/tolk/edge"
	"github.com/tolk-project/tolk/index"
)

// pager is a list's page size rule: the size when the request names
// none, and the most it may ask for.
type pager struct{ size, max int }

// The reference's two paginators (weblate/api/pagination.py):
// standardPages for most lists (the spec's 276-item list ending in a
// 26-item page shows the 50), largePages, twice the size, for the lists
// the reference expects to be walked in bulk: all units and a component's
// statistics.
var (
	standardPages = pager{size: 50, max: 1000}
	largePages    = pager{size: 100, max: 10000}
)

// errInvalidPage is the reference's answer to a page that is past the
// end, zero, negative or not a number.
var errInvalidPage = index.Errorf(index.ErrNotFound, "Invalid page.")

// list is the paginated envelope of every list endpoint.
type list[T any] struct {
	Count    int     `json:"count"`
	Next     *string `json:"next"`
	Previous *string `json:"previous"`
	Results  []T     `json:"results"`
}

// page is the page a request asked for, checked against the list.
type page struct {
	number, size, total int
}

// pageRequest reads page and page_size. page is 1-based or "last"; a
// page_size that is not a positive number falls back to the default and
// a larger one is capped, as the reference's framework does.
func pageRequest(q url.Values, pg pager) (number, size int, last bool, err error) {
	size = pg.size
	if v := q.Get("page_size"); v != "" {
		if n, err := strconv.Atoi(v); err == nil && n > 0 {
			size = min(n, pg.max)
		}
	}
	v := q.Get("page")
	switch v {
	case "":
		return 1, size, false, nil
	case "last":
		return 0, size, true, nil
	}
	n, err := strconv.Atoi(v)
	// The bound keeps the store's offset from overflowing; no list is
	// that long.
	if err != nil || n < 1 || n > math.MaxInt32 {
		return 0, 0, false, errInvalidPage
	}
	return n, size, false, nil
}

// fetchPage calls fetch for the page the request asks for, sized by the
// standard paginator, and rejects a page past the end. The first page of
// an empty list exists.
func fetchPage[T any](c *gin.Context, fetch func(index.Page) ([]T, int, error)) ([]T, page, error) {
	return fetchPageOf(c, standardPages, fetch)
}

// fetchPageOf is fetchPage with the given paginator.
func fetchPageOf[T any](c *gin.Context, pg pager, fetch func(index.Page) ([]T, int, error)) ([]T, page, error) {
	number, size, last, err := pageRequest(c.Request.URL.Query(), pg)
	if err != nil {
		return nil, page{}, err
	}
	if last {
		_, total, err := fetch(index.Page{Number: 1, Size: size})
		if err != nil {
			return nil, page{}, err
		}
		number = pageCount(total, size)
	}
	items, total, err := fetch(index.Page{Number: number, Size: size})
	if err != nil {
		return nil, page{}, err
	}
	if number > pageCount(total, size) {
		return nil, page{}, errInvalidPage
	}
	return items, page{number: number, size: size, total: total}, nil
}

// writePage answers a list request: the page of fetch the request asks
// for, each item turned into its body by toJSON, in the list envelope.
func writePage[T, J any](s *Server, c *gin.Context, fetch func(index.Page) ([]T, int, error), toJSON func(edge.URLs, *T) J) {
	items, pg, err := fetchPage(c, fetch)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	u := s.edge.URLsFor(c)
	out := make([]J, len(items))
	for i := range items {
		out[i] = toJSON(u, &items[i])
	}
	s.edge.WriteJSON(c, http.StatusOK, newList(c, u, pg, out))
}

// pageOf returns the items of all on page p: the fetch of a list held
// in memory (roles, add-ons, tasks).
func pageOf[T any](all []T, p index.Page) []T {
	start := min(max(p.Offset(), 0), len(all))
	return all[start:min(start+p.Size, len(all))]
}

// pageCount is the number of pages, at least one.
func pageCount(total, size int) int {
	return max(1, (total+size-1)/size)
}

// newList wraps one page of results in the envelope. next and previous
// keep every query parameter but page; the link to page 1 has no page.
func newList[T any](c *gin.Context, u edge.URLs, p page, results []T) list[T] {
	if results == nil {
		results = []T{}
	}
	l := list[T]{Count: p.total, Results: results}
	if p.number < pageCount(p.total, p.size) {
		l.Next = ptr(pageLink(c, u, p.number+1))
	}
	if p.number > 1 {
		l.Previous = ptr(pageLink(c, u, p.number-1))
	}
	return l
}

func pageLink(c *gin.Context, u edge.URLs, number int) string {
	q := c.Request.URL.Query()
	q.Del("page")
	if u.FormatAPI {
		q.Del("format") // abs appends it last
	}
	if number > 1 {
		q.Set("page", strconv.Itoa(number))
	}
	return u.Abs(c.Request.URL.EscapedPath(), q.Encode())
}
