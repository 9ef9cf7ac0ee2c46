package api

import (
	"context"
	"net/http"

	"github.com/gin-gonic/gin"
	"github.com/tolk-project/tolk/edge"
	"github.com/tolk-project/tolk/index"
)

// unitWriteStore is what the unit writes need. Each method runs its
// reads, the caller's rules and its writes in one transaction, so that
// the rules judge what is stored at that moment; an error the rules
// return comes back as is, and nothing is stored.
type unitWriteStore interface {
	// UpdateUnitExpecting applies what decide makes of a unit and its
	// translation (with component, project and language) and returns
	// the unit as written, or ErrNotFound. expect is the target the
	// write expects to save (nil: none), a hint the store may send its
	// reads ahead on; decide still settles what is saved.
	UpdateUnitExpecting(ctx context.Context, id int64, actor index.Actor, expect []string,
		decide func(u index.Unit, t index.Translation) (index.UnitUpdate, error)) (index.Unit, error)
	// AddUnit adds the string decide settles to a translation (and, for
	// a source translation, to every other of its component) and returns
	// the unit added to the translation asked for; a string it already
	// holds is a FieldError.
	AddUnit(ctx context.Context, translationID int64, actor index.Actor,
		decide func(t index.Translation) (index.NewUnit, error)) (index.Unit, error)
	// DeleteUnit removes a unit (a source string from every translation)
	// once check allows it, or returns ErrNotFound.
	DeleteUnit(ctx context.Context, id int64, actor index.Actor,
		check func(u index.Unit, t index.Translation) error) error
}

// unitWriteJSON is the reference's answer to a unit write: its write
// serializer's fields, not the whole unit.
type unitWriteJSON struct {
	Target      []string `json:"target"`
	State       int      `json:"state"`
	Explanation string   `json:"explanation"`
	ExtraFlags  string   `json:"extra_flags"`
	Labels      []int64  `json:"labels"`
}

// unitToWrite resolves the unit of the path for a write: 404 for a unit
// that does not exist or that the caller may not see.
func (s *Server) unitToWrite(c *gin.Context) (int64, error) {
	u, _, err := s.findUnit(c)
	return u.ID, err
}

// updateUnit serves PATCH and PUT /api/units/:id/ (full: PUT).
//
// Whether the caller may see the unit is checked by the write, on the
// unit and translation it reads, rather than by a read before it (a
// tenth of an edit's cost); only a payload refused before the write
// looks the unit up first, so that a unit the caller may not see is not
// found whatever was sent.
func (s *Server) updateUnit(c *gin.Context, full bool) {
	id, err := pathID(c, "id")
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	patch, err := readUnitPatch(c, full)
	if err != nil {
		if _, lookErr := s.unitToWrite(c); lookErr != nil {
			err = lookErr
		}
		s.edge.Fail(c, err)
		return
	}
	who := edge.Principal(c)
	var expect []string
	if patch.Target != nil {
		// The target the write most likely saves: the store may send
		// what it will read of it ahead (UpdateUnitExpecting).
		expect = *patch.Target
	}
	u, err := s.store.UpdateUnitExpecting(c.Request.Context(), id, index.UserActor(who.User), expect,
		func(u index.Unit, t index.Translation) (index.UnitUpdate, error) {
			// decide runs in the index's writer goroutine: it reads the
			// principal taken above, never the request's context.
			if !who.CanView(&t.Component.Project) {
				return index.UnitUpdate{}, edge.ErrNoRoute
			}
			return index.CheckUnitPatch(who, &u, &t, patch)
		})
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	s.edge.WriteJSON(c, http.StatusOK, unitWriteJSON{Target: nonNil(u.Target), State: int(u.State),
		Explanation: u.Explanation, ExtraFlags: u.ExtraFlags, Labels: writtenLabels(&u)})
}

// writtenLabels are the label ids a unit write answers with: a source
// unit's own, none for a translation's unit (labels are on source units;
// the reference's write serializer shows the unit's own).
func writtenLabels(u *index.Unit) []int64 {
	if u.SourceUnitID != u.ID {
		return []int64{}
	}
	return labelIDs(u.Labels)
}

