package api

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"strconv"

	"github.com/gin-gonic/gin"
	"github.com/tolk-project/tolk/edge"
	"github.com/tolk-project/tolk/index"
)

// The suggestions endpoints, in the reference's 2026.8 shape (reference
// workspace §2.4, PR WeblateOrg/weblate#20406): its paths, bodies,
// results and status codes. Anonymous callers may suggest on public
// projects (its Guests team) when Options.AnonymousSuggestions allows,
// each address within that limit.
func (s *Server) suggestionRoutes(r *edge.Router) {
	r.Resource("/api/units/:id/suggestions/", "Unit Suggestions", "GET, POST, HEAD, OPTIONS",
		edge.Handlers{Get: s.listUnitSuggestions, Post: s.addSuggestion, AnonymousPost: true})
	r.Resource("/api/suggestions/", "Suggestion List", "GET, HEAD, OPTIONS",
		edge.Handlers{Get: s.listSuggestions})
	r.Resource("/api/suggestions/:id/", "Suggestion Instance", "GET, DELETE, HEAD, OPTIONS",
		edge.Handlers{Get: s.getSuggestion, Delete: s.deleteSuggestion})
	r.Resource("/api/suggestions/:id/accept/", "Suggestion Accept", "POST, OPTIONS",
		edge.Handlers{Post: s.acceptSuggestion})
	r.Resource("/api/suggestions/:id/vote/", "Suggestion Vote", "POST, OPTIONS",
		edge.Handlers{Post: s.voteSuggestion})
}

// suggestionStore is what the suggestions endpoints read and write. The
// writes run the rules given inside their transaction (see
// unitWriteStore); each returns ErrNotFound for a unit or suggestion
// that does not exist.
type suggestionStore interface {
	// FindSuggestionByID returns a suggestion.
	FindSuggestionByID(ctx context.Context, id int64) (index.Suggestion, error)
	// FindSuggestions returns a page of a unit's suggestions, or of all
	// of them outside the hidden projects, and their total.
	FindSuggestions(ctx context.Context, f index.SuggestionFilter) ([]index.Suggestion, int, error)
	// AddSuggestion suggests a target for a unit once decide allows it.
	AddSuggestion(ctx context.Context, unitID int64, n index.NewSuggestion,
		decide func(u index.Unit, t index.Translation) (index.SuggestionRights, error)) (index.SuggestionOutcome, error)
	// AcceptSuggestion makes a suggestion its unit's target in the state
	// decide returns, and deletes it.
	AcceptSuggestion(ctx context.Context, id int64, actor index.Actor,
		decide func(s index.Suggestion, u index.Unit, t index.Translation) (index.State, error)) (index.Unit, error)
	// VoteSuggestion records a user's vote once check allows it; a vote
	// may accept the suggestion.
	VoteSuggestion(ctx context.Context, id, userID int64, value int,
		check func(s index.Suggestion, u index.Unit, t index.Translation) error) (index.SuggestionOutcome, error)
	// DeleteSuggestion rejects a suggestion once check allows it.
	DeleteSuggestion(ctx context.Context, id int64, actor index.Actor, why index.Rejection,
		check func(s index.Suggestion, u index.Unit, t index.Translation) error) error
}

// suggestionJSON is the reference's SuggestionSerializer.
type suggestionJSON struct {
	ID        int64    `json:"id"`
	Unit      string   `json:"unit"`
	Target    []string `json:"target"`
	User      *string  `json:"user"`
	Timestamp string   `json:"timestamp"`
	Votes     int      `json:"votes"`
}

func newSuggestionJSON(u edge.URLs, x *index.Suggestion) suggestionJSON {
	out := suggestionJSON{ID: x.ID, Unit: u.Unit(x.UnitID), Target: nonNil(x.Target),
		Timestamp: string(appendTimestamp(nil, x.Timestamp)), Votes: x.Votes}
	if x.Username != "" {
		out.User = u.User(x.Username)
	}
	return out
}

// suggestionResultJSON is the answer of a vote, and of a suggestion
// that upvoted or was accepted: {"result", "suggestion"}, the
// suggestion null once accepted.
type suggestionResultJSON struct {
	Result     string          `json:"result"`
	Suggestion *suggestionJSON `json:"suggestion"`
}

