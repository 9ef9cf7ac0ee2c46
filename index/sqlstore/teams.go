package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"

	"github.com/tolk-project/tolk/index"
)

// Teams and roles (migration 0040). A principal's grants are its teams
// expanded (teamGrants): one grant per role and project, component or
// site the team selects, narrowed to the team's languages, so that
// index.Principal's one check reads them all.

// teamGrants returns the grants user's teams give: for each team, each
// of its roles over each project or component it selects (a site-wide
// grant for every project), narrowed to its languages. It is one query
// (teamGrantsQuery), which every request with a token or a session
// runs after reading its user.
func teamGrants(ctx context.Context, q queryer, userID int64) ([]index.Grant, error) {
	rows, err := q.QueryContext(ctx, teamGrantsQuery, userID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	type team struct {
		project          int64
		projSel, langSel int
		roles            []teamRole
		listed, lists    [][2]int64
		languages        []string
	}
	teams := map[int64]*team{}
	var order []int64
	perms := map[int64][]index.Permission{}
	for rows.Next() {
		var kind, text string
		var id, n1, n2, n3 int64
		if err := rows.Scan(&kind, &id, &n1, &n2, &n3, &text); err != nil {
			return nil, err
		}
		if kind == "x" { // a custom role's permission: role id, permission
			perms[id] = append(perms[id], index.Permission(text))
			continue
		}
		t := teams[id]
		if t == nil {
			t = &team{}
			teams[id] = t
			order = append(order, id)
		}
		switch kind {
		case "t": // the team: defining project, selections
			t.project, t.projSel, t.langSel = n1, int(n2), int(n3)
		case "r": // a role: id, built-in, name
			t.roles = append(t.roles, teamRole{id: n1, name: text, builtin: n2 != 0})
		case "p": // a project or component it lists
			t.listed = append(t.listed, [2]int64{n1, n2})
		case "k": // a component of one of its component lists
			t.lists = append(t.lists, [2]int64{n1, n2})
		case "l":
			t.languages = append(t.languages, text)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	slices.Sort(order)
	var out []index.Grant
	for _, id := range order {
		t := teams[id]
		for _, r := range t.roles {
			// A built-in role's permissions are Tolk's (index.BuiltinRoles),
			// filled here once so that no permission check looks the
			// role up by name (Grant.has).
			g := index.Grant{UserID: userID, Role: r.name, Permissions: builtinPerms(r.name)}
			if !r.builtin {
				g.Permissions = append([]index.Permission{}, perms[r.id]...)
			}
			if t.langSel != index.SelectAll {
				g.Languages = append([]string{}, t.languages...)
			}
			for _, at := range teamTargets(t.project, t.projSel, t.listed, t.lists) {
				g.ProjectID, g.ComponentID = at[0], at[1]
				out = append(out, g)
			}
		}
	}
	return out, nil
}

// teamGrantsQuery reads everything teamGrants needs of one user's teams,
// a row per fact: kind, then the team's id (a role's for "x") and what
// the kind says. The public and protected projects that selections 3
// and 4 choose come as listed projects.
const teamGrantsQuery = `WITH mine AS (SELECT team_id FROM team_members WHERE user_id = ?)
	SELECT 't', t.id, coalesce(t.project_id, 0), t.project_selection, t.language_selection, ''
		FROM teams t WHERE t.id IN (SELECT team_id FROM mine)
	UNION ALL SELECT 'r', tr.team_id, r.id, r.builtin, 0, r.name FROM team_roles tr JOIN roles r ON r.id = tr.role_id
		WHERE tr.team_id IN (SELECT team_id FROM mine)
	UNION ALL SELECT 'x', rp.role_id, 0, 0, 0, rp.permission FROM role_permissions rp
		WHERE rp.role_id IN (SELECT role_id FROM team_roles WHERE team_id IN (SELECT team_id FROM mine))
	UNION ALL SELECT 'p', team_id, project_id, 0, 0, '' FROM team_projects WHERE team_id IN (SELECT team_id FROM mine)
	UNION ALL SELECT 'p', tc.team_id, c.project_id, c.id, 0, '' FROM team_components tc
		JOIN components c ON c.id = tc.component_id WHERE tc.team_id IN (SELECT team_id FROM mine)
	UNION ALL SELECT 'p', t.id, p.id, 0, 0, '' FROM teams t JOIN projects p
		ON p.access_control = CASE t.project_selection WHEN 3 THEN 0 WHEN 4 THEN 1 ELSE -1 END
		WHERE t.id IN (SELECT team_id FROM mine)
	UNION ALL SELECT 'k', tl.team_id, c.project_id, c.id, 0, '' FROM team_componentlists tl
		JOIN componentlist_components lc ON lc.list_id = tl.list_id
		JOIN components c ON c.id = lc.component_id WHERE tl.team_id IN (SELECT team_id FROM mine)
	UNION ALL SELECT 'l', tl.team_id, 0, 0, 0, l.code FROM team_languages tl
		JOIN languages l ON l.id = tl.language_id WHERE tl.team_id IN (SELECT team_id FROM mine)
	ORDER BY 1, 2, 3, 4, 6`

// builtinPerms returns the permissions of the built-in role named name,
// never nil: a stored built-in role Tolk no longer defines grants
// nothing, as Grant.has answered for it.
func builtinPerms(name string) []index.Permission {
	if b, ok := index.FindRole(name); ok {
		return b.Permissions
	}
	return []index.Permission{}
}

// teamRole is a role of a team as teamGrants reads it.
type teamRole struct {
	id      int64
	name    string
	builtin bool
}

// teamTargets returns the projects and components (0 for a whole
// project) a team's roles reach: site-wide ({0, 0}) for a team of every
// project; a defining project's team reaches only that project (the
// components of it the team lists, or else all of it); the others what
// their selection finds.
func teamTargets(defining int64, sel int, listed, lists [][2]int64) [][2]int64 {
	if defining != 0 {
		var comps [][2]int64
		for _, at := range listed {
			if at[0] == defining && at[1] != 0 {
				comps = append(comps, at)
			}
		}
		if comps != nil {
			return comps
		}
		return [][2]int64{{defining, 0}}
	}
	switch sel {
	case index.SelectAll:
		return [][2]int64{{0, 0}}
	case index.SelectComponentList:
		return lists
	}
	return listed
}

// FindGrants returns the grants a user's teams give (teamGrants).
func (db *DB) FindGrants(ctx context.Context, userID int64) ([]index.Grant, error) {
	g, err := db.userGrants(ctx, userID)
	return g, formatError(err)
}

// userGrants is teamGrants for userID, kept in db.grants until a write
// that touches everything commits. Every write to what teamGrants reads
// (teams, their members, roles and permissions, projects, components,
// component lists) is such a write: none of them is a writeNarrow. On
// PostgreSQL another process's writes reach the cache through write_log
// as every other lookup's do (lookup catches the clock up first), so a
// grant revoked from the command line stops working at the next request.
// Without it every request with a token or a session ran teamGrants'
// query after the token's: 4–5× the cost of Authenticate before teams.
// The caller gets its own slice; the grants' own slices are shared with
// the cache and must not be modified.
func (db *DB) userGrants(ctx context.Context, userID int64) ([]index.Grant, error) {
	g, err := lookup(ctx, db, &db.grants, userID, nil, func() ([]index.Grant, error) {
		return teamGrants(ctx, db.r, userID)
	})
	return slices.Clone(g), err
}

// AddGrant gives a user a built-in role in a project (or site-wide for
// ProjectID 0): it makes the user a member of the built-in team named
// after the role in that project (site-wide: of every project), creating
// the team when the project has none. Granting what the user already
// has changes nothing.
func (db *DB) AddGrant(ctx context.Context, g index.Grant) error {
	r, ok := index.FindRole(g.Role)
	if !ok {
		return index.Errorf(index.ErrInvalid, "Unknown role %q.", g.Role)
	}
	return db.write(ctx, func(tx *Tx) error {
		team, err := builtinTeam(tx, r.Name, g.ProjectID, true)
		if err != nil {
			return err
		}
		_, err = tx.Exec(`INSERT INTO team_members (team_id, user_id) VALUES (?, ?) ON CONFLICT DO NOTHING`,
			team, g.UserID)
		return err
	})
}

// RemoveGrant takes a role back: the user leaves the built-in team that
// AddGrant would have made it a member of. Removing what is not granted
// is no error.
func (db *DB) RemoveGrant(ctx context.Context, g index.Grant) error {
	r, ok := index.FindRole(g.Role)
	if !ok {
		return index.Errorf(index.ErrInvalid, "Unknown role %q.", g.Role)
	}
	return db.write(ctx, func(tx *Tx) error {
		team, err := builtinTeam(tx, r.Name, g.ProjectID, false)
		if err != nil || team == 0 {
			return err
		}
		_, err = tx.Exec(`DELETE FROM team_members WHERE team_id = ? AND user_id = ?`, team, g.UserID)
		return err
	})
}

// builtinTeam returns the id of the built-in team named after a
// built-in role in a project (0: the site-wide one), creating it with
// that role when create is set, or 0 when there is none. A custom team
// holding the name is an ErrConflict: its roles are not the grant's.
func builtinTeam(tx *Tx, role string, projectID int64, create bool) (int64, error) {
	var id int64
	var builtin bool
	err := tx.QueryRow(`SELECT id, builtin FROM teams WHERE name = ? AND coalesce(project_id, 0) = ?`,
		role, projectID).Scan(&id, &builtin)
	switch {
	case err == nil && !builtin:
		return 0, index.Errorf(index.ErrConflict, "The team %q is not the built-in one of the role.", role)
	case err == nil || !errors.Is(err, sql.ErrNoRows) || !create:
		if errors.Is(err, sql.ErrNoRows) {
			err = nil
		}
		return id, err
	}
	sel := index.SelectManual
	if projectID == 0 {
		sel = index.SelectAll
	}
	res, err := tx.Exec(`INSERT INTO teams (name, project_id, project_selection, language_selection, builtin)
		VALUES (?, ?, ?, ?, 1)`, role, nullID(projectID), sel, index.SelectAll)
	if err != nil {
		return 0, err
	}
	if id, err = tx.lastInsertID(res); err != nil {
		return 0, err
	}
	if _, err := tx.Exec(`INSERT INTO team_roles (team_id, role_id) SELECT ?, id FROM roles WHERE name = ?`,
		id, role); err != nil {
		return 0, err
	}
	if projectID != 0 {
		_, err = tx.Exec(`INSERT INTO team_projects (team_id, project_id) VALUES (?, ?)`, id, projectID)
	}
	return id, err
}

// Roles.

// FindRoles returns every role in ascending id order: the built-in ones
// first (the migration made them), with their permissions.
func (db *DB) FindRoles(ctx context.Context) ([]index.StoredRole, error) {
	return findRoles(ctx, db.r, 0)
}

// FindRole returns the role with the given id, or ErrNotFound.
func (db *DB) FindRole(ctx context.Context, id int64) (index.StoredRole, error) {
	return findRole(ctx, db.r, id)
}

// findRole is FindRole on q (a write's transaction: findRoleTx).
func findRole(ctx context.Context, q queryer, id int64) (index.StoredRole, error) {
	roles, err := findRoles(ctx, q, id)
	if err == nil && len(roles) == 0 {
		err = index.Errorf(index.ErrNotFound, "No role matches the given query.")
	}
	if err != nil {
		return index.StoredRole{}, err
	}
	return roles[0], nil
}

// findRoles returns the role with the given id, or every role for 0.
func findRoles(ctx context.Context, q queryer, id int64) ([]index.StoredRole, error) {
	// The id is a request's: compared with r.id alone, so that
	// PostgreSQL types it as the column (a bare "? = 0" is an int4, and
	// an id past 2^31 failed to encode: a 500 instead of a 404).
	where, args := "", []any(nil)
	if id != 0 {
		where, args = "WHERE r.id = ?", []any{id}
	}
	rows, err := q.QueryContext(ctx, `SELECT r.id, r.name, r.builtin, coalesce(p.permission, '')
		FROM roles r LEFT JOIN role_permissions p ON p.role_id = r.id
		`+where+` ORDER BY r.id, p.permission`, args...)
	if err != nil {
		return nil, formatError(err)
	}
	defer rows.Close()
	var out []index.StoredRole
	for rows.Next() {
		var r index.StoredRole
		var perm string
		if err := rows.Scan(&r.ID, &r.Name, &r.Builtin, &perm); err != nil {
			return nil, formatError(err)
		}
		if n := len(out); n == 0 || out[n-1].ID != r.ID {
			r.Permissions = []index.Permission{}
			if b, ok := index.FindRole(r.Name); ok && r.Builtin {
				r.Permissions = b.Permissions
			}
			out = append(out, r)
		}
		if perm != "" && !out[len(out)-1].Builtin {
			last := &out[len(out)-1]
			last.Permissions = append(last.Permissions, index.Permission(perm))
		}
	}
	return out, formatError(rows.Err())
}

// roleNameTaken is the reference's words for a name another role has.
const roleNameTaken = "Role with this Name already exists."

// CreateRole adds a custom role with the given name and permissions
// (checked by the caller) and returns it.
func (db *DB) CreateRole(ctx context.Context, r index.Role) (index.StoredRole, error) {
	var saved index.StoredRole
	err := db.write(ctx, func(tx *Tx) error {
		if err := nameFree(tx, roleNameTaken, `SELECT count(*) FROM roles WHERE name = ?`, r.Name); err != nil {
			return err
		}
		res, err := tx.Exec(`INSERT INTO roles (name, builtin) VALUES (?, 0)`, r.Name)
		if err != nil {
			return err
		}
		id, err := tx.lastInsertID(res)
		if err != nil {
			return err
		}
		if err := addRolePermissions(tx, id, r.Permissions); err != nil {
			return err
		}
		saved, err = findRoleTx(tx, id)
		return err
	})
	return saved, err
}

// UpdateRole renames a custom role (name "" keeps it) and adds perms to
// its permissions, or, with replace, makes them its permissions. A
// built-in role is an ErrInvalid: its permissions are Tolk's.
func (db *DB) UpdateRole(ctx context.Context, id int64, name string, perms []index.Permission, replace bool) (index.StoredRole, error) {
	var saved index.StoredRole
	err := db.write(ctx, func(tx *Tx) error {
		r, err := findRoleTx(tx, id)
		if err != nil {
			return err
		}
		if r.Builtin {
			return index.Errorf(index.ErrInvalid, "Built-in roles can not be changed.")
		}
		if name != "" && name != r.Name {
			if err := nameFree(tx, roleNameTaken, `SELECT count(*) FROM roles WHERE name = ?`, name); err != nil {
				return err
			}
			if _, err := tx.Exec(`UPDATE roles SET name = ? WHERE id = ?`, name, id); err != nil {
				return err
			}
		}
		if replace {
			if _, err := tx.Exec(`DELETE FROM role_permissions WHERE role_id = ?`, id); err != nil {
				return err
			}
		}
		if err := addRolePermissions(tx, id, perms); err != nil {
			return err
		}
		saved, err = findRoleTx(tx, id)
		return err
	})
	return saved, err
}

// DeleteRole removes a custom role; the teams holding it lose it.
func (db *DB) DeleteRole(ctx context.Context, id int64) error {
	return db.write(ctx, func(tx *Tx) error {
		r, err := findRoleTx(tx, id)
		if err != nil {
			return err
		}
		if r.Builtin {
			return index.Errorf(index.ErrInvalid, "Built-in roles can not be removed.")
		}
		_, err = tx.Exec(`DELETE FROM roles WHERE id = ?`, id)
		return err
	})
}

// findRoleTx is findRole inside a write.
func findRoleTx(tx *Tx, id int64) (index.StoredRole, error) {
	return findRole(context.Background(), tx.queryer(), id)
}

func addRolePermissions(tx *Tx, id int64, perms []index.Permission) error {
	for _, p := range perms {
		if _, err := tx.Exec(`INSERT INTO role_permissions (role_id, permission) VALUES (?, ?)
			ON CONFLICT DO NOTHING`, id, string(p)); err != nil {
			return err
		}
	}
	return nil
}

// nameFree returns a FieldError on "name" saying taken when count (a
// query counting the rows holding the name, over args) finds any.
func nameFree(tx *Tx, taken, count string, args ...any) error {
	var n int
	if err := tx.QueryRow(count, args...).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		return index.FieldErr("name", "unique", taken)
	}
	return nil
}

// Teams.

// FindTeamPage returns one page of the teams f selects in ascending id
// order, with their links, and their number.
func (db *DB) FindTeamPage(ctx context.Context, f index.TeamFilter, pg index.Page) ([]index.Team, int, error) {
	where, args := `1 = 1`, []any{}
	if !f.Everything {
		where = `(t.id IN (SELECT team_id FROM team_members WHERE user_id = ?)
			OR t.id IN (SELECT team_id FROM team_admins WHERE user_id = ?)`
		args = []any{f.UserID, f.UserID}
		if len(f.Projects) > 0 {
			cond, ids := idList(f.Projects)
			where += ` OR t.project_id IN ` + cond
			args = append(args, ids...)
		}
		where += `)`
	}
	var total int
	if err := db.r.QueryRowContext(ctx, `SELECT count(*) FROM teams t WHERE `+where, args...).Scan(&total); err != nil {
		return nil, 0, formatError(err)
	}
	if total == 0 || pg.Offset() >= total {
		return nil, total, nil
	}
	rows, err := db.r.QueryContext(ctx, `SELECT `+teamColumns+` FROM teams t LEFT JOIN projects p ON p.id = t.project_id
		WHERE `+where+` ORDER BY t.id LIMIT ? OFFSET ?`, withArgs(args, pageLimit(pg), pg.Offset())...)
	if err != nil {
		return nil, 0, formatError(err)
	}
	out, err := collectTeams(rows)
	if err != nil {
		return nil, 0, formatError(err)
	}
	if err := fillTeamLinks(ctx, db.r, out); err != nil {
		return nil, 0, formatError(err)
	}
	return out, total, nil
}

const teamColumns = `t.id, t.name, coalesce(t.project_id, 0), coalesce(p.slug, ''), t.project_selection,
	t.language_selection, t.builtin`

func collectTeams(rows *sql.Rows) ([]index.Team, error) {
	defer rows.Close()
	var out []index.Team
	for rows.Next() {
		var t index.Team
		if err := rows.Scan(&t.ID, &t.Name, &t.ProjectID, &t.Project, &t.ProjectSelection, &t.LanguageSelection,
			&t.Builtin); err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// FindTeam returns a team with its links by id, or ErrNotFound.
func (db *DB) FindTeam(ctx context.Context, id int64) (index.Team, error) {
	t, err := findTeam(ctx, db.r, id)
	return t, formatError(err)
}

func findTeam(ctx context.Context, q queryer, id int64) (index.Team, error) {
	rows, err := q.QueryContext(ctx, `SELECT `+teamColumns+` FROM teams t LEFT JOIN projects p ON p.id = t.project_id
		WHERE t.id = ?`, id)
	if err != nil {
		return index.Team{}, err
	}
	teams, err := collectTeams(rows)
	if err != nil {
		return index.Team{}, err
	}
	if len(teams) == 0 {
		return index.Team{}, index.Errorf(index.ErrNotFound, "No group matches the given query.")
	}
	err = fillTeamLinks(ctx, q, teams[:1])
	return teams[0], err
}

// fillTeamLinks reads what teams list, in one query for all of them (a
// page of the team list asked one per team).
func fillTeamLinks(ctx context.Context, q queryer, teams []index.Team) error {
	if len(teams) == 0 {
		return nil
	}
	byID := make(map[int64]*index.Team, len(teams))
	ids := make([]int64, len(teams))
	for i := range teams {
		t := &teams[i]
		byID[t.ID], ids[i] = t, t.ID
		t.Roles, t.Languages, t.Projects, t.ProjectIDs, t.Components = nil, nil, nil, nil, nil
		t.ComponentLists, t.ComponentListIDs, t.Admins, t.AdminIDs = nil, nil, nil, nil
	}
	list, args := idList(ids)
	rows, err := q.QueryContext(ctx, `SELECT team_id, 'r', role_id, '', '' FROM team_roles WHERE team_id IN `+list+`
		UNION ALL SELECT tl.team_id, 'l', l.id, l.code, '' FROM team_languages tl JOIN languages l ON l.id = tl.language_id
			WHERE tl.team_id IN `+list+`
		UNION ALL SELECT tp.team_id, 'p', p.id, p.slug, '' FROM team_projects tp JOIN projects p ON p.id = tp.project_id
			WHERE tp.team_id IN `+list+`
		UNION ALL SELECT tc.team_id, 'c', c.id, p.slug, c.slug FROM team_components tc JOIN components c ON c.id = tc.component_id
			JOIN projects p ON p.id = c.project_id WHERE tc.team_id IN `+list+`
		UNION ALL SELECT tk.team_id, 'k', k.id, k.slug, '' FROM team_componentlists tk JOIN componentlists k ON k.id = tk.list_id
			WHERE tk.team_id IN `+list+`
		UNION ALL SELECT ta.team_id, 'a', u.id, u.username, '' FROM team_admins ta JOIN users u ON u.id = ta.user_id
			WHERE ta.team_id IN `+list+`
		ORDER BY 1, 2, 3`, slices.Concat(args, args, args, args, args, args)...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var kind, a, b string
		var teamID, id int64
		if err := rows.Scan(&teamID, &kind, &id, &a, &b); err != nil {
			return err
		}
		t := byID[teamID]
		switch kind {
		case "r":
			t.Roles = append(t.Roles, id)
		case "l":
			t.Languages = append(t.Languages, a)
		case "p":
			t.Projects, t.ProjectIDs = append(t.Projects, a), append(t.ProjectIDs, id)
		case "c":
			t.Components = append(t.Components, index.TeamComponent{ID: id, Project: a, Slug: b})
		case "k":
			t.ComponentLists, t.ComponentListIDs = append(t.ComponentLists, a), append(t.ComponentListIDs, id)
		case "a":
			t.Admins, t.AdminIDs = append(t.Admins, a), append(t.AdminIDs, id)
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	for i := range teams {
		slices.Sort(teams[i].Languages)
	}
	return nil
}

// teamNameTaken is the reference's words for a name another team of the
// same defining project has.
const teamNameTaken = "Group with this Name already exists."

// CreateTeam adds a team (selections checked by the caller) and returns
// it.
func (db *DB) CreateTeam(ctx context.Context, t index.Team) (index.Team, error) {
	var saved index.Team
	err := db.write(ctx, func(tx *Tx) error {
		if err := teamNameFree(tx, t.Name, t.ProjectID, 0); err != nil {
			return err
		}
		res, err := tx.Exec(`INSERT INTO teams (name, project_id, project_selection, language_selection)
			VALUES (?, ?, ?, ?)`, t.Name, nullID(t.ProjectID), t.ProjectSelection, t.LanguageSelection)
		if err != nil {
			return err
		}
		id, err := tx.lastInsertID(res)
		if err != nil {
			return err
		}
		saved, err = findTeam(context.Background(), tx.queryer(), id)
		return err
	})
	return saved, err
}

// teamNameFree is nameFree for a team's name: unique within its
// project (0: site-wide), self (0: none) aside.
func teamNameFree(tx *Tx, name string, projectID, self int64) error {
	return nameFree(tx, teamNameTaken, `SELECT count(*) FROM teams WHERE name = ? AND coalesce(project_id, 0) = ? AND id <> ?`,
		name, projectID, self)
}

// UpdateTeam applies update to the stored team in one transaction and
// returns it. Its defining project cannot change.
func (db *DB) UpdateTeam(ctx context.Context, id int64, update func(*index.Team) error) (index.Team, error) {
	var saved index.Team
	err := db.write(ctx, func(tx *Tx) error {
		t, err := findTeam(context.Background(), tx.queryer(), id)
		if err != nil {
			return err
		}
		projectID := t.ProjectID
		if err := update(&t); err != nil {
			return err
		}
		if err := teamNameFree(tx, t.Name, projectID, id); err != nil {
			return err
		}
		if _, err := tx.Exec(`UPDATE teams SET name = ?, project_selection = ?, language_selection = ? WHERE id = ?`,
			t.Name, t.ProjectSelection, t.LanguageSelection, id); err != nil {
			return err
		}
		saved, err = findTeam(context.Background(), tx.queryer(), id)
		return err
	})
	return saved, err
}

// DeleteTeam removes a team; its members lose what it granted.
func (db *DB) DeleteTeam(ctx context.Context, id int64) error {
	return db.write(ctx, func(tx *Tx) error {
		res, err := tx.Exec(`DELETE FROM teams WHERE id = ?`, id)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err == nil && n == 0 {
			return index.Errorf(index.ErrNotFound, "No group matches the given query.")
		}
		return err
	})
}

// teamLinkTables are the table and column of each kind of link.
var teamLinkTables = map[index.TeamLink][2]string{
	index.TeamRoles:          {"team_roles", "role_id"},
	index.TeamLanguages:      {"team_languages", "language_id"},
	index.TeamProjects:       {"team_projects", "project_id"},
	index.TeamComponents:     {"team_components", "component_id"},
	index.TeamComponentLists: {"team_componentlists", "list_id"},
	index.TeamAdmins:         {"team_admins", "user_id"},
	index.TeamMembers:        {"team_members", "user_id"},
}

// teamOwnProject is the refusal of a project or component outside a
// project team's own project.
const teamOwnProject = "A project's own team can only list that project and its components."

// LinkTeam adds (or, with add false, removes) the role, language,
// project, component, component list or user with the given id to a
// team's list of that kind. A project's own team lists only that
// project and its components (an *index.FieldError on field). Adding
// what is listed or removing what is not changes nothing; the target's
// existence is the caller's to check.
func (db *DB) LinkTeam(ctx context.Context, teamID int64, link index.TeamLink, target int64, add bool, field string) error {
	tc, ok := teamLinkTables[link]
	if !ok {
		return fmt.Errorf("sqlstore: unknown team link %q", link)
	}
	return db.write(ctx, func(tx *Tx) error {
		var projectID int64
		if err := tx.QueryRow(`SELECT coalesce(project_id, 0) FROM teams WHERE id = ?`, teamID).Scan(&projectID); err != nil {
			return err
		}
		if add && projectID != 0 && (link == index.TeamProjects || link == index.TeamComponents) {
			owner := target
			if link == index.TeamComponents {
				if err := tx.QueryRow(`SELECT project_id FROM components WHERE id = ?`, target).Scan(&owner); err != nil {
					return err
				}
			}
			if owner != projectID {
				return index.FieldErr(field, "invalid", teamOwnProject)
			}
		}
		var err error
		if add {
			_, err = tx.Exec(`INSERT INTO `+tc[0]+` (team_id, `+tc[1]+`) VALUES (?, ?) ON CONFLICT DO NOTHING`,
				teamID, target)
		} else {
			_, err = tx.Exec(`DELETE FROM `+tc[0]+` WHERE team_id = ? AND `+tc[1]+` = ?`, teamID, target)
		}
		return err
	})
}

// FindUserTeams returns the ids of the teams a user is a member of, in
// ascending order.
func (db *DB) FindUserTeams(ctx context.Context, userID int64) ([]int64, error) {
	all, err := db.FindUsersTeams(ctx, []int64{userID})
	return all[userID], err
}

// FindUsersTeams is FindUserTeams for several users in one query (a page
// of the user list): each user's team ids in ascending order, by user
// id; a user in no team is absent.
func (db *DB) FindUsersTeams(ctx context.Context, userIDs []int64) (map[int64][]int64, error) {
	out := map[int64][]int64{}
	for chunk := range slices.Chunk(userIDs, maxInList) {
		list, args := idList(chunk)
		rows, err := db.r.QueryContext(ctx, `SELECT user_id, team_id FROM team_members WHERE user_id IN `+list+`
			ORDER BY user_id, team_id`, args...)
		if err != nil {
			return nil, formatError(err)
		}
		for rows.Next() {
			var user, team int64
			if err := rows.Scan(&user, &team); err != nil {
				rows.Close()
				return nil, formatError(err)
			}
			out[user] = append(out[user], team)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, formatError(err)
		}
	}
	return out, nil
}

// FindLanguageID returns the row id of the language with the given
// code, or ErrNotFound: what a team's list of languages holds.
func (db *DB) FindLanguageID(ctx context.Context, code string) (int64, error) {
	var id int64
	err := db.r.QueryRowContext(ctx, `SELECT id FROM languages WHERE code = ?`, code).Scan(&id)
	return id, formatError(err)
}
