package web

import (
	"bytes"
	"context"
	"html/template"
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"
	"github.com/tolk-project/tolk/index"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
)

// The editor's comments (reference workspace §3): the string's own and
// its source string's, oldest first, as the reference's editor shows
// them (Unit.all_comments), rendered from Markdown; and the form that
// adds one through the API's rules (index.CheckAddComment, in the
// store's write).

// commentRow is one comment as the editor shows it.
type commentRow struct {
	Who, When string
	// HTML is the comment's Markdown rendered by markdown: safe to
	// write as is.
	HTML     template.HTML
	Resolved bool
	// OnSource: stored on the source string (a global or report
	// comment), so seen from every language.
	OnSource bool
	ID       int64
	// CanResolve: the reader may resolve or reopen it (the workspace
	// sets it, index.CheckResolveComment).
	CanResolve bool
	userID     int64
}

// maxEditorComments bounds the comments the editor shows.
const maxEditorComments = 100

// markdown renders comments: CommonMark plus tables, strikethrough and
// bare links. goldmark is used in its safe mode (the default): raw HTML
// in a comment is left out, and links and images whose URL is
// dangerous (javascript:, vbscript:, file:, data: but images) are
// emptied. Whatever a commenter writes reaches the page as text or as
// those few tags.
var markdown = goldmark.New(goldmark.WithExtensions(extension.Table, extension.Strikethrough, extension.Linkify))

// renderComment is a comment's text as HTML. A comment that cannot be
// rendered is shown escaped, as text.
func renderComment(text string) template.HTML {
	var b bytes.Buffer
	if err := markdown.Convert([]byte(text), &b); err != nil {
		return template.HTML("<p>" + template.HTMLEscapeString(text) + "</p>")
	}
	return template.HTML(b.String()) // goldmark's safe mode, see markdown
}

// editorComments reads the comments of unit x and of its source unit.
func (s *Server) editorComments(ctx context.Context, x *index.Unit) ([]commentRow, error) {
	f := index.CommentFilter{UnitID: x.ID, SourceUnitID: x.SourceUnitID,
		Page: index.Page{Number: 1, Size: maxEditorComments}}
	comments, _, err := s.store.FindComments(ctx, f)
	if err != nil {
		return nil, err
	}
	out := make([]commentRow, len(comments))
	for i, c := range comments {
		who := c.Username
		if who == "" {
			who = "(removed user)"
		}
		out[i] = commentRow{Who: who, When: timestamp(c.Timestamp), HTML: renderComment(c.Comment),
			Resolved: c.Resolved, OnSource: c.UnitID != x.ID, ID: c.ID, userID: c.UserID}
	}
	return out, nil
}

// scopeOption is a scope the comment form offers.
type scopeOption struct{ Value, Name string }

// commentScopes are the scopes the editor's form offers on a unit of t,
// those the rules allow there (index.CheckAddComment).
func commentScopes(t *index.Translation) []scopeOption {
	var out []scopeOption
	if !t.IsSource {
		out = append(out, scopeOption{string(index.ScopeTranslation), "This translation"})
	}
	out = append(out, scopeOption{string(index.ScopeGlobal), "The source string, in every language"})
	if t.Component.Project.SourceReview {
		out = append(out, scopeOption{string(index.ScopeReport), "Report a problem with the source string"})
	}
	return out
}

// addComment serves POST /translate/:project/:component/:language/comment/:
// a comment on a string from the editor's form, back to the editor on
// that string once added.
func (s *Server) addComment(c *gin.Context) {
	who, t, id, err := s.editorPost(c)
	if err != nil {
		s.failPage(c, err)
		return
	}
	n := index.NewComment{Scope: index.CommentScope(c.PostForm("scope")), Comment: strings.TrimSpace(c.PostForm("comment"))}
	var idHash int64
	_, err = s.store.AddComment(c.Request.Context(), id, index.UserActor(who.User), n,
		func(u index.Unit, ut index.Translation) (int64, error) {
			if ut.ID != t.ID {
				return 0, index.ErrNotFound
			}
			idHash = u.IDHash
			switch {
			case n.Comment == "":
				return 0, index.Errorf(index.ErrInvalid, "The comment is empty.")
			case len(n.Comment) > 10000:
				return 0, index.Errorf(index.ErrInvalid, "The comment is longer than 10000 bytes.")
			case n.Scope != index.ScopeGlobal && n.Scope != index.ScopeTranslation && n.Scope != index.ScopeReport:
				return 0, index.Errorf(index.ErrInvalid, "Choose where the comment belongs.")
			}
			return index.CheckAddComment(who, &u, &ut, &n)
		})
	if err != nil {
		s.failPage(c, err)
		return
	}
	u := s.edge.PageURLs(c)
	back := editorURL(u.Translate(t.Component.Project.Slug, t.Component.FullSlug(), t.LanguageCode), formList(c),
		"checksum", checksumOf(idHash))
	c.Redirect(http.StatusSeeOther, back+"#comments")
}
