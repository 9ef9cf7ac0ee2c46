package web

import (
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/tolk-project/tolk/edge"
	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/machinery"
)

// The editor's machine translation endpoint, as the reference's
// POST /js/translate/<service>/<unit_id>/ (reference workspace §6.2,
// weblate/machinery/views.py handle_machinery): the page asks each of the
// project's services separately, so a fast one (the memory, other
// components) answers in milliseconds while slower engines are still
// working, and a broken one delays only its own box. It lives with the
// pages, not the REST API: it answers the editor's script, with the
// session's CSRF token (or an API token), in the reference's shape
// rather than the API's error envelope.

// DefaultMachineryRateLimit is how many engine calls one user may make
// through the editor: the reference limits machinery per user too
// (docs/user/translating.rst, "Rate limiting"); an engine may bill per
// call, and a script should not run a project's quota dry.
var DefaultMachineryRateLimit = edge.RateLimit{Requests: 600, Period: time.Minute}

// machineryAnswer is the reference's answer: responseStatus 200 with the
// candidates, or 500 (as a 200 HTTP answer, as the reference sends it)
// with what went wrong in responseDetails, naming the engine.
type machineryAnswer struct {
	ResponseStatus  int                  `json:"responseStatus"`
	ResponseDetails string               `json:"responseDetails"`
	Translations    []machineryCandidate `json:"translations"`
	Lang            string               `json:"lang"`
	Dir             string               `json:"dir"`
	Service         string               `json:"service"`
}

// machineryCandidate is one suggestion, with the reference's keys;
// plural_form says which source form it translates.
type machineryCandidate struct {
	Text        string  `json:"text"`
	Quality     int     `json:"quality"`
	Service     string  `json:"service"`
	Source      string  `json:"source"`
	Origin      *string `json:"origin"`
	ShowQuality bool    `json:"show_quality"`
	PluralForm  int     `json:"plural_form"`
}

// errNoService is the reference's 404 for an identifier no service has.
var errNoService = index.Errorf(index.ErrNotFound, "Invalid service specified")

// machineryTranslate serves POST /js/translate/:service/:unit/. The
// checks come in the reference's order, and a private project's unit is
// a 404 to whoever may not see it, as a missing one: sign-in and CSRF,
// the unit, machinery.view in its project, the service; then the
// per-user limit on engine calls, then one call under the engine's own
// deadline. The engine's failures are answers (responseStatus 500 with
// the engine's name and reason), never a page error.
func (s *Server) machineryTranslate(c *gin.Context) {
	who := edge.Principal(c)
	var err error
	if edge.ViaSession(c) {
		err = s.edge.CheckCSRF(c, c.GetHeader(edge.CSRFHeader))
	}
	if err == nil && who.Anonymous() {
		err = edge.ErrNotSignedIn
	}
	var t index.Translation
	var u index.Unit
	if err == nil {
		u, t, err = s.machineryUnit(c)
	}
	if err == nil {
		err = edge.Authorize(c, index.PermMachineryView, t.Component.ProjectID, "")
	}
	var svc *machinery.Service
	if err == nil {
		var ok bool
		if svc, ok = machinery.Lookup(c.Param("service")); !ok {
			err = errNoService
		}
	}
	if err != nil {
		s.failJSON(c, err)
		return
	}
	ctx := c.Request.Context()
	answer := machineryAnswer{ResponseStatus: http.StatusInternalServerError, Translations: []machineryCandidate{},
		Lang: t.LanguageCode, Dir: t.Language.Direction, Service: svc.Name}
	settings, err := s.store.FindMachinerySettings(ctx, t.Component.ProjectID)
	if err != nil {
		s.failJSON(c, err)
		return
	}
	configured, err := s.opts.Machinery.Find(settings, svc.ID)
	if err != nil {
		answer.ResponseDetails = "Service is currently not available."
		c.JSON(http.StatusOK, answer)
		return
	}
	if ok, reset := s.takeMachinery(who.User.ID); !ok {
		wait := int(math.Ceil(reset.Seconds()))
		c.Header("Retry-After", strconv.Itoa(wait))
		answer.ResponseStatus = http.StatusTooManyRequests
		answer.ResponseDetails = fmt.Sprintf("Too many machine translation requests; try again in %d seconds.", wait)
		c.JSON(http.StatusTooManyRequests, answer)
		return
	}
	hidden, err := s.edge.HiddenProjects(c)
	if err != nil {
		s.failJSON(c, err)
		return
	}
	results, err := s.opts.Machinery.Translate(ctx, configured, machinery.Request{
		SourceLanguage: t.Component.SourceLanguage, TargetLanguage: t.LanguageCode, Texts: u.Source,
		ProjectID: t.Component.ProjectID, ComponentID: t.ComponentID, UnitID: u.ID, Context: u.Context,
		UserID: who.User.ID, Hidden: hidden})
	switch {
	case errors.Is(err, machinery.ErrUnsupported):
		answer.ResponseDetails = svc.Name + ": this language pair is not supported."
	case err != nil:
		answer.ResponseDetails = err.Error() // an *machinery.Error: the engine's name and why
	default:
		answer.ResponseStatus = http.StatusOK
		for form, list := range results {
			for _, r := range list {
				answer.Translations = append(answer.Translations, candidate(r, form))
			}
		}
	}
	c.JSON(http.StatusOK, answer)
}

