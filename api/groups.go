package api

import (
	"context"
	"errors"
	"math"
	"net/http"
	"slices"
	"strconv"

	"github.com/gin-gonic/gin"
	"github.com/tolk-project/tolk/edge"
	"github.com/tolk-project/tolk/index"
)

// groupRoutes registers the teams (the reference's GroupViewSet, which
// calls them groups), the lists a team keeps, and a user's teams.
func (s *Server) groupRoutes(r *edge.Router) {
	r.Resource("/api/groups/", "Group List", "GET, POST, HEAD, OPTIONS",
		edge.Handlers{Get: s.listGroups, Post: s.createGroup})
	r.Resource(groupPath, "Group Instance", "GET, PUT, PATCH, DELETE, HEAD, OPTIONS",
		edge.Handlers{Get: s.getGroup, Put: s.updateGroup(false), Patch: s.updateGroup(true),
			Delete: s.deleteGroup})
	for _, l := range groupLinks {
		r.Resource(groupPath+string(l.link)+"/", "Group", "POST, OPTIONS",
			edge.Handlers{Post: s.addGroupLink(l)})
		r.Resource(groupPath+string(l.link)+"/:target/", "Group", "DELETE, OPTIONS",
			edge.Handlers{Delete: s.removeGroupLink(l)})
	}
	r.Resource(userPath+"groups/", "User Instance", "POST, DELETE, OPTIONS",
		edge.Handlers{Post: s.userGroup(true), Delete: s.userGroup(false)})
}

// groupStore is what the team endpoints read and write.
type groupStore interface {
	// FindTeamPage returns one page of the teams f selects in ascending
	// id order, with their lists, and their number.
	FindTeamPage(ctx context.Context, f index.TeamFilter, pg index.Page) ([]index.Team, int, error)
	// FindTeam returns a team with its lists by id.
	FindTeam(ctx context.Context, id int64) (index.Team, error)
	// CreateTeam adds a team; a name its defining project (or the site)
	// has is an *index.FieldError.
	CreateTeam(ctx context.Context, t index.Team) (index.Team, error)
	// UpdateTeam applies update in one transaction and returns the team.
	UpdateTeam(ctx context.Context, id int64, update func(*index.Team) error) (index.Team, error)
	// DeleteTeam removes a team.
	DeleteTeam(ctx context.Context, id int64) error
	// LinkTeam adds (or removes) one entry of a team's list of link;
	// an entry outside a project team's project is an *index.FieldError
	// on field.
	LinkTeam(ctx context.Context, teamID int64, link index.TeamLink, target int64, add bool, field string) error
	// FindUserTeams returns the ids of the teams a user is a member of.
	FindUserTeams(ctx context.Context, userID int64) ([]int64, error)
	// FindUsersTeams is FindUserTeams for a page of users, by user id.
	FindUsersTeams(ctx context.Context, userIDs []int64) (map[int64][]int64, error)
	// FindComponentByID returns a component with its project by id.
	FindComponentByID(ctx context.Context, id int64) (index.Component, error)
	// FindLanguageID returns the row id of a language by code.
	FindLanguageID(ctx context.Context, code string) (int64, error)
	// FindUserByID returns a user by id.
	FindUserByID(ctx context.Context, id int64) (index.User, error)
}

// groupPath is the route of one team.
const groupPath = "/api/groups/:group/"

// groupJSON is the reference's Group object (GroupSerializer), less
// defining_workspace and enforced_2fa: Tolk has neither workspaces nor
// two-factor sign-in.
type groupJSON struct {
	ID                int64    `json:"id"`
	Name              string   `json:"name"`
	DefiningProject   *string  `json:"defining_project"`
	ProjectSelection  int      `json:"project_selection"`
	LanguageSelection int      `json:"language_selection"`
	URL               string   `json:"url"`
	Roles             []string `json:"roles"`
	Languages         []string `json:"languages"`
	Projects          []string `json:"projects"`
	ComponentLists    []string `json:"componentlists"`
	Components        []string `json:"components"`
	Admins            []string `json:"admins"`
}

