package api

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gin-gonic/gin"
	"github.com/tolk-project/tolk/edge"
	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/langdata"
)

// The translation memory (reference workspace §5.4): the reference's
// list, lookup and delete, and what it lacks, import and export of TMX
// and its JSON. Entries are units' current translations and imported
// entries (index/memory.go); only imported ones can be deleted.
// Every endpoint needs a signed-in user, as the reference's.

// memoryStore is what the memory endpoints need.
type memoryStore interface {
	// LookupMemoryMany answers each query with its ranked matches.
	LookupMemoryMany(ctx context.Context, qs []index.MemoryQuery) ([][]index.MemoryMatch, error)
	// FindMemory returns a page of entries and how many f selects.
	FindMemory(ctx context.Context, f index.MemoryFilter, pg index.Page) ([]index.MemoryEntry, int, error)
	// EachMemory calls fn with every entry f selects.
	EachMemory(ctx context.Context, f index.MemoryFilter, fn func(index.MemoryEntry) error) error
	// FindMemoryEntry returns an entry by id, or ErrNotFound.
	FindMemoryEntry(ctx context.Context, id int64) (index.MemoryEntry, error)
	// DeleteMemoryEntry deletes an imported entry; a unit's is ErrInvalid.
	DeleteMemoryEntry(ctx context.Context, id int64) error
	// ImportMemory stores imported entries of a project (0: site-wide).
	ImportMemory(ctx context.Context, projectID, userID int64, entries []index.MemoryImportEntry) (int, error)
}

// MemoryFiles reads and writes the TMX files of memory imports and
// exports (sync.MemoryFiles, over formats/tmx, which api may not import).
type MemoryFiles interface {
	// DecodeMemoryTMX reads a TMX document of at most maxBytes bytes; a
	// document refused is an ErrInvalid with a message for users.
	DecodeMemoryTMX(r io.Reader, maxBytes int64) ([]index.MemoryImportEntry, error)
	// EncodeMemoryTMX writes a TMX document of the entries each writes.
	EncodeMemoryTMX(w io.Writer, sourceLanguage string, each func(write func(index.MemoryEntry) error) error) error
}

// Limits of the lookup, the reference's (§5.4).
const (
	maxLookupStrings = 100
	maxLookupChars   = 2000
)

func (s *Server) memoryRoutes(r *edge.Router) {
	r.Resource("/api/memory/", "Memory List", "GET, HEAD, OPTIONS", edge.Handlers{Get: s.listMemory})
	r.Resource("/api/memory/lookup/", "Memory Lookup", "POST, OPTIONS", edge.Handlers{Post: s.lookupMemory})
	r.Resource("/api/memory/import/", "Memory Import", "POST, OPTIONS", edge.Handlers{Post: s.importMemory})
	r.Resource("/api/memory/export/", "Memory Export", "GET, HEAD, OPTIONS", edge.Handlers{Get: s.exportMemory})
	r.Resource("/api/memory/:id/", "Memory Instance", "GET, DELETE, HEAD, OPTIONS",
		edge.Handlers{Get: s.getMemory, Delete: s.deleteMemory})
}

// memoryJSON is the reference's MemorySerializer, a model serializer
// whose relations are primary keys: the project is its id (null for a
// site-wide entry); the languages, whose primary keys in the reference
// are ids that Tolk's languages do not have, are their codes, which the
// filters take too. Tolk adds context and status, which the reference's
// model has and its serializer leaves out.
type memoryJSON struct {
	ID             int64  `json:"id"`
	Source         string `json:"source"`
	Target         string `json:"target"`
	SourceLanguage string `json:"source_language"`
	TargetLanguage string `json:"target_language"`
	Origin         string `json:"origin"`
	Project        *int64 `json:"project"`
	FromFile       bool   `json:"from_file"`
	Shared         bool   `json:"shared"`
	Context        string `json:"context"`
	Status         int    `json:"status"`
}

func newMemoryJSON(e *index.MemoryEntry) memoryJSON {
	j := memoryJSON{ID: e.ID, Source: e.Source, Target: e.Target, SourceLanguage: e.SourceLanguage,
		TargetLanguage: e.TargetLanguage, Origin: e.Origin, FromFile: e.Imported, Shared: e.Shared,
		Context: e.Context, Status: int(e.Status)}
	if e.ProjectID != 0 {
		j.Project = ptr(e.ProjectID)
	}
	return j
}

