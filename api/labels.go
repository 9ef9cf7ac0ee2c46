package api

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/gin-gonic/gin"
	"github.com/tolk-project/tolk/edge"
	"github.com/tolk-project/tolk/index"
)

// labelRoutes registers a project's labels (reference workspace §7.1).
// Units carry their labels in units.go and take them in units_write.go.
func (s *Server) labelRoutes(r *edge.Router) {
	r.Resource("/api/projects/:project/labels/", "Labels", "GET, POST, HEAD, OPTIONS",
		edge.Handlers{Get: s.listLabels, Post: s.createLabel})
	r.Resource("/api/projects/:project/labels/:id/", "Label", "DELETE, OPTIONS",
		edge.Handlers{Delete: s.deleteLabel})
}

// labelStore is what the label endpoints read and write.
type labelStore interface {
	// FindLabels returns a page of a project's labels in id order and
	// how many it has.
	FindLabels(ctx context.Context, projectID int64, p index.Page) ([]index.Label, int, error)
	// CreateLabel adds a label once check agrees.
	CreateLabel(ctx context.Context, l index.Label, check func() error) (index.Label, error)
	// DeleteLabel removes a label of a project once check agrees.
	DeleteLabel(ctx context.Context, projectID, id int64, check func() error) error
}

// labelJSON is a label, as the reference's LabelSerializer writes it.
type labelJSON struct {
	ID          int64  `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description"`
	Color       string `json:"color"`
}

func newLabelJSON(l *index.Label) labelJSON {
	return labelJSON{ID: l.ID, Name: l.Name, Description: l.Description, Color: l.Color}
}

// appendLabels appends labels as a JSON list of labelJSON objects, for
// unitItem.
func appendLabels(b []byte, labels []index.Label) []byte {
	b = append(b, '[')
	for i := range labels {
		if i > 0 {
			b = append(b, ',')
		}
		l := &labels[i]
		b = append(b, `{"id":`...)
		b = appendJSONInt(b, l.ID)
		b = append(b, `,"name":`...)
		b = appendJSONString(b, l.Name)
		b = append(b, `,"description":`...)
		b = appendJSONString(b, l.Description)
		b = append(b, `,"color":`...)
		b = appendJSONString(b, l.Color)
		b = append(b, '}')
	}
	return append(b, ']')
}

// labelIDs are the ids of labels, never nil: a unit write's answer.
func labelIDs(labels []index.Label) []int64 {
	out := make([]int64, len(labels))
	for i := range labels {
		out[i] = labels[i].ID
	}
	return out
}

// listLabels serves GET /api/projects/:project/labels/, paginated.
func (s *Server) listLabels(c *gin.Context) {
	p, err := s.edge.FindProject(c)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	rows, pg, err := fetchPage(c, func(pg index.Page) ([]index.Label, int, error) {
		return s.store.FindLabels(c.Request.Context(), p.ID, pg)
	})
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	out := make([]labelJSON, len(rows))
	for i := range rows {
		out[i] = newLabelJSON(&rows[i])
	}
	s.edge.WriteJSON(c, http.StatusOK, newList(c, s.edge.URLsFor(c), pg, out))
}

// createLabel serves POST /api/projects/:project/labels/: 201 with the
// label. project.edit comes before the body, as in the reference.
func (s *Server) createLabel(c *gin.Context) {
	who := edge.Principal(c)
	p, err := s.edge.FindProject(c)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	if err := index.CheckCreateLabel(who, p.ID); err != nil {
		s.edge.Fail(c, err)
		return
	}
	pl, err := readPayload(c)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	l := index.Label{ProjectID: p.ID}
	pl.require("name", "color")
	if name, ok := pl.text("name", false, false); ok {
		l.Name = name
	}
	if color, ok := pl.text("color", false, false); ok {
		l.Color = color
	}
	if desc, ok := pl.text("description", false, true); ok {
		l.Description = desc
		pl.maxLength("description", desc, 250)
	}
	if pl.err() == nil {
		pl.fieldError(index.CheckLabel(&l))
	}
	if err := pl.err(); err != nil {
		s.edge.Fail(c, err)
		return
	}
	out, err := s.store.CreateLabel(c.Request.Context(), l, func() error { return index.CheckCreateLabel(who, p.ID) })
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	s.edge.WriteJSON(c, http.StatusCreated, newLabelJSON(&out))
}

// deleteLabel serves DELETE /api/projects/:project/labels/:id/: 204,
// the label gone from every unit.
func (s *Server) deleteLabel(c *gin.Context) {
	who := edge.Principal(c)
	p, err := s.edge.FindProject(c)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	id, err := pathID(c, "id")
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	err = s.store.DeleteLabel(c.Request.Context(), p.ID, id, func() error { return index.CheckDeleteLabel(who, p.ID) })
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	noContent(c)
}

// readLabels reads a unit write's labels: a list of label ids, as the
// reference takes them, or of label objects with an id, which is what
// the unit's GET gives and wlc's Unit.put sends back (the reference
// refuses those). Whether each label is the project's is the store's to
// say.
func readLabels(p *payload) *[]int64 {
	v, ok := p.present("labels", false)
	if !ok {
		return nil
	}
	var items []json.RawMessage
	if kind := rawKind(v); kind != "list" {
		p.fail("labels", "not_a_list", `Expected a list of items but got type "`+kind+`".`)
		return nil
	}
	if err := json.Unmarshal(v, &items); err != nil {
		p.fail("labels", "invalid", "Invalid label ID.")
		return nil
	}
	ids := make([]int64, 0, len(items))
	for _, it := range items {
		if rawKind(it) == "dict" {
			var obj map[string]json.RawMessage
			if json.Unmarshal(it, &obj) != nil {
				p.fail("labels", "invalid", "Invalid label ID.")
				return nil
			}
			it = obj["id"]
		}
		var id int64
		if rawKind(it) != "int" || json.Unmarshal(it, &id) != nil || id < 1 {
			p.fail("labels", "invalid", "Invalid label ID.")
			return nil
		}
		ids = append(ids, id)
	}
	return &ids
}
