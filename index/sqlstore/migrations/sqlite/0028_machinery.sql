-- A project's machine translation services, as the reference's
-- Project.machinery_settings (reference workspace §6.1): one row per
-- service identifier ("apertium-apy", "deepl") with its configuration as
-- the JSON object the API was given (url, key, ...). Rows are replaced
-- by the project's machinery_settings writes; the site-wide services are
-- in the setup file, not here.
CREATE TABLE machinery_settings (
	project_id    BIGINT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
	service       TEXT NOT NULL,
	configuration TEXT NOT NULL,
	PRIMARY KEY (project_id, service)
);
