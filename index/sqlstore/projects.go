package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"

	"github.com/tolk-project/tolk/index"
)

const projectColumns = `p.id, p.slug, p.name, p.web, p.instructions, p.translation_review,
	p.source_review, p.set_language_team, p.enable_hooks, p.language_aliases, p.access_control, p.hook_secret,
	p.use_shared_tm, p.contribute_shared_tm`

func scanProject(s interface{ Scan(...any) error }, p *index.Project) error {
	return s.Scan(&p.ID, &p.Slug, &p.Name, &p.Web, &p.Instructions, &p.TranslationReview,
		&p.SourceReview, &p.SetLanguageTeam, &p.EnableHooks, &p.LanguageAliases, &p.AccessControl, &p.HookSecret,
		&p.UseSharedTM, &p.ContributeSharedTM)
}

// SaveProject creates the project, or updates the one with the same slug,
// and returns it with its ID. created reports which happened.
func (db *DB) SaveProject(ctx context.Context, p index.Project) (saved index.Project, created bool, err error) {
	err = db.write(ctx, func(tx *Tx) error {
		var id int64
		err := tx.QueryRow(`SELECT id FROM projects WHERE slug = ?`, p.Slug).Scan(&id)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			res, err := tx.Exec(`INSERT INTO projects (slug, name, web, instructions,
				translation_review, source_review, set_language_team, enable_hooks, language_aliases, access_control, hook_secret)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, p.Slug, p.Name, p.Web, p.Instructions,
				p.TranslationReview, p.SourceReview, p.SetLanguageTeam, p.EnableHooks, p.LanguageAliases,
				p.AccessControl, p.HookSecret)
			if err != nil {
				return err
			}
			if p.ID, err = tx.lastInsertID(res); err != nil {
				return err
			}
			created = true
			if err := insertChange(tx, index.Change{Action: index.ActionProjectCreated, ProjectID: p.ID}); err != nil {
				return err
			}
			return sharedMemoryOf(tx, &p)
		case err != nil:
			return err
		}
		p.ID = id
		_, err = tx.Exec(`UPDATE projects SET name = ?, web = ?, instructions = ?,
			translation_review = ?, source_review = ?, set_language_team = ?, enable_hooks = ?,
			language_aliases = ?, access_control = ?, hook_secret = ? WHERE id = ?`, p.Name, p.Web,
			p.Instructions, p.TranslationReview, p.SourceReview, p.SetLanguageTeam, p.EnableHooks,
			p.LanguageAliases, p.AccessControl, p.HookSecret, id)
		if err != nil {
			return err
		}
		return sharedMemoryOf(tx, &p)
	})
	return p, created, err
}

// sharedMemoryOf reads p's shared memory settings into p: SaveProject
// leaves them as they are (on for a new project) and answers what is
// stored.
func sharedMemoryOf(tx *Tx, p *index.Project) error {
	return tx.QueryRow(`SELECT use_shared_tm, contribute_shared_tm FROM projects WHERE id = ?`, p.ID).
		Scan(&p.UseSharedTM, &p.ContributeSharedTM)
}

// FindProject returns the project with the given slug, or ErrNotFound.
// The answer is cached until the next write.
func (db *DB) FindProject(ctx context.Context, slug string) (index.Project, error) {
	return lookup(ctx, db, &db.projects, slug, nil, func() (index.Project, error) { return db.findProject(ctx, slug) })
}

func (db *DB) findProject(ctx context.Context, slug string) (index.Project, error) {
	var p index.Project
	row := db.r.QueryRowContext(ctx, `SELECT `+projectColumns+` FROM projects p WHERE p.slug = ?`, slug)
	if err := scanProject(row, &p); err != nil {
		return p, formatError(err)
	}
	return p, nil
}

// FindProjectPage returns one page of the projects in ascending id order,
// the reference's list order, and the number of projects, leaving out
// those whose ids are hidden. A page past the end is empty; a zero Page
// returns every project.
func (db *DB) FindProjectPage(ctx context.Context, pg index.Page, hidden ...int64) ([]index.Project, int, error) {
	where, args := "", []any(nil)
	if len(hidden) > 0 {
		where, args = notIn("p.id", hidden)
		where = " WHERE " + where
	}
	var total int
	if err := db.r.QueryRowContext(ctx, `SELECT count(*) FROM projects p`+where, args...).Scan(&total); err != nil {
		return nil, 0, formatError(err)
	}
	if total == 0 || pg.Offset() >= total {
		return nil, total, nil
	}
	rows, err := db.r.QueryContext(ctx, `SELECT `+projectColumns+` FROM projects p`+where+` ORDER BY p.id
		LIMIT ? OFFSET ?`, withArgs(args, pageLimit(pg), pg.Offset())...)
	if err != nil {
		return nil, 0, formatError(err)
	}
	defer rows.Close()
	out := make([]index.Project, 0, min(pageLimitCap(pg), total))
	for rows.Next() {
		var p index.Project
		if err := scanProject(rows, &p); err != nil {
			return nil, 0, fmt.Errorf("scan project: %w", err)
		}
		out = append(out, p)
	}
	return out, total, formatError(rows.Err())
}

// FindPrivateProjects returns the private projects in ascending id
// order: what a reader may be kept from seeing. The answer is cached
// until the next write; it must not be modified.
func (db *DB) FindPrivateProjects(ctx context.Context) ([]index.Project, error) {
	return lookup(ctx, db, &db.private, struct{}{}, nil, func() ([]index.Project, error) {
		rows, err := db.r.QueryContext(ctx, `SELECT `+projectColumns+` FROM projects p
			WHERE p.access_control = ? ORDER BY p.id`, index.AccessPrivate)
		if err != nil {
			return nil, formatError(err)
		}
		defer rows.Close()
		var out []index.Project
		for rows.Next() {
			var p index.Project
			if err := scanProject(rows, &p); err != nil {
				return nil, fmt.Errorf("scan project: %w", err)
			}
			out = append(out, p)
		}
		return out, formatError(rows.Err())
	})
}

// pageLimit is the LIMIT of a page. The zero Page means no limit, said
// as the largest one: SQLite would read a negative limit as none, but
// PostgreSQL refuses it.
func pageLimit(pg index.Page) int64 {
	if pg.Size <= 0 {
		return math.MaxInt64
	}
	return int64(pg.Size)
}

// pageLimitCap bounds the capacity preallocated for a page.
func pageLimitCap(pg index.Page) int {
	if pg.Size <= 0 {
		return 64
	}
	return min(pg.Size, 1000)
}

// FindProjectByID returns the project with the given id, or ErrNotFound.
func (db *DB) FindProjectByID(ctx context.Context, id int64) (index.Project, error) {
	var p index.Project
	row := db.r.QueryRowContext(ctx, `SELECT `+projectColumns+` FROM projects p WHERE p.id = ?`, id)
	return p, formatError(scanProject(row, &p))
}
