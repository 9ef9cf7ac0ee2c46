package web

import (
	"context"
	"net/http"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"
	"github.com/tolk-project/tolk/edge"
	"github.com/tolk-project/tolk/index"
)

// The editor's suggestions (reference workspace §2, §9.1): beside Save, a
// Suggest button sends the text as a suggestion; the string's
// suggestions are listed with their votes and failing checks, each with
// accept, vote and delete buttons for who may use them. Every action is
// a form POST to .../suggestions/ that runs the API's write with the
// same rules (index.CheckSuggestion*), then shows the string again.

// suggestionStore is what the editor's suggestions read and write (see
// api's suggestionStore for the contracts).
type suggestionStore interface {
	FindSuggestions(ctx context.Context, f index.SuggestionFilter) ([]index.Suggestion, int, error)
	SuggestionChecksOf(ctx context.Context, ids []int64) (map[int64][]string, error)
	AddSuggestion(ctx context.Context, unitID int64, n index.NewSuggestion,
		decide func(u index.Unit, t index.Translation) (index.SuggestionRights, error)) (index.SuggestionOutcome, error)
	AcceptSuggestion(ctx context.Context, id int64, actor index.Actor,
		decide func(s index.Suggestion, u index.Unit, t index.Translation) (index.State, error)) (index.Unit, error)
	VoteSuggestion(ctx context.Context, id, userID int64, value int,
		check func(s index.Suggestion, u index.Unit, t index.Translation) error) (index.SuggestionOutcome, error)
	DeleteSuggestion(ctx context.Context, id int64, actor index.Actor, why index.Rejection,
		check func(s index.Suggestion, u index.Unit, t index.Translation) error) error
}

// editorSuggestions is how many of a string's suggestions the editor
// lists.
const editorSuggestions = 20

// suggestionRow is one suggestion as the editor lists it.
type suggestionRow struct {
	ID                            int64
	Target, Who, When             string
	Votes                         int
	Checks                        string // the names of the checks its text fails
	CanAccept, CanVote, CanDelete bool
}

// editorSuggestionRows lists unit x's suggestions with what who may do
// with each.
func (s *Server) editorSuggestionRows(ctx context.Context, who *index.Principal, t *index.Translation,
	x *index.Unit) ([]suggestionRow, error) {
	if !x.HasSuggestion {
		return nil, nil
	}
	items, _, err := s.store.FindSuggestions(ctx, index.SuggestionFilter{UnitID: x.ID,
		Page: index.Page{Number: 1, Size: editorSuggestions}})
	if err != nil {
		return nil, err
	}
	canAccept := index.CheckSuggestionAccept(who, x, t, false) == nil
	canVote := index.CheckSuggestionVote(who, x, t) == nil
	ids := make([]int64, len(items))
	for i := range items {
		ids[i] = items[i].ID
	}
	checks, err := s.store.SuggestionChecksOf(ctx, ids)
	if err != nil {
		return nil, err
	}
	var out []suggestionRow
	for i := range items {
		sg := &items[i]
		row := suggestionRow{ID: sg.ID, Target: strings.Join(sg.Target, " | "), Who: sg.Username,
			When: timestamp(sg.Timestamp), Votes: sg.Votes, CanAccept: canAccept, CanVote: canVote,
			CanDelete: index.CheckSuggestionDelete(who, sg, t) == nil}
		if row.Who == "" {
			row.Who = "anonymous"
		}
		row.Checks = strings.Join(checks[sg.ID], ", ")
		out = append(out, row)
	}
	return out, nil
}

