package api

import (
	"context"
	"net/http"

	"github.com/gin-gonic/gin"
	"github.com/tolk-project/tolk/index"
)

// TranslationFiles reads and writes translation files in their formats,
// for uploads and for downloads that show the edits not yet committed;
// *sync.Service satisfies it with the parsers and writers its import
// uses, and cmd/tolk wires the two, so api never imports formats.
// Methods must be safe for concurrent use.
type TranslationFiles interface {
	// ParseUpload parses a file uploaded to translation t into its units,
	// in file order. A file that does not parse answers an
	// *index.FieldError on "file" saying where.
	ParseUpload(ctx context.Context, t index.Translation, data []byte) ([]index.ImportUnit, error)
	// RenderTranslation returns t's file as committed with the targets of
	// the pending units applied; an error wrapping index.ErrNotFound when
	// there is no checkout, or no file and nothing pending.
	RenderTranslation(ctx context.Context, t index.Translation, pending []index.Unit) ([]byte, error)
}

// uploadStore is what uploads and downloads of pending edits need.
type uploadStore interface {
	// ApplyUpload applies a parsed file to a translation in one
	// transaction; see index.Upload for the rules.
	ApplyUpload(ctx context.Context, translationID int64, up index.Upload) (index.UploadResult, error)
	// FindPendingUnits returns a translation's units edited since the
	// last commit.
	FindPendingUnits(ctx context.Context, translationID int64) ([]index.Unit, error)
}

// uploadResultJSON is the reference's upload answer. result and count
// repeat accepted > 0 and total for older clients, and wlc requires all
// six.
type uploadResultJSON struct {
	NotFound int  `json:"not_found"`
	Skipped  int  `json:"skipped"`
	Accepted int  `json:"accepted"`
	Total    int  `json:"total"`
	Result   bool `json:"result"`
	Count    int  `json:"count"`
}

// upload serves POST and PUT .../translations/:project/:component/:language/file/.
// The checks run in the reference's order (weblate-writes.md §3.1): the
// translation (404, also for a private project the caller may not see),
// upload.perform (403), the form (400 per field), the conflicts and
// method permissions (400), then the file itself (400 on "file"). The
// answer is 200 even when nothing was accepted.
func (s *Server) upload(c *gin.Context) {
	if s.opts.Files == nil {
		s.edge.Fail(c, errNoRepositories)
		return
	}
	_, res, err := s.edge.ApplyUpload(c, s.opts.Files, s.opts.MaxUploadBytes, nil)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	s.edge.WriteJSON(c, http.StatusOK, uploadResultJSON{NotFound: res.NotFound, Skipped: res.Skipped,
		Accepted: res.Accepted, Total: res.Total, Result: res.Accepted > 0, Count: res.Total})
}