// memoryReader returns the signed-in principal's filter base: those who
// manage the memory (memory.manage, superusers) see every entry, others
// those of the projects they may see and the site-wide ones.
func (s *Server) memoryReader(c *gin.Context) (index.MemoryFilter, error) {
	p := edge.Principal(c)
	if p.Anonymous() {
		return index.MemoryFilter{}, edge.ErrNotSignedIn
	}
	if p.CanRead(index.PermMemoryManage, 0) {
		return index.MemoryFilter{}, nil
	}
	hidden, err := s.edge.HiddenProjects(c)
	return index.MemoryFilter{Hidden: hidden}, err
}

// memoryFilter reads the list's and the export's filters: source (a
// case-insensitive substring), source_language, target_language and
// project (a slug the reader may see), each 400 when it names nothing.
func (s *Server) memoryFilter(c *gin.Context) (index.MemoryFilter, error) {
	f, err := s.memoryReader(c)
	if err != nil {
		return f, err
	}
	problems := map[string]index.FieldProblem{}
	f.Source = c.Query("source")
	for _, l := range []struct {
		name string
		dst  *string
	}{{"source_language", &f.SourceLanguage}, {"target_language", &f.TargetLanguage}} {
		if v := c.Query(l.name); v != "" {
			code, ok := s.memoryLanguage(c.Request.Context(), v)
			if !ok {
				problems[l.name] = invalidChoice
				continue
			}
			*l.dst = code
		}
	}
	if v := c.Query("project"); v != "" {
		p, err := s.visibleProject(c, v)
		switch {
		case errors.Is(err, index.ErrNotFound):
			problems["project"] = invalidChoice
		case err != nil:
			return f, err
		default:
			f.ProjectID = p.ID
		}
	}
	if len(problems) > 0 {
		return f, &index.FieldError{Fields: problems}
	}
	return f, nil
}

// invalidChoice is the reference's filter answer for a value that names
// nothing.
var invalidChoice = index.FieldProblem{Code: "invalid_choice",
	Detail: "Select a valid choice. That choice is not one of the available choices."}

// visibleProject finds a project by slug, ErrNotFound when the reader
// may not see it.
func (s *Server) visibleProject(c *gin.Context, slug string) (index.Project, error) {
	p, err := s.store.FindProject(c.Request.Context(), slug)
	if err == nil && !edge.Principal(c).CanView(&p) {
		err = index.Errorf(index.ErrNotFound, "Not found.")
	}
	return p, err
}

// memoryLanguage resolves a language code as clients and files write it
// ("de-DE", "pt_br", an alias) to the code of a language Tolk has: the
// code itself, its alias, or else its base language (TMX files name
// regions, "en-US", where projects have "en"; a memory keyed by a
// language no component uses would answer no lookup).
func (s *Server) memoryLanguage(ctx context.Context, code string) (string, bool) {
	if code == "" || len(code) > 64 || !utf8.ValidString(code) {
		return "", false
	}
	norm := langdata.NormalizeCode(code)
	candidates := []string{norm}
	if l, ok := langdata.Default().Resolve(code); ok {
		candidates = append(candidates, l.Code)
	}
	if base, _, ok := strings.Cut(norm, "_"); ok {
		candidates = append(candidates, base)
	}
	for _, c := range candidates {
		if l, err := s.store.FindLanguage(ctx, c); err == nil {
			return l.Code, true
		}
	}
	return "", false
}

// listMemory serves GET /api/memory/.
func (s *Server) listMemory(c *gin.Context) {
	f, err := s.memoryFilter(c)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	entries, pg, err := fetchPage(c, func(p index.Page) ([]index.MemoryEntry, int, error) {
		return s.store.FindMemory(c.Request.Context(), f, p)
	})
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	out := make([]memoryJSON, len(entries))
	for i := range entries {
		out[i] = newMemoryJSON(&entries[i])
	}
	s.edge.WriteJSON(c, http.StatusOK, newList(c, s.edge.URLsFor(c), pg, out))
}