func newSuggestionResult(u edge.URLs, o index.SuggestionOutcome) suggestionResultJSON {
	out := suggestionResultJSON{Result: string(o.Result)}
	if o.Suggestion != nil {
		sj := newSuggestionJSON(u, o.Suggestion)
		out.Suggestion = &sj
	}
	return out
}

// listUnitSuggestions serves GET /api/units/:id/suggestions/: the
// unit's suggestions, oldest first, paginated.
func (s *Server) listUnitSuggestions(c *gin.Context) {
	u, _, err := s.findUnit(c)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	s.writeSuggestions(c, standardPages, index.SuggestionFilter{UnitID: u.ID})
}

// listSuggestions serves GET /api/suggestions/: every suggestion the
// caller may see, newest first, with the large paginator.
func (s *Server) listSuggestions(c *gin.Context) {
	hidden, err := s.edge.HiddenProjects(c)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	s.writeSuggestions(c, largePages, index.SuggestionFilter{HiddenProjects: hidden})
}

func (s *Server) writeSuggestions(c *gin.Context, pg pager, f index.SuggestionFilter) {
	items, p, err := fetchPageOf(c, pg, func(p index.Page) ([]index.Suggestion, int, error) {
		f.Page = p
		return s.store.FindSuggestions(c.Request.Context(), f)
	})
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	u := s.edge.URLsFor(c)
	out := make([]suggestionJSON, len(items))
	for i := range items {
		out[i] = newSuggestionJSON(u, &items[i])
	}
	s.edge.WriteJSON(c, http.StatusOK, newList(c, u, p, out))
}

// findSuggestion resolves the suggestion of the path: 404 for one that
// does not exist or whose project the caller may not see.
func (s *Server) findSuggestion(c *gin.Context) (index.Suggestion, error) {
	id, err := pathID(c, "id")
	if err != nil {
		return index.Suggestion{}, err
	}
	sg, err := s.store.FindSuggestionByID(c.Request.Context(), id)
	if err != nil {
		return sg, err
	}
	_, _, err = s.visibleUnit(c, sg.UnitID)
	return sg, err
}

// getSuggestion serves GET /api/suggestions/:id/.
func (s *Server) getSuggestion(c *gin.Context) {
	sg, err := s.findSuggestion(c)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	s.edge.WriteJSON(c, http.StatusOK, newSuggestionJSON(s.edge.URLsFor(c), &sg))
}

// addSuggestion serves POST /api/units/:id/suggestions/: 201 with the
// suggestion; 200 {"result": "voted"} when the same text was suggested
// by another user and this counted as an upvote, {"result": "accepted",
// "suggestion": null} when a vote accepted it.
func (s *Server) addSuggestion(c *gin.Context) {
	who := edge.Principal(c)
	if who.Anonymous() {
		if err := s.throttleAnonymousSuggestion(c); err != nil {
			s.edge.Fail(c, err)
			return
		}
	}
	u, _, err := s.findUnit(c)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	target, payloadErr := readSuggestionTarget(c)
	n := index.NewSuggestion{Target: target, Address: c.ClientIP(), Agent: c.Request.UserAgent()}
	if !who.Anonymous() {
		n.UserID = who.User.ID
	}
	anonymous := !s.opts.AnonymousSuggestions.Off()
	out, err := s.store.AddSuggestion(c.Request.Context(), u.ID, n,
		func(u index.Unit, t index.Translation) (index.SuggestionRights, error) {
			if !who.CanView(&t.Component.Project) {
				return index.SuggestionRights{}, edge.ErrNoRoute
			}
			// The permission comes before the body, as the reference's.
			rights, err := index.CheckSuggestionAdd(who, &u, &t, anonymous)
			if err == nil {
				err = payloadErr
			}
			return rights, err
		})
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	urls := s.edge.URLsFor(c)
	if out.Result == index.SuggestionCreated {
		s.edge.WriteJSON(c, http.StatusCreated, newSuggestionJSON(urls, out.Suggestion))
		return
	}
	s.edge.WriteJSON(c, http.StatusOK, newSuggestionResult(urls, out))
}

