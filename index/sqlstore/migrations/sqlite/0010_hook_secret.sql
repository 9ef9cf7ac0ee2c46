-- A project's secret for incoming webhooks (api/hooks.go): when set, a
-- hook updates the project's components only if the Git host signed the
-- delivery with it. Empty means none. It is never shown by the API.
ALTER TABLE projects ADD COLUMN hook_secret TEXT NOT NULL DEFAULT '';
