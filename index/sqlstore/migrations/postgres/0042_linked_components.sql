-- The component whose repository a component shares (its repo being
-- weblate://project/component); NULL for one with a repository of its
-- own. The store sets it from the repo on every save and refuses links
-- to a linked component (no chains, so no cycles). Removing a component
-- removes those linked to it first, as the reference's cascade does;
-- SET NULL is only the net under that (a project removed with a
-- component another project links to).
ALTER TABLE components ADD COLUMN linked_id BIGINT REFERENCES components(id) ON DELETE SET NULL;
CREATE INDEX components_linked ON components(linked_id);
