package edge

import (
	"errors"

	"github.com/gin-gonic/gin"
	"github.com/tolk-project/tolk/index"
)

// FindProject resolves the project named by the request path; a private
// one the principal may not see is not found.
func (s *Server) FindProject(c *gin.Context) (index.Project, error) {
	p, err := s.store.FindProject(c.Request.Context(), c.Param("project"))
	if err == nil {
		err = Visible(c, &p)
	}
	return p, err
}

// FindComponent resolves the component named by the request path, by
// its slug or its full slug (splitComponentPath); one in a private
// project the principal may not see is not found.
func (s *Server) FindComponent(c *gin.Context) (index.Component, error) {
	cats, slug, ok := splitComponentPath(c.Param("component"))
	if !ok {
		return index.Component{}, errComponentPath
	}
	comp, err := s.store.FindComponent(c.Request.Context(), c.Param("project"), slug)
	if err == nil && !inCategories(&comp, cats) {
		return index.Component{}, errComponentPath
	}
	if err == nil {
		err = Visible(c, &comp.Project)
	}
	return comp, err
}

// FindTranslation resolves the translation named by the request path,
// its component named as FindComponent reads it; one in a private
// project the principal may not see is not found.
func (s *Server) FindTranslation(c *gin.Context) (index.Translation, error) {
	cats, slug, ok := splitComponentPath(c.Param("component"))
	if !ok {
		return index.Translation{}, errComponentPath
	}
	t, err := s.store.FindTranslation(c.Request.Context(), c.Param("project"), slug, c.Param("language"))
	if err == nil && !inCategories(&t.Component, cats) {
		return index.Translation{}, errComponentPath
	}
	if err == nil {
		err = Visible(c, &t.Component.Project)
	}
	return t, err
}

// SourceLanguage returns a component's source language. A code missing
// from the language table still names a language: it gets the defaults
// the index gives translations into unknown languages, rather than making
// the whole translation unreadable.
func (s *Server) SourceLanguage(c *gin.Context, code string) (index.Language, error) {
	l, err := s.store.FindLanguage(c.Request.Context(), code)
	if errors.Is(err, index.ErrNotFound) {
		return index.Language{Code: code, Name: code, Direction: "ltr",
			Plural: index.Plural{Number: 2, Formula: "n != 1", Type: 1}}, nil
	}
	return l, err
}

// LanguageStats returns the language the path names and its statistics
// summed over the projects the principal may see. Summing only those,
// rather than showing everyone the sum over all projects, keeps a private
// project's numbers (and, by difference, its size) from those who may not
// see it.
func (s *Server) LanguageStats(c *gin.Context) (index.Language, index.Stats, error) {
	ctx := c.Request.Context()
	l, err := s.store.FindLanguage(ctx, c.Param("code"))
	if err != nil {
		return l, index.Stats{}, err
	}
	hidden, err := s.HiddenProjects(c)
	if err != nil {
		return l, index.Stats{}, err
	}
	st, err := s.store.LanguageStats(ctx, l.Code, hidden...)
	return l, st, err
}
