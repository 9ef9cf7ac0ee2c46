package api

import (
	"bytes"
	"net/http"
	"sync"

	"github.com/gin-gonic/gin"

	"github.com/tolk-project/tolk/index"
)

// The index answers a list page it read since the last write that
// touched it from its page cache, and says so: the page's generation
// (index.PageReceipt), which it notes in the request's context, is the
// same while the rows are. Rendering those rows is then most of what the
// request costs (a units page is 50 objects of 27 fields with a dozen
// URLs each), and gives the same bytes for the same request URL every
// time: the page's JSON depends on its rows, its total and the URL it was
// asked at (the base and query of its links), nothing else. pageBodies
// keeps the rendered body of each URL with the generation of the rows it
// was made from, so that while the index serves that generation the body
// is sent as it is, as a server of pre-built bytes would.

// maxPageBodyBytes bounds the bodies kept; past it the cache starts over.
const maxPageBodyBytes = 32 << 20

type pageBodies struct {
	mu    sync.Mutex // guards m and bytes
	m     map[string]pageBody
	bytes int
}

type pageBody struct {
	gen   uint64 // of the rows the body was made from
	total int
	body  []byte
	// results is where the list's results begin in body, at
	// resultsKey; 0 if not found.
	results int
}

// resultsKey begins the last member of a list's JSON object. Before it
// come only the count and the page links, whose strings escape their
// quotes, so its first occurrence in a body is that member.
var resultsKey = []byte(`,"results":`)

// get returns the entry kept for key when it was made from the rows of
// generation gen; its body is this request's when total is the entry's
// too.
func (p *pageBodies) get(key string, gen uint64) (pageBody, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	e, ok := p.m[key]
	if !ok || e.gen != gen {
		return pageBody{}, false
	}
	return e, true
}

func (p *pageBodies) put(key string, e pageBody) {
	if len(e.body) > maxPageBodyBytes/16 {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	old, replaced := p.m[key]
	if p.m == nil || p.bytes-len(old.body)+len(e.body) > maxPageBodyBytes {
		p.m, p.bytes, replaced = map[string]pageBody{}, 0, false
	}
	if replaced {
		p.bytes -= len(old.body)
	}
	p.m[key] = e
	p.bytes += len(e.body)
}

// writeListPage answers with a list page of rows, the last page the
// store answered for the request: the body rendered for the same URL
// from rows of the same generation when there is one, else what render
// makes of them (the list's JSON object), kept for the next request.
// Rows the store gave no generation are rendered and not kept.
func writeListPage[T any](s *Server, c *gin.Context, rows []T, pg page, render func() any) {
	r, ok := index.LastPage(c.Request.Context())
	if len(rows) == 0 || !ok || r.Generation == 0 || r.Rows != len(rows) || r.Total != pg.total {
		s.edge.WriteJSON(c, http.StatusOK, render())
		return
	}
	u := s.edge.URLsFor(c)
	key := u.Base() + c.Request.URL.RequestURI()
	e, ok := s.pageBodies.get(key, r.Generation)
	if ok && e.total == pg.total {
		s.edge.SendJSON(c, http.StatusOK, e.body)
		return
	}
	if ok && e.results > 0 {
		// The same rows in a list whose total moved (changes appended
		// after a full page, see index FindChanges): only the count and
		// the links change, so the rendered results are kept.
		b := s.edge.EncodeBody(c, newList(c, u, pg, []struct{}{}))
		defer s.edge.ReleaseBody(b)
		head := b.Bytes
		// A body grown past the bound (by a new link) is rendered, and
		// refused, as any other.
		if i := bytes.Index(head, resultsKey); b.Status == http.StatusOK && i > 0 &&
			i+len(e.body)-e.results <= s.edge.MaxResponseBytes() {
			body := append(append(make([]byte, 0, i+len(e.body)-e.results), head[:i]...), e.body[e.results:]...)
			s.pageBodies.put(key, pageBody{gen: r.Generation, total: pg.total, body: body, results: i})
			s.edge.SendJSON(c, http.StatusOK, body)
			return
		}
	}
	b := s.edge.EncodeBody(c, render())
	defer s.edge.ReleaseBody(b)
	if b.Status == http.StatusOK {
		s.pageBodies.put(key, pageBody{gen: r.Generation, total: pg.total,
			body: append([]byte(nil), b.Bytes...), results: max(bytes.Index(b.Bytes, resultsKey), 0)})
	}
	s.edge.SendJSON(c, b.Status, b.Bytes)
}