// findMemory reads the entry of the path's id that the reader may see:
// 404 for one of a project it may not see.
func (s *Server) findMemory(c *gin.Context) (index.MemoryEntry, error) {
	f, err := s.memoryReader(c)
	if err != nil {
		return index.MemoryEntry{}, err
	}
	id, err := pathID(c, "id")
	if err != nil {
		return index.MemoryEntry{}, err
	}
	e, err := s.store.FindMemoryEntry(c.Request.Context(), id)
	if err == nil && e.ProjectID != 0 {
		for _, h := range f.Hidden {
			if h == e.ProjectID {
				return e, edge.ErrNoRoute
			}
		}
	}
	return e, err
}

// getMemory serves GET /api/memory/<id>/.
func (s *Server) getMemory(c *gin.Context) {
	e, err := s.findMemory(c)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	s.edge.WriteJSON(c, http.StatusOK, newMemoryJSON(&e))
}

// deleteMemory serves DELETE /api/memory/<id>/: memory.delete in the
// entry's project (memory.manage for a site-wide entry). A unit's entry
// is its current translation, and is 400: deleting it would have to
// hide the string from the memory while the project still shows it;
// edit or delete the string instead.
func (s *Server) deleteMemory(c *gin.Context) {
	e, err := s.findMemory(c)
	if err == nil && !edge.Principal(c).Can(index.PermMemoryManage, 0) {
		err = edge.Authorize(c, index.PermMemoryDelete, e.ProjectID, "")
		if e.ProjectID == 0 {
			err = edge.Authorize(c, index.PermMemoryManage, 0, "")
		}
	}
	if err == nil {
		err = s.store.DeleteMemoryEntry(c.Request.Context(), e.ID)
	}
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	noContent(c)
}

// lookupResultJSON is one answer of the lookup, in input order.
type lookupResultJSON struct {
	Query string           `json:"query"`
	Match *lookupMatchJSON `json:"match"`
}

type lookupMatchJSON struct {
	ID      int64  `json:"id"`
	Source  string `json:"source"`
	Target  string `json:"target"`
	Origin  string `json:"origin"`
	Exact   bool   `json:"exact"`
	Quality int    `json:"quality"`
}

// lookupMemory serves POST /api/memory/lookup/?source_language=&target_language=[&project=][&exact=true]
// with {"strings": [...]}: each string's best match, exact ones first,
// else the best fuzzy one at the default threshold (80). Tolk also takes
// threshold (1–100) in the query, which the reference does not.
func (s *Server) lookupMemory(c *gin.Context) {
	qs, err := s.lookupQueries(c)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	res, err := s.store.LookupMemoryMany(c.Request.Context(), qs)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	out := make([]lookupResultJSON, len(qs))
	for i, q := range qs {
		out[i].Query = q.Text
		if len(res[i]) > 0 {
			m := res[i][0]
			out[i].Match = &lookupMatchJSON{ID: m.ID, Source: m.Source, Target: m.Target, Origin: m.Origin,
				Exact: m.Exact, Quality: m.Quality}
		}
	}
	s.edge.WriteJSON(c, http.StatusOK, out)
}