// takeMachinery counts one engine call of the user against the
// machinery limit, and says whether it may go on and, if not, when it
// may.
func (s *Server) takeMachinery(userID int64) (bool, time.Duration) {
	if s.machineryLimit == nil {
		return true, 0
	}
	ok, _, reset := s.machineryLimit.Take(strconv.FormatInt(userID, 10))
	return ok, reset
}

// machineryUnit finds the path's unit and its translation; a unit of a
// private project the principal may not see is not found.
func (s *Server) machineryUnit(c *gin.Context) (index.Unit, index.Translation, error) {
	id, err := strconv.ParseInt(c.Param("unit"), 10, 64)
	if err != nil || id <= 0 {
		return index.Unit{}, index.Translation{}, edge.ErrNoRoute
	}
	ctx := c.Request.Context()
	u, err := s.store.FindUnitByID(ctx, id)
	if err != nil {
		return u, index.Translation{}, err
	}
	t, err := s.store.FindTranslationByID(ctx, u.TranslationID)
	if err == nil {
		err = edge.Visible(c, &t.Component.Project)
	}
	return u, t, err
}

func candidate(r machinery.Translation, form int) machineryCandidate {
	var origin *string
	if r.Origin != "" {
		origin = &r.Origin
	}
	return machineryCandidate{Text: r.Text, Quality: r.Quality, Service: r.Service, Source: r.Source,
		Origin: origin, ShowQuality: r.ShowQuality, PluralForm: form}
}

// failJSON answers the editor's script with an error the edge raised or
// a lookup returned: the status edge.ErrorResponse gives it, the detail
// in the reference's responseDetails.
func (s *Server) failJSON(c *gin.Context, err error) {
	status, body := edge.ErrorResponse(err)
	if status >= 500 {
		edge.LogFailure(c, s.log, err)
	}
	detail := ""
	for _, e := range body.Errors {
		detail += e.Detail
	}
	c.JSON(status, gin.H{"responseStatus": status, "responseDetails": detail, "translations": []any{}})
}

// machineryBox is one service's box in the editor. A box Filled on the
// server (the memory, web_workspace.go) holds its Results and no URL.
type machineryBox struct {
	Name, URL, ID string
	Filled        bool
	Results       []machineryCandidate
	Lang, Dir     string
	CanUse        bool // the results can go into the text boxes
}

// machineryBoxes are the boxes of the project's services for the unit,
// best rank first, and the project's settings they come from (for
// fillMemoryBox); none when the principal lacks machinery.view.
func (s *Server) machineryBoxes(c *gin.Context, u edge.URLs, t *index.Translation, unitID int64) ([]machineryBox, index.MachinerySettings, error) {
	if !edge.Principal(c).CanTranslation(index.PermMachineryView, t) {
		return nil, index.MachinerySettings{}, nil
	}
	settings, err := s.store.FindMachinerySettings(c.Request.Context(), t.Component.ProjectID)
	if err != nil {
		return nil, settings, err
	}
	var out []machineryBox
	for _, svc := range s.opts.Machinery.Effective(settings) {
		out = append(out, machineryBox{Name: svc.Service.Name, ID: svc.Service.ID,
			URL: u.Abs(edge.Join("js", "translate", svc.Service.ID, strconv.FormatInt(unitID, 10)), "")})
	}
	return out, settings, nil
}
