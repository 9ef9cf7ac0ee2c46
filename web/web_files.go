package web

import (
	"fmt"
	"net/http"

	"github.com/gin-gonic/gin"
	"github.com/tolk-project/tolk/edge"
	"github.com/tolk-project/tolk/index"
)

// uploadView is the download link and upload form of a translation page.
type uploadView struct {
	DownloadURL string
	// UploadURL is "" when the principal may not upload here.
	UploadURL string
	// CSRF is the session's CSRF token, the upload form's first field.
	CSRF    string
	Methods []string
	Result  string
}

// uploadView builds the file part of t's page: the download is the
// API's (a session reads it like a token), the upload the page's own
// route. Its form carries the session's CSRF token as its first field,
// in the body (an address's query lands in access logs), so the upload
// reads it before the file (OpenFormUpload).
func (s *Server) uploadView(c *gin.Context, u edge.URLs, t *index.Translation) *uploadView {
	p, comp, l := t.Component.Project.Slug, t.Component.FullSlug(), t.LanguageCode
	v := &uploadView{DownloadURL: u.Translation(p, comp, l, "file")}
	if s.opts.Files != nil && edge.UploadDenied(edge.Principal(c), t) == "" {
		v.UploadURL, v.CSRF = u.TranslationWeb(p, comp, l)+"upload/", s.edge.CSRFToken(c)
		for _, m := range index.UploadMethods {
			v.Methods = append(v.Methods, string(m))
		}
	}
	return v
}

// uploadPage serves POST /projects/:project/:component/:language/upload/:
// the API's upload (readUpload, ApplyUpload), answered with the
// translation page and what the upload did.
func (s *Server) uploadPage(c *gin.Context) {
	body, err := s.edge.OpenFormUpload(c, s.opts.MaxUploadBytes)
	if err != nil {
		s.failPage(c, err)
		return
	}
	if edge.Principal(c).Anonymous() {
		s.failPage(c, edge.ErrNotSignedIn)
		return
	}
	if s.opts.Files == nil {
		s.failPage(c, edge.ErrNoRoute)
		return
	}
	up, res, err := s.edge.ApplyUpload(c, s.opts.Files, s.opts.MaxUploadBytes, body)
	if err != nil {
		s.failPage(c, err)
		return
	}
	// The statistics shown must be the upload's outcome.
	t, err := s.edge.FindTranslation(c)
	if err != nil {
		s.failPage(c, err)
		return
	}
	page := s.translationView(c, &t)
	page.Upload.Result = fmt.Sprintf("Upload (%s): %d accepted, %d skipped, %d not found, %d in the file.",
		up.Method, res.Accepted, res.Skipped, res.NotFound, res.Total)
	s.writePage(c, http.StatusOK, page)
}