// lookupQueries reads a lookup's parameters and body, every problem in
// one 400.
func (s *Server) lookupQueries(c *gin.Context) ([]index.MemoryQuery, error) {
	if edge.Principal(c).Anonymous() {
		return nil, edge.ErrNotSignedIn
	}
	p, err := readPayload(c)
	if err != nil {
		return nil, err
	}
	// The parameters are the query's, as the reference's; a body that
	// carries them too serves clients that send one JSON object.
	param := func(name string) string {
		if v := c.Query(name); v != "" {
			return v
		}
		if p.has(name) {
			v, _ := p.text(name, false, true)
			return v
		}
		return ""
	}
	problems := map[string]index.FieldProblem{}
	// The lookup has strings, not units: no context to penalize. The
	// caller's personal scope (their own translations in projects they
	// may still read) answers too, as the reference's lookup passes the
	// user.
	hidden, err := s.edge.HiddenProjects(c)
	if err != nil {
		return nil, err
	}
	base := index.MemoryQuery{NoContext: true, Hidden: hidden}
	if who := edge.Principal(c); who.ScopeProjectID == 0 {
		// A token narrowed to one project reads no other project's
		// strings, the user's own included.
		base.UserID = who.User.ID
	}
	for _, l := range []struct {
		name string
		dst  *string
	}{{"source_language", &base.SourceLanguage}, {"target_language", &base.TargetLanguage}} {
		v := param(l.name)
		if v == "" {
			problems[l.name] = index.FieldProblem{Code: "required", Detail: "This field is required."}
			continue
		}
		code, ok := s.memoryLanguage(c.Request.Context(), v)
		if !ok {
			problems[l.name] = invalidChoice
			continue
		}
		*l.dst = code
	}
	if v := param("project"); v != "" {
		proj, err := s.visibleProject(c, v)
		switch {
		case errors.Is(err, index.ErrNotFound):
			problems["project"] = invalidChoice
		case err != nil:
			return nil, err
		default:
			base.ProjectID = proj.ID
		}
	}
	if v := c.Query("threshold"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 100 {
			problems["threshold"] = index.FieldProblem{Code: "invalid", Detail: "Enter a whole number from 1 to 100."}
		}
		base.Threshold = n
	}
	if v := strings.ToLower(c.Query("exact")); v == "true" || v == "1" {
		base.Threshold = 100
	}
	strs, _ := p.texts("strings", true)
	if len(strs) > maxLookupStrings {
		p.fail("strings", "max_length", fmt.Sprintf("Ensure this field has no more than %d elements.", maxLookupStrings))
	}
	for i, str := range strs {
		if utf8.RuneCountInString(str) > maxLookupChars {
			p.fail("strings", "max_length", fmt.Sprintf("Item %d: ensure this field has no more than %d characters.",
				i+1, maxLookupChars))
			break
		}
	}
	if err := p.err(); err != nil {
		var fe *index.FieldError
		if !errors.As(err, &fe) {
			return nil, err
		}
		for k, v := range fe.Fields {
			problems[k] = v
		}
	}
	if len(problems) > 0 {
		return nil, &index.FieldError{Fields: problems}
	}
	qs := make([]index.MemoryQuery, len(strs))
	for i, str := range strs {
		qs[i] = base
		qs[i].Text = str
	}
	return qs, nil
}

// Bounds of an import: the upload limit of the files (MaxUploadBytes),
// and of entries, whatever their size.
const maxImportEntries = 200000

// importMemory serves POST /api/memory/import/, multipart: file (TMX
// 1.4, or the reference's JSON list of {source, target,
// source_language, target_language, origin, context}), and project (a
// slug: the entries are that project's, memory.edit there; without it
// they are site-wide, memory.manage). Everything is stored or nothing;
// the answer counts what was new: {"imported": N, "skipped": M}.
func (s *Server) importMemory(c *gin.Context) {
	form, err := s.readMemoryForm(c)
	if err == nil {
		form.projectID, err = s.authorizeImport(c, form.project)
	}
	var entries []index.MemoryImportEntry
	if err == nil {
		entries, err = s.decodeMemoryFile(c.Request.Context(), form)
	}
	var n int
	if err == nil {
		n, err = s.store.ImportMemory(c.Request.Context(), form.projectID, edge.Principal(c).User.ID, entries)
	}
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	s.edge.WriteJSON(c, http.StatusOK, gin.H{"imported": n, "skipped": len(entries) - n})
}

// memoryForm is an import's multipart body.
type memoryForm struct {
	file      []byte
	filename  string
	project   string
	projectID int64
}

func fileProblem(detail string) error {
	return &index.FieldError{Fields: map[string]index.FieldProblem{"file": {Code: "invalid", Detail: detail}}}
}

