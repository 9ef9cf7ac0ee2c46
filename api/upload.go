package api

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/mail"
	"slices"
	"strings"

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

// DefaultMaxUploadBytes bounds an uploaded file when Options leave it 0.
const DefaultMaxUploadBytes = 10 << 20

// uploadFormSlack is what the body of an upload may hold beyond the file:
// the other form fields and the multipart framing.
const uploadFormSlack = 1 << 20

// maxFieldBytes bounds each form field other than the file.
const maxFieldBytes = 64 << 10

func (s *Server) uploadWrites() []write {
	path := translationPath + "file/"
	// The reference accepts both (TranslationViewSet.file).
	return []write{{path, http.MethodPost, s.upload}, {path, http.MethodPut, s.upload}}
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
	_, res, err := s.applyUpload(c)
	if err != nil {
		s.fail(c, err)
		return
	}
	s.writeJSON(c, http.StatusOK, uploadResultJSON{NotFound: res.NotFound, Skipped: res.Skipped,
		Accepted: res.Accepted, Total: res.Total, Result: res.Accepted > 0, Count: res.Total})
}

// applyUpload reads the upload of the request and applies it, for the
// API and for the translation page's form alike.
func (s *Server) applyUpload(c *gin.Context) (index.Upload, index.UploadResult, error) {
	files := s.opts.Files
	if files == nil {
		return index.Upload{}, index.UploadResult{}, errNoRepositories
	}
	t, up, err := s.readUpload(c, files)
	if err != nil {
		return up, index.UploadResult{}, err
	}
	res, err := s.store.ApplyUpload(c.Request.Context(), t.ID, up)
	return up, res, err
}

// readUpload resolves the upload's translation, runs every check up to
// the parsed file, and returns what the store is to apply.
func (s *Server) readUpload(c *gin.Context, files TranslationFiles) (index.Translation, index.Upload, error) {
	p := principal(c)
	t, err := s.findTranslation(c)
	if err != nil {
		return t, index.Upload{}, err
	}
	if denied := uploadDenied(p, &t); denied != "" {
		return t, index.Upload{}, index.Errorf(index.ErrPermission, "%s", denied)
	}
	form, err := readUploadForm(c, s.opts.MaxUploadBytes)
	if err == nil {
		err = checkUploadPerms(p, &t, &form)
	}
	if err != nil {
		return t, index.Upload{}, err
	}
	units, err := files.ParseUpload(c.Request.Context(), t, form.file)
	if err != nil {
		return t, index.Upload{}, err
	}
	up := index.Upload{Method: form.method, Conflicts: form.conflicts, Fuzzy: form.fuzzy, Units: units,
		UserID: p.User.ID}
	// Crediting someone else is a right of its own; without it the
	// reference ignores the fields rather than refusing the upload.
	if p.Can(index.PermUploadAuthorship, t.Component.ProjectID) {
		up.AuthorName, up.AuthorEmail = form.authorName, form.authorEmail
	}
	return t, up, nil
}

// uploadForm is an upload's multipart form, validated.
type uploadForm struct {
	file                    []byte
	method                  index.UploadMethod
	conflicts               index.Conflicts
	fuzzy                   index.FuzzyUploads
	authorName, authorEmail string
}

// Field problems of an upload form, with the reference framework's
// messages.
var (
	errNoFileSubmitted = index.FieldProblem{Code: "required", Detail: "No file was submitted."}
	errNotAFile        = index.FieldProblem{Code: "invalid",
		Detail: "The submitted data was not a file. Check the encoding type on the form."}
	errEmptyFile   = index.FieldProblem{Code: "empty", Detail: "The submitted file is empty."}
	errFileTooBig  = index.FieldProblem{Code: "invalid", Detail: "Uploaded translation file is too big."}
	errFieldTooBig = index.FieldProblem{Code: "max_length",
		Detail: fmt.Sprintf("Ensure this field has no more than %d characters.", maxFieldBytes)}
)

func fileProblem(p index.FieldProblem) error {
	return &index.FieldError{Fields: map[string]index.FieldProblem{"file": p}}
}

// readUploadForm reads the multipart body of an upload, never more than
// the file limit plus uploadFormSlack, and validates its fields as the
// reference's UploadRequestSerializer does, reporting every bad field at
// once. The reference parses only multipart and form bodies here: any
// other body (JSON) carries no file.
func readUploadForm(c *gin.Context, maxFile int64) (uploadForm, error) {
	form := uploadForm{method: index.UploadTranslate}
	if mt, _, _ := mime.ParseMediaType(c.GetHeader("Content-Type")); mt != "multipart/form-data" {
		return form, fileProblem(errNoFileSubmitted)
	}
	c.Request.Body = http.MaxBytesReader(c.Writer, c.Request.Body, maxFile+uploadFormSlack)
	closing := watchClosing(c.Request)
	mr, err := c.Request.MultipartReader()
	if err != nil {
		return form, index.Errorf(index.ErrInvalid, "Multipart form parse error - %v", err)
	}
	raw, err := readParts(mr, maxFile)
	if err != nil {
		return form, err
	}
	if err := closing.check(); err != nil {
		return form, multipartError(err)
	}
	switch _, plain := raw.fields["file"]; {
	case raw.file == nil && plain:
		raw.problems["file"] = errNotAFile
	case raw.file == nil:
		raw.problems["file"] = errNoFileSubmitted
	case len(raw.file) == 0:
		raw.problems["file"] = errEmptyFile
	}
	form.file = raw.file
	form.parseFields(raw.fields, raw.problems)
	if len(raw.problems) > 0 {
		return form, &index.FieldError{Fields: raw.problems}
	}
	return form, nil
}

