-- Teams and roles (the reference's weblate.auth Group and Role). A team
-- gives its members its roles over a selection of projects (or the
-- projects and components it lists; or only its defining project,
-- project_id) and of languages. Selections take the reference's values
-- (index.Select*). Built-in roles keep their permissions in code
-- (index.BuiltinRoles), so a permission a later Tolk adds to a built-in
-- role reaches every deployment; custom roles list theirs in
-- role_permissions.
CREATE TABLE roles (
	id      INTEGER PRIMARY KEY,
	name    TEXT NOT NULL UNIQUE,
	builtin INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE role_permissions (
	role_id    BIGINT NOT NULL REFERENCES roles(id) ON DELETE CASCADE,
	permission TEXT NOT NULL,
	PRIMARY KEY (role_id, permission)
);
INSERT INTO roles (name, builtin) VALUES ('Translate', 1), ('Review strings', 1),
	('Manage strings', 1), ('Manage repository', 1), ('Administration', 1),
	('Add projects', 1), ('Manage languages', 1), ('Manage translation memory', 1),
	('Manage teams', 1), ('Automatic translation', 1);

CREATE TABLE teams (
	id                 INTEGER PRIMARY KEY,
	name               TEXT NOT NULL,
	project_id         BIGINT REFERENCES projects(id) ON DELETE CASCADE,
	project_selection  INTEGER NOT NULL DEFAULT 0,
	language_selection INTEGER NOT NULL DEFAULT 0,
	builtin            INTEGER NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX teams_name ON teams(project_id, name);
CREATE UNIQUE INDEX teams_top_name ON teams(name) WHERE project_id IS NULL;
CREATE TABLE team_roles (
	team_id BIGINT NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
	role_id BIGINT NOT NULL REFERENCES roles(id) ON DELETE CASCADE,
	PRIMARY KEY (team_id, role_id)
);
CREATE TABLE team_projects (
	team_id    BIGINT NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
	project_id BIGINT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
	PRIMARY KEY (team_id, project_id)
);
CREATE TABLE team_components (
	team_id      BIGINT NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
	component_id BIGINT NOT NULL REFERENCES components(id) ON DELETE CASCADE,
	PRIMARY KEY (team_id, component_id)
);
CREATE TABLE team_languages (
	team_id     BIGINT NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
	language_id BIGINT NOT NULL REFERENCES languages(id) ON DELETE CASCADE,
	PRIMARY KEY (team_id, language_id)
);
-- Members hold the team's roles; admins may change its membership.
CREATE TABLE team_members (
	team_id BIGINT NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
	user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
	PRIMARY KEY (team_id, user_id)
);
CREATE INDEX team_members_user ON team_members(user_id);
CREATE TABLE team_admins (
	team_id BIGINT NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
	user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
	PRIMARY KEY (team_id, user_id)
);

-- The grants become built-in teams: one site-wide team per built-in role
-- (every project, every language), and one per role and project that
-- anyone was granted it in, named after the role, so that every grant
-- is a membership of the team that grants the same.
INSERT INTO teams (name, project_selection, language_selection, builtin)
	SELECT name, 1, 1, 1 FROM roles ORDER BY id;
INSERT INTO teams (name, project_id, project_selection, language_selection, builtin)
	SELECT DISTINCT g.role, g.project_id, 0, 1, 1 FROM grants g JOIN roles r ON r.name = g.role
	WHERE g.project_id <> 0 ORDER BY g.project_id, g.role;
INSERT INTO team_roles (team_id, role_id)
	SELECT t.id, r.id FROM teams t JOIN roles r ON r.name = t.name;
INSERT INTO team_projects (team_id, project_id)
	SELECT id, project_id FROM teams WHERE project_id IS NOT NULL;
INSERT INTO team_members (team_id, user_id)
	SELECT t.id, g.user_id FROM grants g JOIN teams t
	ON t.name = g.role AND coalesce(t.project_id, 0) = g.project_id;

DROP TRIGGER projects_delete_access;
DROP TABLE grants;
-- A project's removal takes its tokens along (project_id 0 is every
-- project, so this cannot be a foreign key); its teams and their links go
-- by the cascades.
CREATE TRIGGER projects_delete_access AFTER DELETE ON projects BEGIN
	DELETE FROM tokens WHERE project_id = old.id;
END;