// unitStates are the states a unit write may name; which of them may be
// set is a rule (index.CheckUnitPatch).
var unitStates = []int{0, 10, 11, 12, 20, 30, 100}

// readUnitPatch reads a unit write's fields (the reference's check 0).
// Two departures keep its wire shape and do better: a target without a
// state, which wlc's edit-unit sends, means translated (20), or empty
// (0) when every form is empty; and labels may be the label objects a
// client read back as well as their ids (readLabels). PUT (full) needs a
// target; the reference also needs labels.
func readUnitPatch(c *gin.Context, full bool) (index.UnitPatch, error) {
	var patch index.UnitPatch
	p, err := readPayload(c)
	if err != nil {
		return patch, err
	}
	_, stateSent := p.lookup("state")
	if n, ok := p.intChoice("state", unitStates); ok {
		st := index.State(n)
		patch.State = &st
	}
	if target, ok := p.texts("target", full); ok {
		if !stateSent {
			st := index.StateTranslated
			if index.IsBlank(target) {
				st = index.StateEmpty
			}
			patch.State = &st
		}
		// Blank forms are only for the empty state.
		if patch.State == nil || *patch.State != index.StateEmpty {
			p.blankItems("target", target)
		}
		patch.Target = &target
	}
	if s, ok := p.text("explanation", false, true); ok {
		patch.Explanation = &s
	}
	if s, ok := p.text("extra_flags", false, true); ok {
		patch.ExtraFlags = &s
	}
	patch.Labels = readLabels(p)
	return patch, p.err()
}

// addUnit serves POST .../translations/P/C/L/units/ (weblate-writes.md
// §1.3): 200 with the whole unit added, its id included.
func (s *Server) addUnit(c *gin.Context) {
	t, err := s.edge.FindTranslation(c)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	// The reference checks the permission before it reads the body, so
	// a payload error waits for the permission check.
	add, payloadErr := readUnitAdd(c, &t)
	who := edge.Principal(c)
	u, err := s.store.AddUnit(c.Request.Context(), t.ID, index.UserActor(who.User),
		func(t index.Translation) (index.NewUnit, error) {
			if err := index.CheckAddUnit(who, &t); err != nil {
				return index.NewUnit{}, err
			}
			if payloadErr != nil {
				return index.NewUnit{}, payloadErr
			}
			return index.ValidateNewUnit(who, &t, add)
		})
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	out, err := s.unitsJSON(c, []index.Unit{u})
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	s.edge.WriteJSON(c, http.StatusOK, &out[0])
}

// addStates are the states a new string may name (all but read-only).
var addStates = []int{0, 10, 11, 12, 20, 30}

// readUnitAdd reads a new string with the reference's serializer for the
// component: key and value for a monolingual one; source, target
// (required but on the source language) and context for a bilingual one.
func readUnitAdd(c *gin.Context, t *index.Translation) (index.UnitAdd, error) {
	var a index.UnitAdd
	p, err := readPayload(c)
	if err != nil {
		return a, err
	}
	if n, ok := p.intChoice("state", addStates); ok {
		st := index.State(n)
		a.State = &st
	}
	if t.Component.IsMonolingual() {
		a.Context, _ = p.text("key", true, false)
		a.Source, _ = p.texts("value", true)
	} else {
		a.Source, _ = p.texts("source", true)
		if target, ok := p.texts("target", !t.IsSource); ok {
			a.Target = &target
		}
		a.Context, _ = p.text("context", false, true)
	}
	return a, p.err()
}

// deleteUnit serves DELETE /api/units/:id/: 204 once removed.
func (s *Server) deleteUnit(c *gin.Context) {
	id, err := s.unitToWrite(c)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	who := edge.Principal(c)
	err = s.store.DeleteUnit(c.Request.Context(), id, index.UserActor(who.User),
		func(u index.Unit, t index.Translation) error { return index.CheckDeleteUnit(who, &u, &t) })
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	noContent(c)
}