// readMemoryForm reads the multipart body: the file (at most
// MaxUploadBytes) and the project field.
func (s *Server) readMemoryForm(c *gin.Context) (memoryForm, error) {
	var form memoryForm
	if edge.Principal(c).Anonymous() {
		return form, edge.ErrNotSignedIn
	}
	mt, params, err := mime.ParseMediaType(c.GetHeader("Content-Type"))
	if err != nil || mt != "multipart/form-data" || params["boundary"] == "" {
		return form, &edge.RequestError{Status: http.StatusUnsupportedMediaType, Code: "unsupported_media_type",
			Detail: "Send the file as multipart/form-data."}
	}
	limit := s.opts.MaxUploadBytes
	c.Request.Body = http.MaxBytesReader(c.Writer, c.Request.Body, limit+64<<10)
	closing := edge.WatchClosing(c.Request)
	mr, err := c.Request.MultipartReader()
	if err != nil {
		return form, fileProblem("The submitted data was not a file. Check the encoding type on the form.")
	}
	seen := false
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			var tooBig *http.MaxBytesError
			if errors.As(err, &tooBig) {
				return form, fileProblem(fmt.Sprintf("The file is larger than %d bytes.", limit))
			}
			return form, fileProblem("The submitted data was not a file. Check the encoding type on the form.")
		}
		switch part.FormName() {
		case "file":
			if part.FileName() == "" {
				return form, fileProblem("The submitted data was not a file. Check the encoding type on the form.")
			}
			b, err := io.ReadAll(io.LimitReader(part, limit+1))
			if err != nil || int64(len(b)) > limit {
				return form, fileProblem(fmt.Sprintf("The file is larger than %d bytes.", limit))
			}
			form.file, form.filename, seen = b, part.FileName(), true
		case "project":
			b, err := io.ReadAll(io.LimitReader(part, 1024))
			if err != nil {
				return form, fileProblem("The submitted data was not a file. Check the encoding type on the form.")
			}
			form.project = strings.TrimSpace(string(b))
		}
		part.Close()
	}
	if err := closing.Check(); err != nil {
		return form, fileProblem("The submitted data was not a file. Check the encoding type on the form.")
	}
	if !seen {
		return form, &index.FieldError{Fields: map[string]index.FieldProblem{
			"file": {Code: "required", Detail: "No file was submitted."}}}
	}
	return form, nil
}

// authorizeImport checks memory.edit in the form's project, or
// memory.manage for a site-wide import, and returns the project's id (0
// for site-wide).
func (s *Server) authorizeImport(c *gin.Context, slug string) (int64, error) {
	if slug == "" {
		return 0, edge.Authorize(c, index.PermMemoryManage, 0, "")
	}
	// A project the user may not see is missing, as in a path.
	p, err := s.visibleProject(c, slug)
	if errors.Is(err, index.ErrNotFound) {
		return 0, edge.ErrNoRoute
	}
	if err != nil {
		return 0, err
	}
	return p.ID, edge.Authorize(c, index.PermMemoryEdit, p.ID, "")
}

// decodeMemoryFile reads the file as TMX (a .tmx name, or content that
// starts with "<") or as the reference's JSON, and resolves every
// language; the first problem is the 400, and nothing is stored.
func (s *Server) decodeMemoryFile(ctx context.Context, form memoryForm) ([]index.MemoryImportEntry, error) {
	var entries []index.MemoryImportEntry
	var err error
	head := strings.TrimLeft(string(form.file[:min(len(form.file), 512)]), "\ufeff \t\r\n")
	switch {
	case strings.HasSuffix(strings.ToLower(form.filename), ".tmx") || strings.HasPrefix(head, "<"):
		if s.opts.MemoryFiles == nil {
			return nil, fileProblem("TMX files are not read here.")
		}
		entries, err = s.opts.MemoryFiles.DecodeMemoryTMX(strings.NewReader(string(form.file)), s.opts.MaxUploadBytes)
		if err != nil {
			if msg := index.ErrorMessage(err); msg != "" {
				return nil, fileProblem(msg)
			}
			return nil, err
		}
	default:
		if entries, err = decodeMemoryJSON(form.file); err != nil {
			return nil, err
		}
	}
	if len(entries) > maxImportEntries {
		return nil, fileProblem(fmt.Sprintf("The file holds more than %d entries.", maxImportEntries))
	}
	origin := form.filename
	for i := range entries {
		e := &entries[i]
		for _, l := range []*string{&e.SourceLanguage, &e.TargetLanguage} {
			code, ok := s.memoryLanguage(ctx, *l)
			if !ok {
				return nil, fileProblem(fmt.Sprintf("Entry %d: unknown language code %q.", i+1, *l))
			}
			*l = code
		}
		if e.Source == "" || e.Target == "" {
			return nil, fileProblem(fmt.Sprintf("Entry %d: the source and the target must not be empty.", i+1))
		}
		if strings.ContainsRune(e.Source+e.Target+e.Context+e.Origin, 0) {
			return nil, fileProblem(fmt.Sprintf("Entry %d: null characters are not allowed.", i+1))
		}
		if e.Origin == "" {
			e.Origin = origin
		}
		if len(e.Origin) > 500 {
			e.Origin = e.Origin[:500]
		}
	}
	return entries, nil
}

