-- Component lists (the reference's trans.ComponentList): named lists of
-- components of any projects, shown on the dashboard, and the lists a
-- team selects its components through (project_selection 2).
CREATE TABLE componentlists (
	id             INTEGER PRIMARY KEY,
	name           TEXT NOT NULL,
	slug           TEXT NOT NULL,
	show_dashboard INTEGER NOT NULL DEFAULT 1
);
CREATE UNIQUE INDEX componentlists_name ON componentlists(name);
CREATE UNIQUE INDEX componentlists_slug ON componentlists(slug);
CREATE TABLE componentlist_components (
	list_id      BIGINT NOT NULL REFERENCES componentlists(id) ON DELETE CASCADE,
	component_id BIGINT NOT NULL REFERENCES components(id) ON DELETE CASCADE,
	PRIMARY KEY (list_id, component_id)
);
CREATE INDEX componentlist_components_component ON componentlist_components(component_id);
CREATE TABLE team_componentlists (
	team_id BIGINT NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
	list_id BIGINT NOT NULL REFERENCES componentlists(id) ON DELETE CASCADE,
	PRIMARY KEY (team_id, list_id)
);
