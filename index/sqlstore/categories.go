package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/tolk-project/tolk/index"
)

const categoryColumns = `k.id, k.project_id, k.category_id, k.name, k.slug, ` + projectColumns

func scanCategory(s interface{ Scan(...any) error }) (index.Category, error) {
	var k index.Category
	var parent sql.NullInt64
	p := &k.Project
	err := s.Scan(&k.ID, &k.ProjectID, &parent, &k.Name, &k.Slug,
		&p.ID, &p.Slug, &p.Name, &p.Web, &p.Instructions, &p.TranslationReview,
		&p.SourceReview, &p.SetLanguageTeam, &p.EnableHooks, &p.LanguageAliases, &p.AccessControl, &p.HookSecret,
		&p.UseSharedTM, &p.ContributeSharedTM)
	k.CategoryID = parent.Int64
	return k, err
}

// The reference's words for a category that breaks its rules
// (trans.Category.clean, ComponentCategoryMixin.clean_unique_together).
const (
	categoryTooDeep      = "Too deep nesting of categories!"
	categoryOtherProject = "Parent category has to be in the same project!"
	categorySelfParent   = "Parent category has to be different!"
	categorySlugTaken    = "Component or category with the same URL slug already exists at this level."
	categoryNameTaken    = "Component or category with the same name already exists at this level."
)

// FindCategory returns a category with its project by id, or ErrNotFound.
func (db *DB) FindCategory(ctx context.Context, id int64) (index.Category, error) {
	k, err := scanCategory(db.r.QueryRowContext(ctx, `SELECT `+categoryColumns+`
		FROM categories k JOIN projects p ON p.id = k.project_id WHERE k.id = ?`, id))
	return k, formatError(err)
}

// FindCategoryPage returns one page of the categories of a project (of
// every project when projectID is 0) in ascending id order, and their
// number, leaving out the categories of the projects whose ids are
// hidden.
func (db *DB) FindCategoryPage(ctx context.Context, projectID int64, pg index.Page, hidden ...int64) ([]index.Category, int, error) {
	where, args := `(? = 0 OR k.project_id = ?)`, []any{projectID, projectID}
	if len(hidden) > 0 {
		cond, ids := notIn("k.project_id", hidden)
		where, args = where+" AND "+cond, append(args, ids...)
	}
	var total int
	if err := db.r.QueryRowContext(ctx, `SELECT count(*) FROM categories k WHERE `+where, args...).Scan(&total); err != nil {
		return nil, 0, formatError(err)
	}
	if total == 0 || pg.Offset() >= total {
		return nil, total, nil
	}
	rows, err := db.r.QueryContext(ctx, `SELECT `+categoryColumns+`
		FROM categories k JOIN projects p ON p.id = k.project_id
		WHERE `+where+` ORDER BY k.id LIMIT ? OFFSET ?`, withArgs(args, pageLimit(pg), pg.Offset())...)
	if err != nil {
		return nil, 0, formatError(err)
	}
	defer rows.Close()
	out := make([]index.Category, 0, min(pageLimitCap(pg), total))
	for rows.Next() {
		k, err := scanCategory(rows)
		if err != nil {
			return nil, 0, fmt.Errorf("scan category: %w", err)
		}
		out = append(out, k)
	}
	return out, total, formatError(rows.Err())
}

// CreateCategory adds a category. A parent in another project, nesting
// deeper than index.MaxCategoryDepth or a name or slug taken among the
// parent's children is a *index.FieldError.
func (db *DB) CreateCategory(ctx context.Context, k index.Category) (index.Category, error) {
	var saved index.Category
	err := db.write(ctx, func(tx *Tx) error {
		if err := checkCategory(tx, k); err != nil {
			return err
		}
		res, err := tx.Exec(`INSERT INTO categories (project_id, category_id, name, slug) VALUES (?, ?, ?, ?)`,
			k.ProjectID, nullID(k.CategoryID), k.Name, k.Slug)
		if err != nil {
			return err
		}
		id, err := tx.lastInsertID(res)
		if err != nil {
			return err
		}
		saved, err = findCategoryTx(tx, id)
		return err
	})
	return saved, err
}