// throttleAnonymousSuggestion counts an anonymous suggestion against its
// address's limit (Options.AnonymousSuggestions), on top of the API's
// own: 401 when anonymous suggestions are off, 429 with Retry-After once
// the address has used its window. Other clients, and everything the
// address sent before, are not touched.
func (s *Server) throttleAnonymousSuggestion(c *gin.Context) error {
	if s.anonSuggestions == nil {
		return edge.ErrNotSignedIn
	}
	ok, _, reset := s.anonSuggestions.Take(edge.ClientKey(c.ClientIP()))
	if ok {
		return nil
	}
	wait := int(math.Ceil(reset.Seconds()))
	c.Header("Retry-After", strconv.Itoa(wait))
	unit := "seconds"
	if wait == 1 {
		unit = "second"
	}
	return &edge.RequestError{Status: http.StatusTooManyRequests, Code: "throttled",
		Detail: fmt.Sprintf("Request was throttled. Expected available in %d %s.", wait, unit)}
}

// readSuggestionTarget reads {"target": [...]}: required, a list of
// non-blank strings (a bare string is one form, as for units).
func readSuggestionTarget(c *gin.Context) ([]string, error) {
	p, err := readPayload(c)
	if err != nil {
		return nil, err
	}
	target, ok := p.texts("target", true)
	if ok {
		if len(target) == 0 {
			p.fail("target", "empty", "This list may not be empty.")
		}
		p.blankItems("target", target)
	}
	return target, p.err()
}

// suggestionToWrite resolves the suggestion of the path for a write: 404
// for one that does not exist or that the caller may not see.
func (s *Server) suggestionToWrite(c *gin.Context) (int64, *index.Principal, error) {
	sg, err := s.findSuggestion(c)
	return sg.ID, edge.Principal(c), err
}

// acceptSuggestion serves POST /api/suggestions/:id/accept/ with
// {"approve": bool}: 200 {"result": "accepted"}.
func (s *Server) acceptSuggestion(c *gin.Context) {
	id, who, err := s.suggestionToWrite(c)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	p, err := readPayload(c)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	approve, _ := p.flag("approve", false)
	if err := p.err(); err != nil {
		s.edge.Fail(c, err)
		return
	}
	_, err = s.store.AcceptSuggestion(c.Request.Context(), id, index.UserActor(who.User),
		func(_ index.Suggestion, u index.Unit, t index.Translation) (index.State, error) {
			return index.AcceptedState(who, &u, &t, approve)
		})
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	s.edge.WriteJSON(c, http.StatusOK, map[string]string{"result": string(index.SuggestionAccepted)})
}

// voteSuggestion serves POST /api/suggestions/:id/vote/ with {"value":
// 1 or -1}: 200 {"result": "voted", "suggestion": {...}}, or
// {"result": "accepted", "suggestion": null} when the vote reached
// suggestion_autoaccept.
func (s *Server) voteSuggestion(c *gin.Context) {
	id, who, err := s.suggestionToWrite(c)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	p, err := readPayload(c)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	value, _ := p.intChoice("value", []int{1, -1})
	p.require("value")
	payloadErr := p.err()
	out, err := s.store.VoteSuggestion(c.Request.Context(), id, who.User.ID, value,
		func(sg index.Suggestion, u index.Unit, t index.Translation) error {
			if err := index.CheckSuggestionVote(who, &u, &t); err != nil {
				return err
			}
			return payloadErr
		})
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	s.edge.WriteJSON(c, http.StatusOK, newSuggestionResult(s.edge.URLsFor(c), out))
}

// deleteSuggestion serves DELETE /api/suggestions/:id/ with an optional
// {"rejection_reason": "…", "is_spam": bool}: 204. Tolk reports spam to
// no service; is_spam is kept in the change's details (index.Rejection).
func (s *Server) deleteSuggestion(c *gin.Context) {
	id, who, err := s.suggestionToWrite(c)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	p, err := readPayload(c)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	reason, _ := p.text("rejection_reason", false, true)
	if len(reason) > maxRejectionReason {
		p.fail("rejection_reason", "max_length", fmt.Sprintf("Ensure this field has no more than %d characters.", maxRejectionReason))
	}
	spam, _ := p.flag("is_spam", false)
	if err := p.err(); err != nil {
		s.edge.Fail(c, err)
		return
	}
	err = s.store.DeleteSuggestion(c.Request.Context(), id, index.UserActor(who.User), index.Rejection{Reason: reason, IsSpam: spam},
		func(sg index.Suggestion, u index.Unit, t index.Translation) error {
			return index.CheckSuggestionDelete(who, &sg, &t)
		})
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	noContent(c)
}

// maxRejectionReason bounds a rejection reason, kept in the change's
// details: the reference's is free text; Tolk keeps a change row small.
const maxRejectionReason = 2000
