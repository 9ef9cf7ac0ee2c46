package api

import (
	"context"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/tolk-project/tolk/edge"
	"github.com/tolk-project/tolk/index"
)

// commentRoutes registers the comments of units (reference workspace
// §3.3). /api/comments/<id>/ is Tolk's: the reference resolves and
// removes comments only in its web UI (§3.4).
func (s *Server) commentRoutes(r *edge.Router) {
	r.Resource("/api/units/:id/comments/", "Unit Comments", "GET, POST, HEAD, OPTIONS",
		edge.Handlers{Get: s.listUnitComments, Post: s.addComment})
	r.Resource("/api/comments/:id/", "Comment", "GET, PATCH, DELETE, HEAD, OPTIONS",
		edge.Handlers{Get: s.getComment, Patch: s.resolveComment, Delete: s.deleteComment})
}

// commentStore is what the comment endpoints read and write.
type commentStore interface {
	// FindComments returns a page of comments, oldest first, and how
	// many f selects.
	FindComments(ctx context.Context, f index.CommentFilter) ([]index.Comment, int, error)
	// FindCommentByID returns one comment.
	FindCommentByID(ctx context.Context, id int64) (index.Comment, error)
	// AddComment adds c to a unit, or to the unit check returns, once
	// check agrees; it returns the comment added.
	AddComment(ctx context.Context, unitID int64, actor index.Actor, c index.NewComment,
		check func(u index.Unit, t index.Translation) (int64, error)) (index.Comment, error)
	// SetCommentResolved resolves or reopens a comment once check agrees.
	SetCommentResolved(ctx context.Context, id int64, resolved bool, actor index.Actor,
		check func(c index.Comment, t index.Translation) error) (index.Comment, error)
	// DeleteComment removes a comment once check agrees.
	DeleteComment(ctx context.Context, id int64, actor index.Actor,
		check func(c index.Comment, t index.Translation) error) error
}

// commentJSON is a comment as the reference lists it.
type commentJSON struct {
	ID        int64   `json:"id"`
	Comment   string  `json:"comment"`
	Timestamp string  `json:"timestamp"`
	User      *string `json:"user"`
}

// createdCommentJSON is the reference's answer to adding one: its
// serializer's readable fields, in its order.
type createdCommentJSON struct {
	Comment   string  `json:"comment"`
	Timestamp string  `json:"timestamp"`
	ID        int64   `json:"id"`
	User      *string `json:"user"`
}

// commentDetailJSON is one comment on Tolk's own endpoint, which also
// says whether it is resolved and which unit holds it.
type commentDetailJSON struct {
	ID        int64   `json:"id"`
	Comment   string  `json:"comment"`
	Timestamp string  `json:"timestamp"`
	User      *string `json:"user"`
	Resolved  bool    `json:"resolved"`
	Unit      string  `json:"unit"`
}

func newCommentDetail(u edge.URLs, c *index.Comment) commentDetailJSON {
	return commentDetailJSON{ID: c.ID, Comment: c.Comment, Timestamp: timestamp(c.Timestamp),
		User: u.User(c.Username), Resolved: c.Resolved, Unit: u.Unit(c.UnitID)}
}

// listUnitComments serves GET /api/units/:id/comments/: the comments
// stored on the unit, oldest first, as the reference lists them, so a
// translation's unit does not list the global and report comments kept
// on its source unit. With include=source it lists those too (what the
// reference's editor shows, Unit.all_comments), in one list.
func (s *Server) listUnitComments(c *gin.Context) {
	u, _, err := s.findUnit(c)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	f := index.CommentFilter{UnitID: u.ID}
	if c.Query("include") == "source" {
		f.SourceUnitID = u.SourceUnitID
	}
	rows, pg, err := fetchPage(c, func(p index.Page) ([]index.Comment, int, error) {
		f.Page = p
		return s.store.FindComments(c.Request.Context(), f)
	})
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	urls := s.edge.URLsFor(c)
	out := make([]commentJSON, len(rows))
	for i, r := range rows {
		out[i] = commentJSON{ID: r.ID, Comment: r.Comment, Timestamp: timestamp(r.Timestamp), User: urls.User(r.Username)}
	}
	s.edge.WriteJSON(c, http.StatusOK, newList(c, urls, pg, out))
}

// commentMaxLength bounds a comment's text: the reference has no limit
// but its request size; a comment is a remark, not a file.
const commentMaxLength = 10000

