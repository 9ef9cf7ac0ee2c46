package web

import (
	"context"
	"net/http"

	"github.com/gin-gonic/gin"
	"github.com/tolk-project/tolk/edge"
	"github.com/tolk-project/tolk/index"
)

// componentListStore is what the component list page reads.
type componentListStore interface {
	// FindComponentList returns a component list with its components
	// (and their projects) by slug, or ErrNotFound.
	FindComponentList(ctx context.Context, slug string) (index.ComponentList, error)
}

// componentListPage serves /component-lists/:list/: the dashboard of a
// component list (the reference shows one on its dashboard): each of
// its components the principal may see, with its translated share.
func (s *Server) componentListPage(c *gin.Context) {
	ctx := c.Request.Context()
	l, err := s.store.FindComponentList(ctx, c.Param("list"))
	if err != nil {
		s.failPage(c, err)
		return
	}
	u := s.edge.PageURLs(c)
	page := s.newPage(c, l.Name)
	page.ListName = "Components"
	page.APIURL = u.Abs(edge.Join("api", "component-lists", l.Slug), "")
	who := edge.Principal(c)
	for _, comp := range l.Components {
		if !who.CanView(&comp.Project) {
			continue
		}
		st, err := s.store.ComponentStats(ctx, comp.ID)
		if err != nil {
			s.failPage(c, err)
			return
		}
		page.List = append(page.List, progressRow(comp.Project.Name+" / "+comp.Name,
			u.ComponentWeb(comp.Project.Slug, comp.FullSlug()), st.Translated, st.Total))
	}
	if len(page.List) == 0 {
		page.Note = "This component list has no components you may see."
	}
	s.writePage(c, http.StatusOK, page)
}
