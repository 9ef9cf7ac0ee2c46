package api

import (
	"context"
	"net/http"
	"slices"

	"github.com/gin-gonic/gin"
	"github.com/tolk-project/tolk/checks"
	"github.com/tolk-project/tolk/edge"
	"github.com/tolk-project/tolk/index"
)

// The checks endpoints are Tolk's: the reference has no REST endpoint
// that lists a unit's checks or dismisses one (reference workspace §1.7;
// its web UI posts to /js/ignore-check/). They keep its ids and its
// rules: dismissing needs unit.check, an enforced check cannot be
// dismissed, and a dismissed check stops counting as failing.
func (s *Server) checkRoutes(r *edge.Router) {
	r.Resource("/api/units/:id/checks/", "Unit Checks", "GET, HEAD, OPTIONS",
		edge.Handlers{Get: s.listUnitChecks})
	r.Resource("/api/units/:id/checks/:check/dismiss/", "Unit Check Dismissal", "POST, DELETE, OPTIONS",
		edge.Handlers{Post: func(c *gin.Context) { s.dismissCheck(c, true) },
			Delete: func(c *gin.Context) { s.dismissCheck(c, false) }})
	r.Resource(componentPath+"checks/", "Component Checks", "GET, HEAD, OPTIONS",
		edge.Handlers{Get: s.componentChecks})
}

// checkStore is what the checks endpoints read and write.
type checkStore interface {
	// UnitChecks returns the failing and dismissed checks of a unit.
	UnitChecks(ctx context.Context, unitID int64) ([]index.UnitCheck, error)
	// SetCheckDismissed dismisses or restores a check failing on a unit
	// once allow agrees, and reports whether that changed anything.
	SetCheckDismissed(ctx context.Context, unitID int64, name string, dismissed bool, actor index.Actor,
		allow func(u index.Unit, t index.Translation) error) (bool, error)
	// ComponentChecks counts a component's check rows by check and
	// language.
	ComponentChecks(ctx context.Context, componentID int64) ([]index.CheckCount, error)
}

// checkJSON is one check of a unit.
type checkJSON struct {
	Check       string `json:"check"`
	Name        string `json:"name"`
	Description string `json:"description"`
	Dismissed   bool   `json:"dismissed"`
	Enforced    bool   `json:"enforced"`
}

func newCheckJSON(name string, dismissed bool, c *index.Component) checkJSON {
	info, _ := checks.ByID(name)
	return checkJSON{Check: name, Name: info.Name, Description: info.Description, Dismissed: dismissed,
		Enforced: slices.Contains(c.EnforcedChecks, name)}
}

// listUnitChecks serves GET /api/units/:id/checks/: the unit's checks
// that fail, dismissed or not, in the reference's check order.
func (s *Server) listUnitChecks(c *gin.Context) {
	u, t, err := s.findUnit(c)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	rows, err := s.store.UnitChecks(c.Request.Context(), u.ID)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	out := make([]checkJSON, len(rows))
	for i, r := range rows {
		out[i] = newCheckJSON(r.Name, r.Dismissed, &t.Component)
	}
	s.edge.WriteJSON(c, http.StatusOK, out)
}

// dismissCheck serves POST (dismiss) and DELETE (restore)
// /api/units/:id/checks/:check/dismiss/: 200 with the check as it now
// is; 404 for a check that does not fail on the unit.
func (s *Server) dismissCheck(c *gin.Context, dismissed bool) {
	id, err := s.unitToWrite(c)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	name := c.Param("check")
	who := edge.Principal(c)
	var comp index.Component
	_, err = s.store.SetCheckDismissed(c.Request.Context(), id, name, dismissed, index.UserActor(who.User),
		func(u index.Unit, t index.Translation) error {
			comp = t.Component
			return index.CheckDismissCheck(who, &t, name)
		})
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	s.edge.WriteJSON(c, http.StatusOK, newCheckJSON(name, dismissed, &comp))
}

// componentChecksJSON is a component's check summary: what a release
// script gates on. Its counts are check rows: a unit failing two checks
// counts twice (the statistics' failing counts units).
type componentChecksJSON struct {
	Failing   int                  `json:"failing"`
	Dismissed int                  `json:"dismissed"`
	Checks    []componentCheckJSON `json:"checks"`
}

type componentCheckJSON struct {
	Check     string                       `json:"check"`
	Name      string                       `json:"name"`
	Enforced  bool                         `json:"enforced"`
	Failing   int                          `json:"failing"`
	Dismissed int                          `json:"dismissed"`
	Languages map[string]checkLanguageJSON `json:"languages"`
}

type checkLanguageJSON struct {
	Failing   int `json:"failing"`
	Dismissed int `json:"dismissed"`
}

// componentChecks serves GET /api/components/:p/:c/checks/: for each
// check that fails on some unit of the component, its failing and
// dismissed units in all and per language, in the reference's check
// order; failing and dismissed at the top sum them.
func (s *Server) componentChecks(c *gin.Context) {
	comp, err := s.edge.FindComponent(c)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	counts, err := s.store.ComponentChecks(c.Request.Context(), comp.ID)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	out := componentChecksJSON{Checks: []componentCheckJSON{}}
	for _, n := range counts {
		if len(out.Checks) == 0 || out.Checks[len(out.Checks)-1].Check != n.Name {
			cj := newCheckJSON(n.Name, false, &comp)
			out.Checks = append(out.Checks, componentCheckJSON{Check: n.Name, Name: cj.Name, Enforced: cj.Enforced,
				Languages: map[string]checkLanguageJSON{}})
		}
		last := &out.Checks[len(out.Checks)-1]
		last.Failing += n.Failing
		last.Dismissed += n.Dismissed
		last.Languages[n.LanguageCode] = checkLanguageJSON{Failing: n.Failing, Dismissed: n.Dismissed}
		out.Failing += n.Failing
		out.Dismissed += n.Dismissed
	}
	s.edge.WriteJSON(c, http.StatusOK, out)
}