// readNewComment reads a comment POST's fields (§3.3).
func readNewComment(c *gin.Context) (index.NewComment, error) {
	var n index.NewComment
	p, err := readPayload(c)
	if err != nil {
		return n, err
	}
	p.require("scope", "comment")
	var scope string
	p.choice("scope", &scope, index.CommentScopes)
	n.Scope = index.CommentScope(scope)
	if text, ok := p.text("comment", false, false); ok {
		p.maxLength("comment", text, commentMaxLength)
		n.Comment = text
	}
	if ts, ok := p.text("timestamp", false, false); ok {
		t, err := time.Parse(time.RFC3339Nano, ts)
		if err != nil {
			p.fail("timestamp", "invalid",
				"Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].")
		}
		n.Timestamp = t
	}
	if email, ok := p.text("user_email", false, false); ok {
		if prob := index.CheckEmail(email); prob != nil {
			p.fail("user_email", prob.Code, prob.Detail)
		}
		n.UserEmail = email
	}
	return n, p.err()
}

// addComment serves POST /api/units/:id/comments/: 201 with the comment
// added. The permission comes before the body, as in the reference, so
// a payload problem waits for it; the scope's rules come after it.
func (s *Server) addComment(c *gin.Context) {
	id, err := pathID(c, "id")
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	who := edge.Principal(c)
	n, payloadErr := readNewComment(c)
	// Whether the caller may see the unit is checked by the write, as
	// for a unit's PATCH (units_write.go), which saves a read.
	out, err := s.store.AddComment(c.Request.Context(), id, index.UserActor(who.User), n,
		func(u index.Unit, t index.Translation) (int64, error) {
			if !who.CanView(&t.Component.Project) {
				return 0, edge.ErrNoRoute
			}
			if err := index.CheckCanComment(who, &t); err != nil {
				return 0, err
			}
			if payloadErr != nil {
				return 0, payloadErr
			}
			return index.CheckAddComment(who, &u, &t, &n)
		})
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	s.edge.WriteJSON(c, http.StatusCreated, createdCommentJSON{Comment: out.Comment,
		Timestamp: timestamp(out.Timestamp), ID: out.ID, User: s.edge.URLsFor(c).User(out.Username)})
}

// findComment resolves the comment of the path and the translation of
// its unit: 404 for a comment that does not exist or that the caller may
// not see.
func (s *Server) findComment(c *gin.Context) (index.Comment, error) {
	id, err := pathID(c, "id")
	if err != nil {
		return index.Comment{}, err
	}
	cm, err := s.store.FindCommentByID(c.Request.Context(), id)
	if err != nil {
		return cm, err
	}
	_, _, err = s.visibleUnit(c, cm.UnitID)
	return cm, err
}

// getComment serves GET /api/comments/:id/.
func (s *Server) getComment(c *gin.Context) {
	cm, err := s.findComment(c)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	s.edge.WriteJSON(c, http.StatusOK, newCommentDetail(s.edge.URLsFor(c), &cm))
}

// resolveComment serves PATCH /api/comments/:id/ with {"resolved": true
// or false}: 200 with the comment as it now is.
func (s *Server) resolveComment(c *gin.Context) {
	who := edge.Principal(c)
	cm, err := s.findComment(c)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	p, err := readPayload(c)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	resolved, _ := p.flag("resolved", true)
	if err := p.err(); err != nil {
		s.edge.Fail(c, err)
		return
	}
	out, err := s.store.SetCommentResolved(c.Request.Context(), cm.ID, resolved, index.UserActor(who.User),
		func(cm index.Comment, t index.Translation) error {
			if !who.CanView(&t.Component.Project) {
				return edge.ErrNoRoute
			}
			return index.CheckResolveComment(who, &cm, &t)
		})
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	s.edge.WriteJSON(c, http.StatusOK, newCommentDetail(s.edge.URLsFor(c), &out))
}

// deleteComment serves DELETE /api/comments/:id/: 204 once removed.
func (s *Server) deleteComment(c *gin.Context) {
	who := edge.Principal(c)
	cm, err := s.findComment(c)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	err = s.store.DeleteComment(c.Request.Context(), cm.ID, index.UserActor(who.User),
		func(cm index.Comment, t index.Translation) error {
			if !who.CanView(&t.Component.Project) {
				return edge.ErrNoRoute
			}
			return index.CheckDeleteComment(who, &cm, &t)
		})
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	noContent(c)
}