// rawForm is a multipart form as sent: the file (nil when no file part
// came), the other fields' values and the fields too long to keep.
type rawForm struct {
	file     []byte
	fields   map[string]string
	problems map[string]index.FieldProblem
}

// readParts reads every part of a multipart body. A repeated field keeps
// its last value, as the reference's QueryDict does; a "file" part
// without a file name is a plain field.
func readParts(mr *multipart.Reader, maxFile int64) (rawForm, error) {
	raw := rawForm{fields: map[string]string{}, problems: map[string]index.FieldProblem{}}
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			return raw, nil
		}
		if err != nil {
			return raw, multipartError(err)
		}
		name := part.FormName()
		if name == "file" && part.FileName() != "" {
			if raw.file, err = readLimited(part, maxFile); err != nil {
				return raw, multipartError(err)
			}
			if raw.file == nil {
				raw.file = []byte{} // sent, if empty
			}
			continue
		}
		value, err := readLimited(part, maxFieldBytes)
		switch {
		case errors.Is(err, errTooBig):
			raw.problems[name] = errFieldTooBig
		case err != nil:
			return raw, multipartError(err)
		}
		raw.fields[name] = string(value)
	}
}

// parseFields validates the fields other than the file into form,
// adding what is wrong to problems. An empty field takes its default, as
// the reference framework treats a blank optional form field.
func (form *uploadForm) parseFields(fields map[string]string, problems map[string]index.FieldProblem) {
	choice := func(name string, choices []string) string {
		v := fields[name]
		if v != "" && !slices.Contains(choices, v) {
			problems[name] = index.FieldProblem{Code: "invalid_choice", Detail: fmt.Sprintf("%q is not a valid choice.", v)}
		}
		return v
	}
	var methods []string
	for _, m := range index.UploadMethods {
		methods = append(methods, string(m))
	}
	if m := choice("method", methods); m != "" {
		form.method = index.UploadMethod(m)
	}
	form.conflicts = index.Conflicts(choice("conflicts", []string{"ignore", string(index.ConflictsReplaceTranslated),
		string(index.ConflictsReplaceApproved)}))
	switch {
	case form.conflicts == "ignore":
		form.conflicts = index.ConflictsIgnore
	case form.conflicts == "" && legacyOverwrite(fields["overwrite"]):
		// Better than the reference, which dropped this field when
		// conflicts replaced it: older clients (wlc before 2.x, as Debian
		// ships it) still send overwrite=yes for --overwrite, and mean
		// what conflicts=replace-translated says. It needs the same right.
		form.conflicts = index.ConflictsReplaceTranslated
	}
	form.fuzzy = index.FuzzyUploads(choice("fuzzy", []string{string(index.FuzzyProcess), string(index.FuzzyApprove)}))
	form.authorName = fields["author_name"]
	if e := fields["author_email"]; e != "" {
		if a, err := mail.ParseAddress(e); err != nil || a.Address != e {
			problems["author_email"] = index.FieldProblem{Code: "invalid", Detail: "Enter a valid email address."}
		}
		form.authorEmail = e
	}
	// Both are CharFields in the reference: no NUL characters.
	for _, name := range []string{"author_name", "author_email"} {
		if strings.ContainsRune(fields[name], 0) {
			problems[name] = nullCharacters
		}
	}
}

// legacyOverwrite reads the boolean overwrite field of older clients as
// the reference framework reads a form boolean.
func legacyOverwrite(v string) bool {
	switch strings.ToLower(v) {
	case "yes", "true", "on", "1", "y", "t":
		return true
	}
	return false
}

// errTooBig is a part longer than its limit.
var errTooBig = errors.New("api: part too big")

// readLimited reads a part of at most limit bytes.
func readLimited(part *multipart.Part, limit int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(part, limit+1))
	if err == nil && int64(len(b)) > limit {
		return nil, errTooBig
	}
	return b, err
}

// multipartError turns a failure reading the body into the client's
// error: a body over the limit or a file over its own is the reference's
// "too big"; anything else is a malformed request.
func multipartError(err error) error {
	var mbe *http.MaxBytesError
	if errors.Is(err, errTooBig) || errors.As(err, &mbe) {
		return fileProblem(errFileTooBig)
	}
	return index.Errorf(index.ErrInvalid, "Multipart form parse error - %v", err)
}
