package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/tolk-project/tolk/index"
)

const componentColumns = `c.id, c.project_id, c.settings, c.locked, c.import_error, c.import_skipped, c.category_id, c.linked_id, ` +
	categoryPathColumn + `, ` + projectColumns

// categoryPathColumn is the component c's Component.CategoryPath: the
// slugs of at most index.MaxCategoryDepth categories, outermost first, so
// three joins; NULL for a component outside categories, whose rows (most)
// skip the subquery. The aliases are ones no query of componentColumns
// uses.
const categoryPathColumn = `CASE WHEN c.category_id IS NULL THEN NULL ELSE
	(` + categoryPathSelect + ` c.category_id) END`

// categoryPathSelect reads the path of the category whose id follows.
const categoryPathSelect = `SELECT coalesce(kp3.slug || '/', '') || coalesce(kp2.slug || '/', '') || kp1.slug
		FROM categories kp1 LEFT JOIN categories kp2 ON kp2.id = kp1.category_id
		LEFT JOIN categories kp3 ON kp3.id = kp2.category_id WHERE kp1.id =`

// componentScan receives the columns of componentColumns.
type componentScan struct {
	id, projectID int64
	settings      string
	locked        bool
	importError   string
	importSkipped string // JSON array of skippedFileJSON
	categoryID    sql.NullInt64
	linkedID      sql.NullInt64
	categoryPath  sql.NullString
	project       index.Project
}

// skippedFileJSON is an index.SkippedFile in components.import_skipped.
type skippedFileJSON struct {
	Filename string `json:"filename"`
	Reason   string `json:"reason"`
}

func (cs *componentScan) dest() []any {
	p := &cs.project
	return []any{&cs.id, &cs.projectID, &cs.settings, &cs.locked, &cs.importError, &cs.importSkipped, &cs.categoryID, &cs.linkedID, &cs.categoryPath,
		&p.ID, &p.Slug, &p.Name, &p.Web, &p.Instructions, &p.TranslationReview,
		&p.SourceReview, &p.SetLanguageTeam, &p.EnableHooks, &p.LanguageAliases, &p.AccessControl, &p.HookSecret,
		&p.UseSharedTM, &p.ContributeSharedTM}
}

func (cs *componentScan) component() (index.Component, error) {
	c, err := decodeSettings(cs.settings)
	if err != nil {
		return c, fmt.Errorf("component %d settings: %w", cs.id, err)
	}
	c.ID, c.ProjectID, c.Locked, c.Project = cs.id, cs.projectID, cs.locked, cs.project
	c.CategoryID, c.LinkedID, c.CategoryPath = cs.categoryID.Int64, cs.linkedID.Int64, cs.categoryPath.String
	var skipped []skippedFileJSON
	if cs.importSkipped != "[]" { // the usual text, read with every edit's translation
		if err := json.Unmarshal([]byte(cs.importSkipped), &skipped); err != nil {
			return c, fmt.Errorf("component %d skipped files: %w", cs.id, err)
		}
	}
	c.Import = index.ImportStatus{Error: cs.importError}
	for _, sk := range skipped {
		c.Import.Skipped = append(c.Import.Skipped, index.SkippedFile{Filename: sk.Filename, Reason: sk.Reason})
	}
	return c, nil
}

// settingsMemo keeps decoded component settings by their JSON text.
// Every unit edit reads its translation's component inside the write
// transaction, and decoding its settings was a seventh of the edit; the
// texts are few (one per component and configuration) and immutable.
var settingsMemo struct {
	sync.Mutex
	m map[string]index.Component
}

// maxSettingsMemo bounds settingsMemo; past it the memo starts over.
const maxSettingsMemo = 1024

// decodeSettings decodes a components.settings text. The component
// returned shares its slices with the memo: callers must not modify
// them, as with every cached lookup.
func decodeSettings(text string) (index.Component, error) {
	settingsMemo.Lock()
	c, ok := settingsMemo.m[text]
	settingsMemo.Unlock()
	if ok {
		return c, nil
	}
	if err := json.Unmarshal([]byte(text), &c); err != nil {
		return index.Component{}, err
	}
	settingsMemo.Lock()
	defer settingsMemo.Unlock()
	if settingsMemo.m == nil || len(settingsMemo.m) >= maxSettingsMemo {
		settingsMemo.m = make(map[string]index.Component)
	}
	settingsMemo.m[text] = c
	return c, nil
}

func scanComponent(s interface{ Scan(...any) error }) (index.Component, error) {
	var cs componentScan
	if err := s.Scan(cs.dest()...); err != nil {
		return index.Component{}, err
	}
	return cs.component()
}