func newGroupJSON(u edge.URLs, t *index.Team) groupJSON {
	out := groupJSON{ID: t.ID, Name: t.Name, ProjectSelection: t.ProjectSelection,
		LanguageSelection: t.LanguageSelection, URL: u.ByID("/api/groups/", t.ID),
		Roles: []string{}, Languages: []string{}, Projects: []string{}, ComponentLists: []string{},
		Components: []string{}, Admins: []string{}}
	if t.ProjectID != 0 {
		out.DefiningProject = ptr(u.Project(t.Project, ""))
	}
	for _, id := range t.Roles {
		out.Roles = append(out.Roles, u.ByID("/api/roles/", id))
	}
	for _, code := range t.Languages {
		out.Languages = append(out.Languages, u.Language(code, ""))
	}
	for _, slug := range t.Projects {
		out.Projects = append(out.Projects, u.Project(slug, ""))
	}
	for _, slug := range t.ComponentLists {
		out.ComponentLists = append(out.ComponentLists, componentListURL(u, slug, ""))
	}
	for _, c := range t.Components {
		out.Components = append(out.Components, u.Component(c.Project, c.Slug, ""))
	}
	for _, name := range t.Admins {
		out.Admins = append(out.Admins, *u.User(name))
	}
	return out
}

// msgManageGroups is the reference's refusal of a team write.
const msgManageGroups = "Can not manage groups"

// canManageTeam reports whether the principal may change team t: group.edit
// site-wide, or project.edit in the team's defining project (the
// reference's meta:team.edit). read asks for the reads, which a token's
// scope does not narrow.
func canManageTeam(c *gin.Context, t *index.Team, read bool) bool {
	p := edge.Principal(c)
	can := p.Can
	if read {
		can = p.CanRead
	}
	return can(index.PermGroupEdit, 0) || (t.ProjectID != 0 && can(index.PermProjectEdit, t.ProjectID))
}

// teamFilter is what the principal may list: every team with group.edit;
// otherwise its own teams (member or admin) and the teams of the
// projects it administers.
func teamFilter(c *gin.Context) index.TeamFilter {
	p := edge.Principal(c)
	if p.CanRead(index.PermGroupEdit, 0) {
		return index.TeamFilter{Everything: true}
	}
	f := index.TeamFilter{UserID: p.User.ID}
	for _, g := range p.Grants {
		if g.ProjectID != 0 && !slices.Contains(f.Projects, g.ProjectID) && p.CanRead(index.PermProjectEdit, g.ProjectID) {
			f.Projects = append(f.Projects, g.ProjectID)
		}
	}
	return f
}

// listGroups serves GET /api/groups/: the teams the principal may see
// (none for anonymous callers), in ascending id order.
func (s *Server) listGroups(c *gin.Context) {
	anonymous := edge.Principal(c).Anonymous()
	var f index.TeamFilter
	if !anonymous {
		f = teamFilter(c)
	}
	writePage(s, c, func(p index.Page) ([]index.Team, int, error) {
		if anonymous {
			return nil, 0, nil
		}
		return s.store.FindTeamPage(c.Request.Context(), f, p)
	}, newGroupJSON)
}

// findGroup resolves the team of the request path; one the principal
// may not see (see teamFilter) is not found.
func (s *Server) findGroup(c *gin.Context) (index.Team, error) {
	id, err := pathID(c, "group")
	if err != nil {
		return index.Team{}, err
	}
	p := edge.Principal(c)
	if p.Anonymous() {
		return index.Team{}, edge.ErrNoRoute
	}
	ctx := c.Request.Context()
	t, err := s.store.FindTeam(ctx, id)
	if err != nil || canManageTeam(c, &t, true) || slices.Contains(t.Admins, p.User.Username) {
		return t, err
	}
	mine, err := s.store.FindUserTeams(ctx, p.User.ID)
	if err == nil && !slices.Contains(mine, t.ID) {
		err = edge.ErrNoRoute
	}
	return t, err
}