// UpdateCategory applies update to the stored category in one
// transaction, checks the result as CreateCategory does (and that the
// category is not moved under itself) and returns it. The project
// cannot change.
func (db *DB) UpdateCategory(ctx context.Context, id int64, update func(*index.Category) error) (index.Category, error) {
	var saved index.Category
	err := db.write(ctx, func(tx *Tx) error {
		k, err := findCategoryTx(tx, id)
		if err != nil {
			return err
		}
		projectID, before := k.ProjectID, k
		if err := update(&k); err != nil {
			return err
		}
		k.ID, k.ProjectID = id, projectID
		if err := checkCategory(tx, k); err != nil {
			return err
		}
		if _, err := tx.Exec(`UPDATE categories SET category_id = ?, name = ?, slug = ? WHERE id = ?`,
			nullID(k.CategoryID), k.Name, k.Slug, id); err != nil {
			return err
		}
		if saved, err = findCategoryTx(tx, id); err != nil {
			return err
		}
		if saved.Slug == before.Slug && saved.CategoryID == before.CategoryID {
			return nil
		}
		// The links to the components below it name its path: rewrite
		// them, as the reference's Category.save does.
		return relinkCategory(tx, id)
	})
	return saved, err
}

// categoryComponents returns the components of category id and of the
// categories below it, in id order.
func categoryComponents(tx *Tx, id int64) ([]index.Component, error) {
	ids, err := categoryTree(tx.queryer(), id)
	if err != nil {
		return nil, err
	}
	cond, args := idList(ids)
	rows, err := tx.Query(`SELECT `+componentColumns+`
		FROM components c JOIN projects p ON p.id = c.project_id WHERE c.category_id IN `+cond+` ORDER BY c.id`, args...)
	if err != nil {
		return nil, err
	}
	return collectComponents(rows)
}

// relinkCategory rewrites the links to the components of category id
// and of the categories below it (relinkComponents).
func relinkCategory(tx *Tx, id int64) error {
	comps, err := categoryComponents(tx, id)
	if err != nil {
		return err
	}
	for _, c := range comps {
		if err := relinkComponents(tx, c); err != nil {
			return err
		}
	}
	return nil
}

// DeleteCategory removes a category with its subcategories and every
// component in them, as the reference's category_removal does, and
// returns the components removed (their checkouts are the caller's).
// Each component is removed as DeleteComponent removes one
// (removeComponent), with the components linked to it.
func (db *DB) DeleteCategory(ctx context.Context, id int64, by index.Actor) ([]index.Component, error) {
	var removed []index.Component
	err := db.write(ctx, func(tx *Tx) error {
		if _, err := findCategoryTx(tx, id); err != nil {
			return err
		}
		var err error
		if removed, err = categoryComponents(tx, id); err != nil {
			return err
		}
		for _, c := range removed {
			// A component linked to one removed before it in this loop
			// went with its parent.
			var n int
			if err := tx.QueryRow(`SELECT count(*) FROM components WHERE id = ?`, c.ID).Scan(&n); err != nil {
				return err
			}
			if n == 0 {
				continue
			}
			if err := removeComponent(tx, c.ID, c.ProjectID, c.Name, by); err != nil {
				return err
			}
		}
		// The subcategories go with it (ON DELETE CASCADE).
		if _, err := tx.Exec(`DELETE FROM categories WHERE id = ?`, id); err != nil {
			return err
		}
		if len(removed) == 0 {
			return nil
		}
		if err := forgetOrphanDeliveries(tx); err != nil {
			return err
		}
		return tx.reloadHooks()
	})
	return removed, err
}