// suggestionAction serves POST /translate/:project/:component/:language/suggestions/:
// op suggest (the edit form's targets as a suggestion of unit id),
// accept, approve, up, down or delete (of suggestion suggestion). It
// needs the session's CSRF token and someone signed in, and answers
// with the editor on the string (303), or the refusal as a page.
func (s *Server) suggestionAction(c *gin.Context) {
	// An anonymous visitor may only suggest, where the project takes
	// anonymous suggestions, within the address's limit.
	anonymous := edge.Principal(c).Anonymous() && s.anonSuggestions != nil
	who, t, unitID, err := s.editorForm(c, anonymous)
	if err == nil && anonymous {
		err = s.throttleAnonymous(c)
	}
	if err != nil {
		s.failPage(c, err)
		return
	}
	ctx, actor := c.Request.Context(), index.UserActor(who.User)
	// Every rule sees the unit's own translation: a form naming a unit
	// of another is refused as not found.
	inPage := func(ut *index.Translation) error {
		if ut.ID != t.ID {
			return index.ErrNotFound
		}
		return nil
	}
	// The field is "op": a control named "action" would shadow the
	// form's own action property for the editor's script.
	action := c.PostForm("op")
	if action == "suggest" {
		target := c.PostFormArray("target")
		n := index.NewSuggestion{Target: target, Address: c.ClientIP(), Agent: c.Request.UserAgent()}
		if !who.Anonymous() {
			n.UserID = who.User.ID
		}
		_, err = s.store.AddSuggestion(ctx, unitID, n,
			func(u index.Unit, ut index.Translation) (index.SuggestionRights, error) {
				if err := inPage(&ut); err != nil {
					return index.SuggestionRights{}, err
				}
				if index.IsBlank(target) {
					return index.SuggestionRights{}, index.Errorf(index.ErrInvalid, "An empty suggestion suggests nothing.")
				}
				return index.CheckSuggestionAdd(who, &u, &ut, anonymous)
			})
	} else if anonymous {
		err = edge.ErrNotSignedIn
	} else {
		err = s.suggestionWrite(ctx, who, actor, action, c.PostForm("suggestion"),
			index.Rejection{Reason: strings.TrimSpace(c.PostForm("reason")), IsSpam: c.PostForm("spam") != ""}, inPage)
	}
	if err != nil {
		s.failPage(c, err)
		return
	}
	u, err := s.store.FindUnitByID(ctx, unitID)
	if err != nil {
		s.failPage(c, err)
		return
	}
	back := editorURL(s.edge.PageURLs(c).Translate(t.Component.Project.Slug, t.Component.FullSlug(), t.LanguageCode),
		formList(c), "checksum", checksumOf(u.IDHash))
	c.Redirect(http.StatusSeeOther, back)
}

// suggestionWrite runs one action on an existing suggestion; why is a
// deletion's reason and spam mark.
func (s *Server) suggestionWrite(ctx context.Context, who *index.Principal, actor index.Actor, action, idText string, why index.Rejection,
	inPage func(*index.Translation) error) error {
	id, err := strconv.ParseInt(idText, 10, 64)
	if err != nil {
		return index.Errorf(index.ErrInvalid, "The form names no suggestion.")
	}
	switch action {
	case "accept", "approve":
		approve := action == "approve"
		_, err = s.store.AcceptSuggestion(ctx, id, actor,
			func(_ index.Suggestion, u index.Unit, ut index.Translation) (index.State, error) {
				if err := inPage(&ut); err != nil {
					return 0, err
				}
				return index.AcceptedState(who, &u, &ut, approve)
			})
	case "up", "down":
		value := 1
		if action == "down" {
			value = -1
		}
		_, err = s.store.VoteSuggestion(ctx, id, who.User.ID, value,
			func(_ index.Suggestion, u index.Unit, ut index.Translation) error {
				if err := inPage(&ut); err != nil {
					return err
				}
				return index.CheckSuggestionVote(who, &u, &ut)
			})
	case "delete":
		// A rejection's reason goes with the change, as the
		// reference's "reject with a reason".
		if len(why.Reason) > 1000 {
			return index.Errorf(index.ErrInvalid, "reason: longer than 1000 bytes.")
		}
		err = s.store.DeleteSuggestion(ctx, id, actor, why,
			func(sg index.Suggestion, _ index.Unit, ut index.Translation) error {
				if err := inPage(&ut); err != nil {
					return err
				}
				return index.CheckSuggestionDelete(who, &sg, &ut)
			})
	default:
		err = index.Errorf(index.ErrInvalid, "Unknown suggestion action %q.", action)
	}
	return err
}
