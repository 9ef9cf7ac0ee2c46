package edge

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

// DefaultMaxUploadBytes bounds an uploaded file when the options of the
// audience that takes it leave the bound 0.
const DefaultMaxUploadBytes = 10 << 20

// UploadParser parses the translation files uploaded;
// *sync.Service satisfies it with the parsers its import uses.
type UploadParser interface {
	// ParseUpload parses a file uploaded to translation t into its units,
	// in file order. A file that does not parse answers an
	// *index.FieldError on "file" saying where.
	ParseUpload(ctx context.Context, t index.Translation, data []byte) ([]index.ImportUnit, error)
}

// uploadFormSlack is what the body of an upload may hold beyond the file:
// the other form fields and the multipart framing.
const uploadFormSlack = 1 << 20

// maxFieldBytes bounds each form field other than the file.
const maxFieldBytes = 64 << 10

// UploadBody is the multipart body of an upload being read. A page's
// form opens it with OpenFormUpload, which reads the CSRF token first;
// the API's upload opens it in ApplyUpload.
type UploadBody struct {
	mr      *multipart.Reader
	closing *closingReader
}

// maxCSRFBytes bounds the CSRF field a form upload starts with: the
// token is 64 hex digits.
const maxCSRFBytes = 256

// OpenFormUpload opens the multipart body of a page's upload form, whose
// first part must be the session's CSRF token (the form carries it in
// its body, not in its address, where an access log would record it).
// The token is read, at most maxCSRFBytes of it, and checked before
// anything else of the body: a request without it never has its file
// read. The body is bounded by maxFile plus uploadFormSlack. Pass the
// body to ApplyUpload.
func (s *Server) OpenFormUpload(c *gin.Context, maxFile int64) (*UploadBody, error) {
	body, err := openUploadBody(c, maxFile)
	if err != nil {
		return nil, errCSRF
	}
	part, err := body.mr.NextPart()
	if err != nil || part.FormName() != CSRFField || part.FileName() != "" {
		return nil, errCSRF
	}
	token, err := readLimited(part, maxCSRFBytes)
	if err != nil {
		return nil, errCSRF
	}
	if err := s.CheckCSRF(c, string(token)); err != nil {
		return nil, err
	}
	return body, nil
}

// ApplyUpload reads the upload of the request, a file of at most
// maxFile bytes that files parses, and applies it: for the API and for
// the translation page's form alike. body is what OpenFormUpload
// opened, or nil to open the request's body here (the API).
func (s *Server) ApplyUpload(c *gin.Context, files UploadParser, maxFile int64, body *UploadBody) (index.Upload, index.UploadResult, error) {
	t, up, err := s.readUpload(c, files, maxFile, body)
	if err != nil {
		return up, index.UploadResult{}, err
	}
	res, err := s.store.ApplyUpload(c.Request.Context(), t.ID, up)
	return up, res, err
}

// readUpload resolves the upload's translation, runs every check up to
// the parsed file, and returns what the store is to apply.
func (s *Server) readUpload(c *gin.Context, files UploadParser, maxFile int64, body *UploadBody) (index.Translation, index.Upload, error) {
	p := Principal(c)
	t, err := s.FindTranslation(c)
	if err != nil {
		return t, index.Upload{}, err
	}
	if denied := UploadDenied(p, &t); denied != "" {
		return t, index.Upload{}, index.Errorf(index.ErrPermission, "%s", denied)
	}
	if body == nil {
		if body, err = openUploadBody(c, maxFile); err != nil {
			return t, index.Upload{}, err
		}
	}
	form, err := readUploadForm(body, maxFile)
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
	if p.CanTranslation(index.PermUploadAuthorship, &t) {
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

func fileProblem(p index.FieldProblem) error {
	return &index.FieldError{Fields: map[string]index.FieldProblem{"file": p}}
}

// openUploadBody opens the multipart body of an upload, never to be read
// beyond the file limit plus uploadFormSlack. The reference parses only
// multipart and form bodies here: any other body (JSON) carries no file.
func openUploadBody(c *gin.Context, maxFile int64) (*UploadBody, error) {
	if mt, _, _ := mime.ParseMediaType(c.GetHeader("Content-Type")); mt != "multipart/form-data" {
		return nil, fileProblem(errNoFileSubmitted)
	}
	c.Request.Body = http.MaxBytesReader(c.Writer, c.Request.Body, maxFile+uploadFormSlack)
	closing := WatchClosing(c.Request)
	mr, err := c.Request.MultipartReader()
	if err != nil {
		return nil, index.Errorf(index.ErrInvalid, "Multipart form parse error - %v", err)
	}
	return &UploadBody{mr: mr, closing: closing}, nil
}

// readUploadForm reads the rest of an upload's body and validates its
// fields as the reference's UploadRequestSerializer does, reporting
// every bad field at once.
func readUploadForm(body *UploadBody, maxFile int64) (uploadForm, error) {
	form := uploadForm{method: index.UploadTranslate}
	raw, err := readParts(body.mr, maxFile)
	if err != nil {
		return form, err
	}
	if err := body.closing.Check(); err != nil {
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
			problems[name] = index.NullCharacters
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
var errTooBig = errors.New("edge: part too big")

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