// CategoryStats returns the statistics of a category: the sum of its
// components' and its subcategories' components' stored rows, with no
// rows of its own, so that no edit has one more row to keep. A category
// holds a few dozen components at most; summing their rows on a read is
// cheaper than keeping a row per category level on every edit.
// RecentChanges is the sum of the components' counts.
func (db *DB) CategoryStats(ctx context.Context, id int64) (index.Stats, error) {
	ids, err := categoryTree(db.r, id)
	if err != nil {
		return index.Stats{}, formatError(err)
	}
	cond, args := idList(ids)
	rows, err := db.r.QueryContext(ctx, `SELECT id FROM components WHERE category_id IN `+cond+` ORDER BY id`, args...)
	if err != nil {
		return index.Stats{}, formatError(err)
	}
	var comps []int64
	for rows.Next() {
		var c int64
		if err := rows.Scan(&c); err != nil {
			rows.Close()
			return index.Stats{}, formatError(err)
		}
		comps = append(comps, c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return index.Stats{}, formatError(err)
	}
	var sum index.Stats
	for _, c := range comps {
		s, err := db.ComponentStats(ctx, c)
		if err != nil {
			return index.Stats{}, err
		}
		sum.Add(s, 1)
		sum.RecentChanges += s.RecentChanges
		if s.LastChange.After(sum.LastChange) {
			sum.LastChange, sum.LastAuthor = s.LastChange, s.LastAuthor
		}
	}
	return sum, nil
}

// checkComponentCategory answers a *index.FieldError on "category" when
// c.CategoryID names no category of c's project.
func checkComponentCategory(tx *Tx, c index.Component) error {
	if c.CategoryID == 0 {
		return nil
	}
	var project int64
	err := tx.QueryRow(`SELECT project_id FROM categories WHERE id = ?`, c.CategoryID).Scan(&project)
	if errors.Is(err, sql.ErrNoRows) {
		return index.FieldErr("category", "does_not_exist", "Invalid hyperlink - Object does not exist.")
	}
	if err != nil {
		return err
	}
	if project != c.ProjectID {
		return index.FieldErr("category", "invalid", "Category does not belong to this project.")
	}
	return nil
}

func findCategoryTx(tx *Tx, id int64) (index.Category, error) {
	k, err := scanCategory(tx.QueryRow(`SELECT `+categoryColumns+`
		FROM categories k JOIN projects p ON p.id = k.project_id WHERE k.id = ?`, id))
	return k, formatError(err)
}

// checkCategory checks k (k.ID 0 for a new one) against the reference's
// rules: parent in the same project and not k itself or below it, depth
// (k's parents plus its deepest subtree) within index.MaxCategoryDepth,
// name and slug free among the parent's children.
func checkCategory(tx *Tx, k index.Category) error {
	depth := 1
	for parent := k.CategoryID; parent != 0; depth++ {
		if parent == k.ID {
			return index.FieldErr("category", "invalid", categorySelfParent)
		}
		var project int64
		var up sql.NullInt64
		err := tx.QueryRow(`SELECT project_id, category_id FROM categories WHERE id = ?`, parent).Scan(&project, &up)
		if errors.Is(err, sql.ErrNoRows) {
			return index.FieldErr("category", "does_not_exist", "Invalid hyperlink - Object does not exist.")
		}
		if err != nil {
			return err
		}
		if project != k.ProjectID {
			return index.FieldErr("category", "invalid", categoryOtherProject)
		}
		if depth > index.MaxCategoryDepth {
			break
		}
		parent = up.Int64
	}
	if k.ID != 0 {
		below, err := subtreeHeight(tx, k.ID)
		if err != nil {
			return err
		}
		depth += below
	}
	if depth > index.MaxCategoryDepth {
		return index.FieldErr("category", "invalid", categoryTooDeep)
	}
	fe := &index.FieldError{}
	for _, f := range []struct{ column, value, detail string }{
		{"slug", k.Slug, categorySlugTaken}, {"name", k.Name, categoryNameTaken},
	} {
		var n int
		if err := tx.QueryRow(`SELECT count(*) FROM categories WHERE project_id = ?
			AND coalesce(category_id, 0) = ? AND `+f.column+` = ? AND id != ?`,
			k.ProjectID, k.CategoryID, f.value, k.ID).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			fe.Add(f.column, "unique", f.detail)
		}
	}
	// As the reference's message says, a component at the same level
	// takes the slug too: pages give categories and components segments
	// alike (/projects/p/cat/c/), so one slug must name one of them.
	if _, taken := fe.Fields["slug"]; !taken {
		var n int
		if err := tx.QueryRow(`SELECT count(*) FROM components WHERE project_id = ?
			AND coalesce(category_id, 0) = ? AND slug = ?`, k.ProjectID, k.CategoryID, k.Slug).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			fe.Add("slug", "unique", categorySlugTaken)
		}
	}
	return fe.Err()
}