// writableGroup resolves the team of the request path for a change:
// 404 when there is none or its defining project is hidden from the
// principal, 403 unless the principal manages it. A team the principal
// is no member of is refused with a 403 rather than hidden, as writes
// to the projects' other objects are: its id is all that tells.
func (s *Server) writableGroup(c *gin.Context) (index.Team, error) {
	id, err := pathID(c, "group")
	if err != nil {
		return index.Team{}, err
	}
	t, err := s.store.FindTeam(c.Request.Context(), id)
	if err == nil {
		err = s.teamProjectVisible(c, &t)
	}
	if err == nil && !canManageTeam(c, &t, false) {
		err = index.Errorf(index.ErrPermission, msgManageGroups)
	}
	return t, err
}

// teamProjectVisible answers ErrNoRoute when t's defining project is
// hidden from the principal.
func (s *Server) teamProjectVisible(c *gin.Context, t *index.Team) error {
	if t.ProjectID == 0 {
		return nil
	}
	p, err := s.store.FindProjectByID(c.Request.Context(), t.ProjectID)
	if err != nil {
		return err
	}
	return edge.Visible(c, &p)
}

// getGroup serves GET /api/groups/:group/.
func (s *Server) getGroup(c *gin.Context) {
	t, err := s.findGroup(c)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	s.edge.WriteJSON(c, http.StatusOK, newGroupJSON(s.edge.URLsFor(c), &t))
}

// readGroup reads a team's name and selections into t.
func readGroup(pl *payload, t *index.Team, required bool) {
	if required {
		pl.require("name")
	}
	pl.str("name", &t.Name, false)
	pl.maxLength("name", t.Name, index.TeamNameLength)
	if v, ok := pl.intChoice("project_selection", []int{index.SelectManual, index.SelectAll,
		index.SelectComponentList, index.SelectAllPublic, index.SelectAllProtected}); ok {
		t.ProjectSelection = v
	}
	if v, ok := pl.intChoice("language_selection", []int{index.SelectManual, index.SelectAll}); ok {
		t.LanguageSelection = v
	}
}

// createGroup serves POST /api/groups/: name required, project_selection
// and language_selection (the reference's values) and defining_project
// (a project's API URL) optional; 201 with the team. A team of no
// project needs group.edit; a project's own team project.edit there (a
// project the caller may not edit "does not exist", as for categories).
// A project's team grants only in that project whatever its selection.
func (s *Server) createGroup(c *gin.Context) {
	pl, err := readPayload(c)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	var t index.Team
	readGroup(pl, &t, true)
	if pl.has("defining_project") && !pl.isNull("defining_project") {
		p, err := s.readProjectRef(c, pl, "defining_project")
		if err != nil {
			s.edge.Fail(c, err)
			return
		}
		t.ProjectID = p.ID
	} else if err := edge.Authorize(c, index.PermGroupEdit, 0, msgManageGroups); err != nil {
		s.edge.Fail(c, err)
		return
	}
	if err := pl.err(); err != nil {
		s.edge.Fail(c, err)
		return
	}
	t, err = s.store.CreateTeam(c.Request.Context(), t)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	body := newGroupJSON(s.edge.URLsFor(c), &t)
	c.Header("Location", body.URL)
	s.edge.WriteJSON(c, http.StatusCreated, body)
}

// msgBuiltinTeam refuses changing a built-in team, which the command
// line's grants fill: its name is how they find it.
const msgBuiltinTeam = "Built-in teams can not be renamed, reconfigured or removed; make a team of your own."

