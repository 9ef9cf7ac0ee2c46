package api

import (
	"context"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gin-gonic/gin"
	"github.com/tolk-project/tolk/edge"
	"github.com/tolk-project/tolk/index"
)

// peopleRoutes registers what users have done: a user's statistics and
// contributions, and the translator credits of a project, component or
// translation (issue 33, "People").
func (s *Server) peopleRoutes(r *edge.Router) {
	const allow = "GET, HEAD, OPTIONS"
	r.Resource(userPath+"statistics/", "User Statistics", allow, edge.Handlers{Get: s.getUserStatistics})
	r.Resource(userPath+"contributions/", "User Contributions", allow, edge.Handlers{Get: s.listContributions})
	r.Resource(projectPath+"credits/", "Credits", allow, edge.Handlers{Get: s.projectCredits})
	r.Resource(componentPath+"credits/", "Credits", allow, edge.Handlers{Get: s.componentCredits})
	r.Resource(translationPath+"credits/", "Credits", allow, edge.Handlers{Get: s.translationCredits})
}

// peopleStore is what the people endpoints read.
type peopleStore interface {
	// UserStatistics returns what the user with the given id has done
	// outside the projects whose ids are hidden.
	UserStatistics(ctx context.Context, userID int64, hidden []int64) (index.UserStats, error)
	// FindContributions returns one page of the translations the user
	// has edited, outside the hidden projects, in ascending id order, and
	// their number.
	FindContributions(ctx context.Context, userID int64, pg index.Page, hidden ...int64) ([]index.Translation, int, error)
	// Credits returns the authors of the content changes f selects, with
	// their counts, by language name, then most changes first.
	Credits(ctx context.Context, f index.CreditFilter) ([]index.Credit, error)
}

// userStatisticsJSON is the reference's UserStatisticsSerializer. Its
// counts are Tolk's own change log's, over the projects the reader may
// see (see index.UserStats), where the reference reads counters that
// count every project. Two fields differ in what they count, because
// Tolk lacks what the reference counts: uploaded is translation files
// uploaded (the reference counts screenshots, which Tolk does not keep),
// and languages is the number of languages the user has translated into
// (the reference counts the languages of the user's profile, which Tolk
// does not keep).
type userStatisticsJSON struct {
	Translated int `json:"translated"`
	Suggested  int `json:"suggested"`
	Uploaded   int `json:"uploaded"`
	Commented  int `json:"commented"`
	Languages  int `json:"languages"`
}

// getUserStatistics serves GET /api/users/:username/statistics/ to
// whoever may see the user (findUser).
func (s *Server) getUserStatistics(c *gin.Context) {
	x, hidden, err := s.findUserActivity(c)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	st, err := s.store.UserStatistics(c.Request.Context(), x.ID, hidden)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	s.edge.WriteJSON(c, http.StatusOK, userStatisticsJSON{Translated: st.Translated, Suggested: st.Suggested,
		Uploaded: st.Uploaded, Commented: st.Commented, Languages: st.Languages})
}

// listContributions serves GET /api/users/:username/contributions/: the
// translations the user has edited, as the reference's "translation
// contributions of a user", paginated in ascending id order, without
// those of projects the reader may not see.
func (s *Server) listContributions(c *gin.Context) {
	x, hidden, err := s.findUserActivity(c)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	s.writeTranslationPage(c, func(p index.Page) ([]index.Translation, int, error) {
		return s.store.FindContributions(c.Request.Context(), x.ID, p, hidden...)
	})
}

// findUserActivity resolves the user the path names as getUser does,
// and the projects whose activity the reader may not see.
func (s *Server) findUserActivity(c *gin.Context) (index.User, []int64, error) {
	x, err := s.findUser(c)
	if err != nil {
		return x, nil, err
	}
	hidden, err := s.edge.HiddenProjects(c)
	return x, hidden, err
}

// creditJSON is one author in the reference's credits: its
// generate_credits entries.
type creditJSON struct {
	Email       string `json:"email"`
	FullName    string `json:"full_name"`
	ChangeCount int    `json:"change_count"`
}

// projectCredits serves GET /api/projects/:project/credits/.
func (s *Server) projectCredits(c *gin.Context) {
	p, err := s.edge.FindProject(c)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	s.writeCredits(c, p.ID, index.CreditFilter{ProjectID: p.ID})
}

// componentCredits serves GET /api/components/:project/:component/credits/.
func (s *Server) componentCredits(c *gin.Context) {
	comp, err := s.edge.FindComponent(c)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	s.writeCredits(c, comp.ProjectID, index.CreditFilter{ComponentID: comp.ID})
}

// translationCredits serves GET .../translations/P/C/L/credits/. The
// reference documents only the project and component forms; its
// translation viewset has the same mixin, so Tolk serves it too.
func (s *Server) translationCredits(c *gin.Context) {
	t, err := s.edge.FindTranslation(c)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	s.writeCredits(c, t.Component.ProjectID, index.CreditFilter{TranslationID: t.ID})
}

// writeCredits answers the reference's CreditsMixin: signed-in readers
// only (401 otherwise); start and end (ISO 8601, both inclusive, UTC
// without a zone) are required; lang keeps one language code. The
// answer is a list of one-key objects, language name to its authors,
// ordered by language name, each language's authors by count, most
// first. Who may see everyone's credits (the reference's reports.view)
// is who may edit the project (project.edit; Tolk has no reports
// permission); anyone else gets only their own changes counted, as in
// the reference.
func (s *Server) writeCredits(c *gin.Context, projectID int64, f index.CreditFilter) {
	p := edge.Principal(c)
	if p.Anonymous() {
		s.edge.Fail(c, edge.ErrNotSignedIn)
		return
	}
	problems := map[string]index.FieldProblem{}
	bound := func(name string) time.Time {
		t, err := parseISOTime(c.Query(name))
		if err != nil {
			problems[name] = index.FieldProblem{Code: "invalid", Detail: "Invalid format for `" + name + "`"}
		}
		return t
	}
	f.Start, f.End = bound("start"), bound("end")
	// A language code is text without NUL bytes: PostgreSQL refuses
	// those in a parameter, and no code has one. The reference answers
	// any other unknown code with no credits, as Tolk does.
	f.LanguageCode = c.Query("lang")
	if strings.ContainsRune(f.LanguageCode, 0) || !utf8.ValidString(f.LanguageCode) {
		problems["lang"] = index.FieldProblem{Code: "invalid", Detail: "Enter a valid language code."}
	}
	if len(problems) > 0 {
		s.edge.Fail(c, &index.FieldError{Fields: problems})
		return
	}
	// Times are kept to the microsecond: the bounds become the
	// microseconds they include.
	if start := f.Start.Truncate(time.Microsecond); start.Before(f.Start) {
		f.Start = start.Add(time.Microsecond)
	}
	f.End = f.End.Truncate(time.Microsecond)
	if !p.CanRead(index.PermProjectEdit, projectID) {
		f.AuthorID = p.User.ID
	}
	credits, err := s.store.Credits(c.Request.Context(), f)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	out := []map[string][]creditJSON{}
	for i, cr := range credits {
		if i == 0 || cr.Language != credits[i-1].Language {
			out = append(out, map[string][]creditJSON{cr.Language: nil})
		}
		m := out[len(out)-1]
		m[cr.Language] = append(m[cr.Language], creditJSON{Email: cr.Email, FullName: cr.FullName,
			ChangeCount: cr.ChangeCount})
	}
	s.edge.WriteJSON(c, http.StatusOK, out)
}