// SaveComponent creates the component, or updates the one with the same
// project and slug, and returns it with its ID and project.
func (db *DB) SaveComponent(ctx context.Context, c index.Component) (saved index.Component, created bool, err error) {
	err = db.write(ctx, func(tx *Tx) error {
		body, err := componentSettings(c)
		if err != nil {
			return err
		}
		var id int64
		err = tx.QueryRow(`SELECT id FROM components WHERE project_id = ? AND slug = ?`,
			c.ProjectID, c.Slug).Scan(&id)
		if err == nil || errors.Is(err, sql.ErrNoRows) {
			c.ID = id
			if lerr := resolveLink(tx, &c); lerr != nil {
				return lerr
			}
		}
		switch {
		case errors.Is(err, sql.ErrNoRows):
			res, err := tx.Exec(`INSERT INTO components
				(project_id, slug, name, source_language, is_glossary, settings) VALUES (?, ?, ?, ?, ?, ?)`,
				c.ProjectID, c.Slug, c.Name, c.SourceLanguage, c.IsGlossary, body)
			if err != nil {
				return err
			}
			if id, err = tx.lastInsertID(res); err != nil {
				return err
			}
			if err := setLinked(tx, id, c.LinkedID); err != nil {
				return err
			}
			created = true
			if err := insertChange(tx, index.Change{Action: index.ActionComponentCreated,
				ProjectID: c.ProjectID, ComponentID: id}); err != nil {
				return err
			}
			if err := autoAssign(tx, id); err != nil {
				return err
			}
		case err != nil:
			return err
		default:
			if _, err := tx.Exec(`UPDATE components SET name = ?, source_language = ?,
				is_glossary = ?, settings = ? WHERE id = ?`,
				c.Name, c.SourceLanguage, c.IsGlossary, body, id); err != nil {
				return err
			}
			if err := setLinked(tx, id, c.LinkedID); err != nil {
				return err
			}
		}
		saved, err = findComponentByID(tx, id)
		return err
	})
	return saved, created, err
}

func findComponentByID(tx *Tx, id int64) (index.Component, error) {
	row := tx.QueryRow(`SELECT `+componentColumns+`
		FROM components c JOIN projects p ON p.id = c.project_id WHERE c.id = ?`, id)
	c, err := scanComponent(row)
	return c, formatError(err)
}

// FindComponent returns the component by project and component slug, or
// ErrNotFound. The answer is cached until the next write; its slices must
// not be modified.
func (db *DB) FindComponent(ctx context.Context, projectSlug, slug string) (index.Component, error) {
	return lookup(ctx, db, &db.components, [2]string{projectSlug, slug}, nil, func() (index.Component, error) {
		return db.findComponent(ctx, projectSlug, slug)
	})
}

func (db *DB) findComponent(ctx context.Context, projectSlug, slug string) (index.Component, error) {
	row := db.r.QueryRowContext(ctx, `SELECT `+componentColumns+`
		FROM components c JOIN projects p ON p.id = c.project_id WHERE p.slug = ? AND c.slug = ?`,
		projectSlug, slug)
	c, err := scanComponent(row)
	return c, formatError(err)
}

// FindComponents returns the components of a project (all projects when
// projectID is 0), ordered by project, then component name.
func (db *DB) FindComponents(ctx context.Context, projectID int64) ([]index.Component, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT `+componentColumns+`
		FROM components c JOIN projects p ON p.id = c.project_id
		WHERE ? = 0 OR c.project_id = ? ORDER BY p.name, p.slug, c.name, c.slug`, projectID, projectID)
	if err != nil {
		return nil, formatError(err)
	}
	return collectComponents(rows)
}

// collectComponents scans every row of componentColumns and closes rows.
func collectComponents(rows *sql.Rows) ([]index.Component, error) {
	defer rows.Close()
	var out []index.Component
	for rows.Next() {
		c, err := scanComponent(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// FindComponentPage returns one page of the components of a project (of
// every project when projectID is 0) in ascending id order, the
// reference's list order, and their number, leaving out the components of
// the projects whose ids are hidden. A page past the end is empty; a zero
// Page returns them all.
func (db *DB) FindComponentPage(ctx context.Context, projectID int64, pg index.Page, hidden ...int64) ([]index.Component, int, error) {
	where, args := `(? = 0 OR c.project_id = ?)`, []any{projectID, projectID}
	if len(hidden) > 0 {
		cond, ids := notIn("c.project_id", hidden)
		where, args = where+" AND "+cond, append(args, ids...)
	}
	var total int
	if err := db.r.QueryRowContext(ctx, `SELECT count(*) FROM components c WHERE `+where, args...).Scan(&total); err != nil {
		return nil, 0, formatError(err)
	}
	if total == 0 || pg.Offset() >= total {
		return nil, total, nil
	}
	rows, err := db.r.QueryContext(ctx, `SELECT `+componentColumns+`
		FROM components c JOIN projects p ON p.id = c.project_id
		WHERE `+where+` ORDER BY c.id LIMIT ? OFFSET ?`, withArgs(args, pageLimit(pg), pg.Offset())...)
	if err != nil {
		return nil, 0, formatError(err)
	}
	defer rows.Close()
	out := make([]index.Component, 0, min(pageLimitCap(pg), total))
	for rows.Next() {
		c, err := scanComponent(rows)
		if err != nil {
			return nil, 0, fmt.Errorf("scan component: %w", err)
		}
		out = append(out, c)
	}
	return out, total, formatError(rows.Err())
}