// updateGroup serves PUT (partial false: name required) and PATCH on
// /api/groups/:group/. The defining project stays: the field is ignored,
// as the reference's serializer keeps it on update.
func (s *Server) updateGroup(partial bool) gin.HandlerFunc {
	return func(c *gin.Context) {
		t, err := s.writableGroup(c)
		if err != nil {
			s.edge.Fail(c, err)
			return
		}
		pl, err := readPayload(c)
		if err != nil {
			s.edge.Fail(c, err)
			return
		}
		var in index.Team
		readGroup(pl, &in, !partial)
		if err := pl.err(); err != nil {
			s.edge.Fail(c, err)
			return
		}
		if t.Builtin {
			s.edge.Fail(c, index.Errorf(index.ErrInvalid, msgBuiltinTeam))
			return
		}
		t, err = s.store.UpdateTeam(c.Request.Context(), t.ID, func(q *index.Team) error {
			if pl.has("name") {
				q.Name = in.Name
			}
			if pl.has("project_selection") {
				q.ProjectSelection = in.ProjectSelection
			}
			if pl.has("language_selection") {
				q.LanguageSelection = in.LanguageSelection
			}
			return nil
		})
		if err != nil {
			s.edge.Fail(c, err)
			return
		}
		s.edge.WriteJSON(c, http.StatusOK, newGroupJSON(s.edge.URLsFor(c), &t))
	}
}

// deleteGroup serves DELETE /api/groups/:group/: 204; its members lose
// what it granted.
func (s *Server) deleteGroup(c *gin.Context) {
	t, err := s.writableGroup(c)
	if err == nil && t.Builtin {
		err = index.Errorf(index.ErrInvalid, msgBuiltinTeam)
	}
	if err == nil {
		err = s.store.DeleteTeam(c.Request.Context(), t.ID)
	}
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	noContent(c)
}

// groupLink is one of a team's lists as the API adds to and removes
// from it: the body field naming the entry to add, how to find an entry
// by that field's value or the path's, and whether a team lists it.
type groupLink struct {
	link  index.TeamLink
	field string
	// find returns the entry's id, or a FieldError on field (index.ErrNotFound
	// from the path) when there is none the principal may see.
	find   func(s *Server, c *gin.Context, v string) (int64, error)
	listed func(t *index.Team, id int64, v string) bool
}

// groupLinks are the lists, in the reference's order.
var groupLinks = []groupLink{
	{index.TeamRoles, "role_id", findRoleID, func(t *index.Team, id int64, _ string) bool { return slices.Contains(t.Roles, id) }},
	{index.TeamLanguages, "language_code", findLanguageID, func(t *index.Team, _ int64, v string) bool { return slices.Contains(t.Languages, v) }},
	{index.TeamProjects, "project_id", findProjectID, func(t *index.Team, id int64, _ string) bool { return slices.Contains(t.ProjectIDs, id) }},
	{index.TeamComponentLists, "component_list_id", findComponentListID, func(t *index.Team, id int64, _ string) bool {
		return slices.Contains(t.ComponentListIDs, id)
	}},
	{index.TeamComponents, "component_id", findComponentID, func(t *index.Team, id int64, _ string) bool {
		return slices.ContainsFunc(t.Components, func(x index.TeamComponent) bool { return x.ID == id })
	}},
	{index.TeamAdmins, "user_id", findUserID, func(t *index.Team, id int64, _ string) bool { return slices.Contains(t.AdminIDs, id) }},
}

// notFoundField is the refusal of an entry that does not exist, in the
// words of the reference's (Django's) DoesNotExist.
func notFoundField(field, what string) error {
	return index.FieldErr(field, "invalid", what+" matching query does not exist.")
}

