package api

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"path"
	"sort"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/tolk-project/tolk/index"
)

// FileFormat is a file format components may use, as the API needs to
// know it. api does not import formats: cmd/tolk converts the formats
// registry into Options.FileFormats.
type FileFormat struct {
	// Name is the reference's file_format identifier.
	Name string
	// Monolingual formats need a template; the others must not have one,
	// except those whose template is optional (XLIFF).
	Monolingual, TemplateOptional bool
	// OneFile formats keep every language in one file (Apple's String
	// Catalog): the filemask is that file's path, without `*`.
	OneFile bool
	// ContentType and Extension are what a download is served as, as
	// the reference's format classes declare them (mimetype(),
	// extension()); the extension is used when a file name has none.
	ContentType, Extension string
}

// defaultFileFormats are the formats of a Server whose Options list none.
var defaultFileFormats = []FileFormat{
	{Name: "json", Monolingual: true, ContentType: "application/json; charset=utf-8", Extension: ".json"},
	{Name: "tbx", ContentType: "application/x-tbx", Extension: ".tbx"},
}

// fileFormat returns the format named name; ok is false for one the
// server does not know.
func (o *Options) fileFormat(name string) (FileFormat, bool) {
	for _, f := range o.FileFormats {
		if f.Name == name {
			return f, true
		}
	}
	return FileFormat{}, false
}

// errNoFile is the reference's answer for a translation without a file of
// its own, such as the source of a glossary.
var errNoFile = index.Errorf(index.ErrNotFound, "No translation file!")

// errZipFormat is the reference's answer when a zip download is asked for
// in another format.
var errZipFormat = index.Errorf(index.ErrNotFound, "Not supported format")

// getTranslationFile serves GET .../translations/:project/:component/:language/file/:
// the translation's file as committed with its pending edits applied
// (translationFile). The reference's client sends Accept:
// application/json here too, and gets the file.
func (s *Server) getTranslationFile(c *gin.Context) {
	repos, ok := s.repositories(c)
	if !ok {
		return
	}
	if f := c.Query("format"); f != "" && f != "api" {
		// The reference converts to other formats; Tolk serves the file
		// as it is. format=api is not a conversion: the spec lets it
		// follow any URL, and file_url carries it in format=api bodies.
		s.edge.Fail(c, &index.FieldError{Fields: map[string]index.FieldProblem{
			"format": {Code: "invalid", Detail: fmt.Sprintf("Conversion to %s is not supported", f)},
		}})
		return
	}
	t, err := s.edge.FindTranslation(c)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	if t.Filename == "" {
		s.edge.Fail(c, errNoFile)
		return
	}
	data, err := s.translationFile(c.Request.Context(), repos, t)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	ft, _ := s.opts.fileFormat(t.Component.FileFormat)
	if ft.ContentType == "" {
		ft.ContentType = "application/octet-stream"
	}
	ext := path.Ext(t.Filename)
	if ext == "" {
		ext = ft.Extension
	}
	// Like the reference, name the download after the translation, not
	// the file: de.json from two components would collide.
	name := t.Component.Project.Slug + "-" + t.Component.Slug + "-" + t.LanguageCode + ext
	lastModified := t.Stats.LastChange
	if lastModified.IsZero() {
		lastModified = time.Now()
	}
	// The reference leaves this name unquoted (and quotes zip names).
	s.writeFile(c, data, ft.ContentType, "attachment; filename="+name, lastModified)
}

// translationFile returns what a download of t holds. The reference
// commits pending edits before a download; Tolk does not commit yet, so
// it renders the committed file with the pending targets applied, which
// is what that commit would write: the same bytes but for the edited
// values. Without Options.Files it is the committed file.
func (s *Server) translationFile(ctx context.Context, repos Repositories, t index.Translation) ([]byte, error) {
	if s.opts.Files == nil {
		return repos.ReadFile(ctx, t.Component, t.Filename)
	}
	pending, err := s.store.FindPendingUnits(ctx, t.ID)
	if err != nil {
		return nil, err
	}
	return s.opts.Files.RenderTranslation(ctx, t, pending)
}

// writeFile sends a download with its Content-Disposition.
func (s *Server) writeFile(c *gin.Context, data []byte, contentType, disposition string, modified time.Time) {
	h := c.Writer.Header()
	h.Set("Content-Type", contentType)
	h.Set("Content-Disposition", disposition)
	h.Set("Content-Length", strconv.Itoa(len(data)))
	if !modified.IsZero() {
		h.Set("Last-Modified", modified.UTC().Format(http.TimeFormat))
	}
	c.Status(http.StatusOK)
	c.Writer.Write(data)
}

// getComponentFile serves GET /api/components/:project/:component/file/:
// a zip of the component's translation files, which the reference's
// client derives from repository_url.
func (s *Server) getComponentFile(c *gin.Context) {
	repos, ok := s.repositories(c)
	if !ok || !s.zipFormat(c) {
		return
	}
	comp, err := s.edge.FindComponent(c)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	s.writeZip(c, repos, []index.Component{comp}, comp.Project.Slug+"-"+comp.Slug)
}

// getProjectFile serves GET /api/projects/:project/file/: a zip of the
// translation files of every component of the project.
func (s *Server) getProjectFile(c *gin.Context) {
	repos, ok := s.repositories(c)
	if !ok || !s.zipFormat(c) {
		return
	}
	p, comps, err := s.findProjectComponents(c)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	s.writeZip(c, repos, comps, p.Slug)
}

// zipFormat accepts only the zip the endpoints make (the reference also
// converts), and format=api, which the spec lets follow any URL.
func (s *Server) zipFormat(c *gin.Context) bool {
	if f := c.Query("format"); f != "" && f != "zip" && f != "api" {
		s.edge.Fail(c, errZipFormat)
		return false
	}
	return true
}

// writeZip sends the translation files of comps, with their pending
// edits (translationFile), as name.zip. Entries are named
// project/component/path, as the reference names them relative to its
// repositories' root, so the files of two components never collide. A component without a checkout yet adds
// nothing. Each entry is dated by its translation's last change, so the
// same files always make the same archive.
func (s *Server) writeZip(c *gin.Context, repos Repositories, comps []index.Component, name string) {
	ctx := c.Request.Context()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, comp := range comps {
		trs, err := s.store.FindTranslations(ctx, comp.ID)
		if err != nil {
			s.edge.Fail(c, err)
			return
		}
		// One entry per file, whichever translation names it first.
		sort.SliceStable(trs, func(i, j int) bool { return trs[i].Filename < trs[j].Filename })
		for i, t := range trs {
			f := t.Filename
			if f == "" || (i > 0 && f == trs[i-1].Filename) {
				continue
			}
			data, err := s.translationFile(ctx, repos, t)
			if errors.Is(err, index.ErrNotFound) {
				continue // not cloned yet, or gone since the last import
			}
			if err != nil {
				s.edge.Fail(c, err)
				return
			}
			w, err := zw.CreateHeader(&zip.FileHeader{
				Name:     comp.Project.Slug + "/" + comp.Slug + "/" + f,
				Method:   zip.Deflate,
				Modified: t.Stats.LastChange,
			})
			if err == nil {
				_, err = w.Write(data)
			}
			if err != nil {
				s.edge.Fail(c, fmt.Errorf("zip %s: %w", f, err))
				return
			}
		}
	}
	if err := zw.Close(); err != nil {
		s.edge.Fail(c, fmt.Errorf("zip: %w", err))
		return
	}
	s.writeFile(c, buf.Bytes(), "application/zip", `attachment; filename="`+name+`.zip"`, time.Time{})
}
