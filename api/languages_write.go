package api

import (
	"context"
	"net/http"
	"regexp"

	"github.com/gin-gonic/gin"
	"github.com/tolk-project/tolk/edge"
	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/langdata"
)

// languageWriteStore is what the language writes need.
type languageWriteStore interface {
	// CreateLanguage adds a language; a code taken is a
	// *index.FieldError.
	CreateLanguage(ctx context.Context, l index.Language) (index.Language, error)
	// UpdateLanguage applies update to the stored language in one
	// transaction.
	UpdateLanguage(ctx context.Context, code string, update func(*index.Language) error) (index.Language, error)
	// DeleteLanguage removes a language no translation uses.
	DeleteLanguage(ctx context.Context, code string) error
}

// languageCodeRE is the reference's language code validator: letters,
// digits, '-' and '_', with an optional @variant ("sr@latin").
var languageCodeRE = regexp.MustCompile(`^[A-Za-z0-9_-]+(@[A-Za-z0-9_-]+)?$`)

const (
	languageCodeLength = 50
	languageNameLength = 100
	maxPluralForms     = 10
	msgManageLanguages = "Can not manage languages"
)

// readLanguage reads the language fields the body gives into l,
// recording problems; fields it lacks keep l's values. A plural object
// may give only some of its fields on PATCH; its formula is checked
// against its number of forms either way.
func readLanguage(pl *payload, l *index.Language, partial bool) {
	if pl.has("code") {
		pl.str("code", &l.Code, false)
		pl.maxLength("code", l.Code, languageCodeLength)
		if l.Code != "" && !languageCodeRE.MatchString(l.Code) {
			pl.fail("code", "invalid", "Enter a valid language code.")
		}
	}
	pl.str("name", &l.Name, false)
	pl.maxLength("name", l.Name, languageNameLength)
	pl.choice("direction", &l.Direction, []string{"ltr", "rtl"})
	var population int
	if pl.has("population") {
		population = int(l.Population)
		pl.integer("population", &population, 0, 1<<53)
		l.Population = int64(population)
	}
	if !pl.has("plural") {
		return
	}
	sub, ok := pl.object("plural")
	if !ok {
		return
	}
	if !partial {
		sub.require("number", "formula")
	}
	p := l.Plural
	sub.integer("number", &p.Number, 1, maxPluralForms)
	sub.str("formula", &p.Formula, false)
	sub.integer("source", &p.Source, 0, 100)
	if pl.errs.Has("plural.number") || pl.errs.Has("plural.formula") || pl.errs.Has("plural.source") {
		return
	}
	if err := langdata.CheckPlural(p.Number, p.Formula); err != nil {
		sub.fail("formula", "invalid", "Could not evaluate plural formula: "+err.Error())
		return
	}
	p.Type = langdata.Default().PluralType(p.Number, p.Formula)
	l.Plural = p
}

// languageRequired are the fields a language's create and PUT need.
var languageRequired = []string{"code", "name", "plural"}

// readFullLanguage reads a body that gives the whole plural object.
func readFullLanguage(pl *payload, l *index.Language) { readLanguage(pl, l, false) }

// createLanguage serves POST /api/languages/: code, name and plural
// required; 201 with the language.
func (s *Server) createLanguage(c *gin.Context) {
	if err := edge.Authorize(c, index.PermLanguageEdit, 0, msgManageLanguages); err != nil {
		s.edge.Fail(c, err)
		return
	}
	_, l, err := readBody(c, index.Language{Direction: "ltr", Aliases: []string{}}, languageRequired, readFullLanguage)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	if l, err = s.store.CreateLanguage(c.Request.Context(), l); err != nil {
		s.edge.Fail(c, err)
		return
	}
	s.edge.WriteJSON(c, http.StatusCreated, newLanguageJSON(s.edge.URLsFor(c), &l))
}

// writableLanguage resolves the language of the request path for a
// change: 403 without language.edit, then 404 for an unknown code. The
// reference checks the right before it looks the language up, so that
// who may not manage languages learns nothing of the codes.
func (s *Server) writableLanguage(c *gin.Context) (index.Language, error) {
	if err := edge.Authorize(c, index.PermLanguageEdit, 0, msgManageLanguages); err != nil {
		return index.Language{}, err
	}
	return s.store.FindLanguage(c.Request.Context(), c.Param("code"))
}

// updateLanguage serves PUT (partial false: code, name and plural
// required) and PATCH on /api/languages/:code/.
func (s *Server) updateLanguage(partial bool) gin.HandlerFunc {
	return func(c *gin.Context) {
		l, err := s.writableLanguage(c)
		if err != nil {
			s.edge.Fail(c, err)
			return
		}
		read := readFullLanguage
		if partial {
			read = func(pl *payload, l *index.Language) { readLanguage(pl, l, true) }
		}
		pl, _, err := readBody(c, l, requiredUnless(partial, languageRequired...), read)
		if err != nil {
			s.edge.Fail(c, err)
			return
		}
		l, err = s.store.UpdateLanguage(c.Request.Context(), l.Code, func(q *index.Language) error {
			read(pl, q)
			return pl.err()
		})
		if err != nil {
			s.edge.Fail(c, err)
			return
		}
		s.edge.WriteJSON(c, http.StatusOK, newLanguageJSON(s.edge.URLsFor(c), &l))
	}
}

// deleteLanguage serves DELETE /api/languages/:code/: 204, or 400 for a
// language translations still use, where the reference's behaviour is
// undocumented and removing it would orphan them.
func (s *Server) deleteLanguage(c *gin.Context) {
	l, err := s.writableLanguage(c)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	if err := s.store.DeleteLanguage(c.Request.Context(), l.Code); err != nil {
		s.edge.Fail(c, err)
		return
	}
	noContent(c)
}