// findEntry reads v as the id of an entry and looks it up: a malformed
// id, or one lookup answers ErrNotFound for (missing, or hidden from the
// principal), is missing, the field's problem.
func findEntry(missing error, v string, lookup func(id int64) error) (int64, error) {
	id, err := strconv.ParseInt(v, 10, 64)
	if err != nil || id < 1 {
		return 0, missing
	}
	if err := lookup(id); errors.Is(err, index.ErrNotFound) {
		return 0, missing
	} else if err != nil {
		return 0, err
	}
	return id, nil
}

func findRoleID(s *Server, c *gin.Context, v string) (int64, error) {
	return findEntry(notFoundField("role_id", "Role"), v, func(id int64) error {
		_, err := s.store.FindRole(c.Request.Context(), id)
		return err
	})
}

func findLanguageID(s *Server, c *gin.Context, v string) (int64, error) {
	id, err := s.store.FindLanguageID(c.Request.Context(), v)
	if errors.Is(err, index.ErrNotFound) {
		return 0, notFoundField("language_code", "Language")
	}
	return id, err
}

func findProjectID(s *Server, c *gin.Context, v string) (int64, error) {
	return findEntry(notFoundField("project_id", "Project"), v, func(id int64) error {
		p, err := s.store.FindProjectByID(c.Request.Context(), id)
		if err == nil {
			err = edge.Visible(c, &p)
		}
		return err
	})
}

func findComponentID(s *Server, c *gin.Context, v string) (int64, error) {
	return findEntry(notFoundField("component_id", "Component"), v, func(id int64) error {
		comp, err := s.store.FindComponentByID(c.Request.Context(), id)
		if err == nil {
			err = edge.Visible(c, &comp.Project)
		}
		return err
	})
}

func findComponentListID(s *Server, c *gin.Context, v string) (int64, error) {
	return findEntry(notFoundField("component_list_id", "ComponentList"), v, func(id int64) error {
		_, err := s.store.FindComponentListByID(c.Request.Context(), id)
		return err
	})
}

func findUserID(s *Server, c *gin.Context, v string) (int64, error) {
	return findEntry(index.FieldErr("user_id", "invalid", "User not found"), v, func(id int64) error {
		_, err := s.store.FindUserByID(c.Request.Context(), id)
		return err
	})
}

// readLinkValue reads the field naming an entry: a number or a text,
// required ("Missing role_id parameter", the reference's words).
func readLinkValue(pl *payload, field string) (string, error) {
	if !pl.has(field) {
		return "", index.FieldErr(field, "required", "Missing "+field+" parameter")
	}
	var v string
	if field == "language_code" {
		pl.str(field, &v, false)
	} else {
		var n int
		pl.integer(field, &n, 1, math.MaxInt64)
		v = strconv.Itoa(n)
	}
	return v, pl.err()
}

// addGroupLink serves POST /api/groups/:group/<list>/: the entry the
// body names joins the list; 200 with the team. Making a user an admin
// also makes it a member, as the reference does; the reference answers
// that one with a bare message, Tolk with the team like the others.
func (s *Server) addGroupLink(l groupLink) gin.HandlerFunc {
	return func(c *gin.Context) {
		t, err := s.writableGroup(c)
		if err != nil {
			s.edge.Fail(c, err)
			return
		}
		pl, err := readPayload(c)
		if err != nil {
			s.edge.Fail(c, err)
			return
		}
		v, err := readLinkValue(pl, l.field)
		var id int64
		if err == nil {
			id, err = l.find(s, c, v)
		}
		ctx := c.Request.Context()
		if err == nil {
			err = s.store.LinkTeam(ctx, t.ID, l.link, id, true, l.field)
		}
		if err == nil && l.link == index.TeamAdmins {
			err = s.store.LinkTeam(ctx, t.ID, index.TeamMembers, id, true, l.field)
		}
		if err == nil {
			t, err = s.store.FindTeam(ctx, t.ID)
		}
		if err != nil {
			s.edge.Fail(c, err)
			return
		}
		s.edge.WriteJSON(c, http.StatusOK, newGroupJSON(s.edge.URLsFor(c), &t))
	}
}

