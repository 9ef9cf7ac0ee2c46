-- Categories group a project's components (the reference's
-- trans.Category): nested at most index.MaxCategoryDepth deep, parent
-- (category_id) NULL at the project's top level. Name and slug are unique
-- among the children of one parent; the partial indexes make the top
-- level one parent, as the reference's constraints do with
-- nulls_distinct=False.
-- Deleting a category deletes its subcategories and components; the
-- store removes the components first (their statistics go with them),
-- the cascades are the net under it.
CREATE TABLE categories (
	id          INTEGER PRIMARY KEY,
	project_id  BIGINT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
	category_id BIGINT REFERENCES categories(id) ON DELETE CASCADE,
	name        TEXT NOT NULL,
	slug        TEXT NOT NULL
);
CREATE UNIQUE INDEX categories_slug ON categories(category_id, slug);
CREATE UNIQUE INDEX categories_name ON categories(category_id, name);
CREATE UNIQUE INDEX categories_top_slug ON categories(project_id, slug) WHERE category_id IS NULL;
CREATE UNIQUE INDEX categories_top_name ON categories(project_id, name) WHERE category_id IS NULL;

-- A component's category; NULL at the project's top level.
ALTER TABLE components ADD COLUMN category_id BIGINT REFERENCES categories(id) ON DELETE CASCADE;
CREATE INDEX components_category ON components(category_id);
