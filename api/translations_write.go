package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/gin-gonic/gin"
	"github.com/tolk-project/tolk/edge"
	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/langdata"
)

// translationWriteStore is what the translation writes need.
type translationWriteStore interface {
	// CreateTranslation adds a component's translation into a language,
	// its units empty, its file marked for the next commit to create, and
	// returns its id.
	CreateTranslation(ctx context.Context, componentID int64, languageCode, filename string, by index.Actor) (int64, error)
	// DeleteTranslation removes a translation and marks its file for the
	// next commit to remove.
	DeleteTranslation(ctx context.Context, id int64, by index.Actor) error
}

// The reference's refusals of a new translation (check_translation_add).
// Its view words every refusal of translation.add "Can not create
// translation"; Tolk keeps that for a caller without the permission and
// names the reason when the component itself refuses (off or locked).
const (
	msgNewLangOff = "Adding new translations is turned off in the component configuration."
	msgLocked     = "This component is currently locked."
	msgNewLangAsk = "Please contact the project maintainers to add a new translation."
	msgNoAddRight = "Can not create translation"
)

// addedTranslationJSON is the reference's answer to a new translation:
// the translation without its component. The depth-0 Component field
// hides the embedded one from encoding/json.
type addedTranslationJSON struct {
	translationJSON
	Component *struct{} `json:"component,omitempty"`
}

// addTranslation serves POST .../components/P/C/translations/ with
// language_code: the translation is created in the index with every
// string of the source empty and its file is written by the next commit
// (from new_base, or the template emptied). 201 with {"data": …}, as the
// reference wraps it. Records "Language added" (48), which the reference
// records only from its web editor.
func (s *Server) addTranslation(c *gin.Context) {
	comp, err := s.edge.FindComponent(c)
	if err == nil {
		err = s.mayAddTranslation(c, &comp)
	}
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	comps, ok := s.components(c)
	if !ok {
		return
	}
	pl, err := readPayload(c)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	var code string
	pl.require("language_code")
	pl.str("language_code", &code, false)
	if err := pl.err(); err != nil {
		s.edge.Fail(c, err)
		return
	}
	ctx := c.Request.Context()
	lang, err := s.resolveLanguage(ctx, code)
	cannot := index.FieldErr("language_code", "invalid", fmt.Sprintf("Could not add %s!", pyRepr(code)))
	if errors.Is(err, index.ErrNotFound) {
		err = cannot
	}
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	filename, ok := comps.TranslationFilename(comp, lang.Code)
	if !ok {
		s.edge.Fail(c, cannot)
		return
	}
	if _, err := s.store.CreateTranslation(ctx, comp.ID, lang.Code, filename, index.UserActor(edge.Principal(c).User)); err != nil {
		s.edge.Fail(c, err)
		return
	}
	s.translationAdded(comp)
	t, err := s.store.FindTranslation(ctx, comp.Project.Slug, comp.Slug, lang.Code)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	source, err := s.edge.SourceLanguage(c, comp.SourceLanguage)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	u := s.edge.URLsFor(c)
	s.edge.WriteJSON(c, http.StatusCreated, map[string]addedTranslationJSON{
		"data": {translationJSON: newTranslationJSON(u, &t, &source, s.addonURLs(c.Request.Context(), u, t.Component.ID))}})
}

// mayAddTranslation checks the reference's conditions for a new
// translation, in its order: the component allows adding them, is not
// locked, and the caller may add translations (and, unless new_lang is
// "add", manage the component).
func (s *Server) mayAddTranslation(c *gin.Context, comp *index.Component) error {
	switch {
	case comp.NewLang == "none":
		return index.Errorf(index.ErrPermission, msgNewLangOff)
	case comp.Locked:
		return index.Errorf(index.ErrPermission, msgLocked)
	}
	if err := edge.Authorize(c, index.PermTranslationAdd, comp.ProjectID, msgNoAddRight); err != nil {
		return err
	}
	if comp.NewLang != "add" && !edge.Principal(c).Can(index.PermComponentEdit, comp.ProjectID) {
		return index.Errorf(index.ErrPermission, msgNewLangAsk)
	}
	return nil
}

// resolveLanguage finds the language a client means by code: the code as
// stored, else as the language table resolves it ("pt-br", "zh_CN").
func (s *Server) resolveLanguage(ctx context.Context, code string) (index.Language, error) {
	l, err := s.store.FindLanguage(ctx, code)
	if !errors.Is(err, index.ErrNotFound) {
		return l, err
	}
	if known, ok := langdata.Default().Resolve(code); ok && known.Code != code {
		return s.store.FindLanguage(ctx, known.Code)
	}
	return l, err
}

// pyRepr quotes s the way the reference's messages print a value (%r).
func pyRepr(s string) string {
	q := fmt.Sprintf("%q", s)
	return "'" + q[1:len(q)-1] + "'"
}

// deleteTranslation serves DELETE /api/translations/P/C/L/: 204 once the
// translation is out of the index; its file is removed by the next
// commit. The source translation is never removed.
func (s *Server) deleteTranslation(c *gin.Context) {
	t, err := s.edge.FindTranslation(c)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	if err := edge.Authorize(c, index.PermTranslationDelete, t.Component.ProjectID, "Can not delete translation"); err != nil {
		s.edge.Fail(c, err)
		return
	}
	if t.IsSource || t.Component.Locked {
		s.edge.Fail(c, index.Errorf(index.ErrPermission, "Can not delete translation"))
		return
	}
	if err := s.store.DeleteTranslation(c.Request.Context(), t.ID, index.UserActor(edge.Principal(c).User)); err != nil {
		s.edge.Fail(c, err)
		return
	}
	noContent(c)
}