// removeGroupLink serves DELETE /api/groups/:group/<list>/:target/: 204,
// or 404 when the team does not list the entry.
func (s *Server) removeGroupLink(l groupLink) gin.HandlerFunc {
	return func(c *gin.Context) {
		t, err := s.writableGroup(c)
		if err != nil {
			s.edge.Fail(c, err)
			return
		}
		v := c.Param("target")
		id, err := l.find(s, c, v)
		if err == nil && !l.listed(&t, id, v) {
			err = edge.ErrNoRoute
		}
		if err != nil {
			if errors.Is(err, index.ErrInvalid) {
				err = edge.ErrNoRoute
			}
			s.edge.Fail(c, err)
			return
		}
		if err := s.store.LinkTeam(c.Request.Context(), t.ID, l.link, id, false, l.field); err != nil {
			s.edge.Fail(c, err)
			return
		}
		noContent(c)
	}
}

// userGroup serves POST (add true) and DELETE on
// /api/users/:username/groups/: the team named by group_id gains or
// loses the user as a member; 200 with the user. Needs user.edit, as
// the reference, or managing the team, or being one of its admins.
func (s *Server) userGroup(add bool) gin.HandlerFunc {
	return func(c *gin.Context) {
		ctx := c.Request.Context()
		pl, err := readPayload(c)
		if err != nil {
			s.edge.Fail(c, err)
			return
		}
		v, err := readLinkValue(pl, "group_id")
		if err != nil {
			s.edge.Fail(c, err)
			return
		}
		id, _ := strconv.ParseInt(v, 10, 64)
		p := edge.Principal(c)
		t, err := s.store.FindTeam(ctx, id)
		if errors.Is(err, index.ErrNotFound) {
			err = notFoundField("group_id", "Group")
		}
		if err == nil {
			err = s.teamProjectVisible(c, &t)
		}
		if err != nil {
			s.edge.Fail(c, err)
			return
		}
		if !p.Can(index.PermUserEdit, 0) && !canManageTeam(c, &t, false) &&
			!(slices.Contains(t.Admins, p.User.Username) && p.Unscoped()) {
			s.edge.Fail(c, index.Errorf(index.ErrPermission, msgManageTeamUsers))
			return
		}
		x, err := s.store.FindUser(ctx, c.Param("username"))
		if err == nil {
			err = s.store.LinkTeam(ctx, t.ID, index.TeamMembers, x.ID, add, "group_id")
		}
		if err != nil {
			s.edge.Fail(c, err)
			return
		}
		body, err := s.fullUser(c, &x)
		if err != nil {
			s.edge.Fail(c, err)
			return
		}
		s.edge.WriteJSON(c, http.StatusOK, body)
	}
}

// msgManageTeamUsers refuses changing a team's members.
const msgManageTeamUsers = "Can not manage users"

// fullUser is the full user object of x with its teams.
func (s *Server) fullUser(c *gin.Context, x *index.User) (fullUserJSON, error) {
	out, err := s.fullUsers(c, []index.User{*x})
	if err != nil {
		return fullUserJSON{}, err
	}
	return out[0], nil
}

// fullUsers is fullUser for a page of users, their teams read in one
// query.
func (s *Server) fullUsers(c *gin.Context, users []index.User) ([]fullUserJSON, error) {
	ids := make([]int64, len(users))
	for i := range users {
		ids[i] = users[i].ID
	}
	teams, err := s.store.FindUsersTeams(c.Request.Context(), ids)
	if err != nil {
		return nil, err
	}
	u := s.edge.URLsFor(c)
	out := make([]fullUserJSON, len(users))
	for i := range users {
		out[i] = newFullUserJSON(u, &users[i])
		for _, id := range teams[users[i].ID] {
			out[i].Groups = append(out[i].Groups, u.ByID("/api/groups/", id))
		}
	}
	return out, nil
}
