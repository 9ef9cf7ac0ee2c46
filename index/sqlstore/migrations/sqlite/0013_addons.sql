-- Add-ons (issue: outbound events) and the outbox of their deliveries.
--
-- An add-on is installed on a component, or on its whole project when
-- component_id is NULL; configuration is its settings as JSON (addons.go).
CREATE TABLE addons (
	id            INTEGER PRIMARY KEY AUTOINCREMENT,
	name          TEXT NOT NULL,
	project_id    INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
	component_id  INTEGER REFERENCES components(id) ON DELETE CASCADE,
	configuration TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX addons_project ON addons(project_id);
CREATE INDEX addons_component ON addons(component_id);

-- The outbox: one row per change and webhook that wants it, inserted in
-- the change's own transaction (insertChange), so that a crash never
-- loses an event. event is the change as it was sent for, frozen then
-- (a JSON object, deliveries.go), so that removing what it names later
-- changes nothing of it. Neither addon_id nor change_id is a foreign key:
-- a change must never fail because an add-on went away a moment before
-- (the writer's copy of the add-ons is refreshed in the transactions
-- that change them), and a change's row goes with its project. The
-- sender forgets deliveries whose add-on is gone.
--
-- state: 0 pending, 1 delivered, 2 failed (index.DeliveryState).
CREATE TABLE deliveries (
	id         INTEGER PRIMARY KEY,
	addon_id   INTEGER NOT NULL,
	change_id  INTEGER NOT NULL,
	event      TEXT NOT NULL,
	state      INTEGER NOT NULL DEFAULT 0,
	attempts   INTEGER NOT NULL DEFAULT 0,
	created    TEXT NOT NULL,
	next_try   TEXT NOT NULL,
	last_try   TEXT NOT NULL DEFAULT '',
	last_code  INTEGER NOT NULL DEFAULT 0,
	last_error TEXT NOT NULL DEFAULT ''
);
-- The sender's question: the first pending delivery of each add-on.
CREATE INDEX deliveries_pending ON deliveries(addon_id, id) WHERE state = 0;
CREATE INDEX deliveries_addon ON deliveries(addon_id, id);