// subtreeHeight is how many levels hang below category id (0 for a leaf).
func subtreeHeight(tx *Tx, id int64) (int, error) {
	level, height := []int64{id}, 0
	for len(level) > 0 && height <= index.MaxCategoryDepth {
		cond, args := idList(level)
		rows, err := tx.Query(`SELECT id FROM categories WHERE category_id IN `+cond, args...)
		if err != nil {
			return 0, err
		}
		next, err := scanIDs(rows)
		if err != nil {
			return 0, err
		}
		if len(next) > 0 {
			height++
		}
		level = next
	}
	return height, nil
}

// categoryTree returns id and the ids of every category below it. The
// depth limit bounds the walk, and the bound holds even if the rows were
// edited by hand into something deeper.
func categoryTree(q queryer, id int64) ([]int64, error) {
	all, level := []int64{id}, []int64{id}
	for range index.MaxCategoryDepth + 1 {
		cond, args := idList(level)
		rows, err := q.QueryContext(runCtx, `SELECT id FROM categories WHERE category_id IN `+cond, args...)
		if err != nil {
			return nil, err
		}
		next, err := scanIDs(rows)
		if err != nil {
			return nil, err
		}
		if len(next) == 0 {
			break
		}
		all, level = append(all, next...), next
	}
	return all, nil
}

// queryIDs reads one column of ids.
func queryIDs(tx *Tx, query string, args ...any) ([]int64, error) {
	rows, err := tx.Query(query, args...)
	if err != nil {
		return nil, err
	}
	return scanIDs(rows)
}

// scanIDs reads a column of ids and closes rows.
func scanIDs(rows *sql.Rows) ([]int64, error) {
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

// categoryPath is Component.CategoryPath for a component in category id
// (0: none), as categoryPathColumn reads it.
func categoryPath(tx *Tx, id int64) (string, error) {
	if id == 0 {
		return "", nil
	}
	var path string
	err := tx.QueryRow(categoryPathSelect+` ?`, id).Scan(&path)
	return path, err
}

// CategoryPaths returns the paths of a project's categories, as
// Component.CategoryPath gives them ("main", "main/docs"), none for a
// project that has none or does not exist. The edge reads page paths
// with them on every page request under a project, so they are cached
// until a write that is not narrow (every category write is one).
func (db *DB) CategoryPaths(ctx context.Context, projectSlug string) ([]string, error) {
	return lookup(ctx, db, &db.categoryPaths, projectSlug, nil, func() ([]string, error) {
		rows, err := db.r.QueryContext(ctx, `SELECT (`+categoryPathSelect+` k.id)
			FROM categories k JOIN projects p ON p.id = k.project_id WHERE p.slug = ? ORDER BY k.id`, projectSlug)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var path string
			if err := rows.Scan(&path); err != nil {
				return nil, err
			}
			out = append(out, path)
		}
		return out, rows.Err()
	})
}
