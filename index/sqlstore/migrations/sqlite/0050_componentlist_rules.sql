-- Component lists' automatic assignment rules (the reference's
-- AutoComponentList): a component whose project slug and slug match
-- both regular expressions joins the list when it is created or renamed
-- and when the rule is written.
CREATE TABLE componentlist_rules (
	list_id         BIGINT NOT NULL REFERENCES componentlists(id) ON DELETE CASCADE,
	position        INTEGER NOT NULL,
	project_match   TEXT NOT NULL,
	component_match TEXT NOT NULL,
	PRIMARY KEY (list_id, position)
);