// memoryJSONEntry is one entry of the reference's JSON dump (§5.2):
// category and status are read and not kept (Tolk's scope is the
// import's project, and imported entries are active).
type memoryJSONEntry struct {
	Source         *string `json:"source"`
	Target         *string `json:"target"`
	SourceLanguage *string `json:"source_language"`
	TargetLanguage *string `json:"target_language"`
	Origin         string  `json:"origin"`
	Context        string  `json:"context"`
	Category       int64   `json:"category"`
	Status         int     `json:"status"`
}

func decodeMemoryJSON(b []byte) ([]index.MemoryImportEntry, error) {
	if !utf8.Valid(b) {
		return nil, fileProblem("Could not parse the file: it is not UTF-8.")
	}
	var raw []memoryJSONEntry
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, fileProblem("Could not parse the file: it is neither TMX nor a JSON list of entries: " + err.Error())
	}
	out := make([]index.MemoryImportEntry, len(raw))
	for i, r := range raw {
		for name, v := range map[string]*string{"source": r.Source, "target": r.Target,
			"source_language": r.SourceLanguage, "target_language": r.TargetLanguage} {
			if v == nil {
				return nil, fileProblem(fmt.Sprintf("Entry %d: %s is required.", i+1, name))
			}
		}
		out[i] = index.MemoryImportEntry{Source: *r.Source, Target: *r.Target, SourceLanguage: *r.SourceLanguage,
			TargetLanguage: *r.TargetLanguage, Origin: r.Origin, Context: r.Context}
	}
	return out, nil
}

// exportMemory serves GET /api/memory/export/?format=json|tmx with the
// list's filters: every entry the reader may see, streamed (the
// reference's /memory/download/, which the API lacks). JSON is the
// reference's dump format; TMX is served as application/x-tmx.
func (s *Server) exportMemory(c *gin.Context) {
	f, err := s.memoryFilter(c)
	format := c.DefaultQuery("format", "json")
	if err == nil && format != "json" && format != "tmx" {
		err = &index.FieldError{Fields: map[string]index.FieldProblem{"format": invalidChoice}}
	}
	if err == nil && format == "tmx" && s.opts.MemoryFiles == nil {
		err = &index.FieldError{Fields: map[string]index.FieldProblem{
			"format": {Code: "invalid", Detail: "TMX files are not written here."}}}
	}
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	ctx := c.Request.Context()
	name := "memory." + format
	ctype := "application/json"
	if format == "tmx" {
		ctype = "application/x-tmx"
	}
	c.Header("Content-Type", ctype)
	c.Header("Content-Disposition", `attachment; filename="`+name+`"`)
	c.Status(http.StatusOK)
	if c.Request.Method == http.MethodHead {
		return
	}
	w := bufio.NewWriterSize(c.Writer, 64<<10)
	if format == "tmx" {
		err = s.opts.MemoryFiles.EncodeMemoryTMX(w, f.SourceLanguage, func(write func(index.MemoryEntry) error) error {
			return s.store.EachMemory(ctx, f, write)
		})
	} else {
		err = writeMemoryJSON(ctx, w, s.store, f)
	}
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		// The status is sent: a broken stream is all the client can be
		// told, and the log says why.
		_ = c.Error(fmt.Errorf("memory export: %w", err))
		c.Abort()
	}
}

// writeMemoryJSON writes the entries as the reference's JSON dump, one
// entry at a time.
func writeMemoryJSON(ctx context.Context, w io.Writer, store memoryStore, f index.MemoryFilter) error {
	if _, err := io.WriteString(w, "["); err != nil {
		return err
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	first := true
	err := store.EachMemory(ctx, f, func(e index.MemoryEntry) error {
		if !first {
			if _, err := io.WriteString(w, ","); err != nil {
				return err
			}
		}
		first = false
		category := int64(1) // the reference's global category
		if e.ProjectID != 0 {
			category = 10000000 + e.ProjectID // its project categories
		}
		return enc.Encode(map[string]any{"source": e.Source, "target": e.Target,
			"source_language": e.SourceLanguage, "target_language": e.TargetLanguage, "origin": e.Origin,
			"context": e.Context, "category": category, "status": int(e.Status)})
	})
	if err != nil {
		return err
	}
	_, err = io.WriteString(w, "]\n")
	return err
}
