package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/tolk-project/tolk/index"
)

// SeedLanguages inserts or updates the given languages by code, in one
// transaction. Languages already present and not given are kept, and so
// are those created or changed through the API (CreateLanguage,
// UpdateLanguage): they are the deployment's own. A code given twice
// takes its last values, as if each were upserted in turn.
func (db *DB) SeedLanguages(ctx context.Context, langs []index.Language) error {
	defer db.forgetPlurals() // the checks' cache of plural rules
	langs = lastByCode(langs)
	return db.write(ctx, func(tx *Tx) error {
		// Many rows a statement: the built-in table's 799 languages,
		// seeded at every start, were as many round trips to PostgreSQL
		// (0.13-0.23 s on a loaded two-core machine; 10 ms on SQLite).
		for len(langs) > 0 {
			n := min(len(langs), seedBatch)
			if err := seedLanguages(tx, langs[:n]); err != nil {
				return err
			}
			langs = langs[n:]
		}
		return nil
	})
}

// seedBatch is how many languages one statement of SeedLanguages
// upserts: 1,000 parameters, far below either engine's limit.
const seedBatch = 100

func seedLanguages(tx *Tx, langs []index.Language) error {
	var b strings.Builder
	b.WriteString(`INSERT INTO languages (` + languageColumns + `) VALUES `)
	args := make([]any, 0, 10*len(langs))
	for i, l := range langs {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
		p := l.Plural
		args = append(args, l.Code, l.Name, l.Direction, l.Population,
			strings.Join(l.Aliases, ","), p.ID, p.Source, p.Number, p.Formula, p.Type)
	}
	b.WriteString(` ON CONFLICT (code) DO UPDATE SET name = excluded.name, direction = excluded.direction,
		population = excluded.population, aliases = excluded.aliases, plural_id = excluded.plural_id,
		plural_source = excluded.plural_source, plural_number = excluded.plural_number,
		plural_formula = excluded.plural_formula, plural_type = excluded.plural_type
		WHERE languages.custom = 0`)
	_, err := tx.Exec(b.String(), args...)
	return err
}

// lastByCode returns langs with each code once, where it first appears,
// with the values it last has: one statement may not upsert a row twice.
func lastByCode(langs []index.Language) []index.Language {
	at := make(map[string]int, len(langs))
	out := make([]index.Language, 0, len(langs))
	for _, l := range langs {
		if i, ok := at[l.Code]; ok {
			out[i] = l
			continue
		}
		at[l.Code] = len(out)
		out = append(out, l)
	}
	return out
}

const languageColumns = `code, name, direction, population, aliases, plural_id, plural_source, plural_number, plural_formula, plural_type`

// langScan receives the columns of languageColumns.
type langScan struct {
	l       index.Language
	aliases string
}

func (ls *langScan) dest() []any {
	l := &ls.l
	return []any{&l.Code, &l.Name, &l.Direction, &l.Population, &ls.aliases,
		&l.Plural.ID, &l.Plural.Source, &l.Plural.Number, &l.Plural.Formula, &l.Plural.Type}
}

func (ls *langScan) language() index.Language {
	l := ls.l
	l.Aliases = splitList(ls.aliases)
	return l
}

func scanLanguage(s interface{ Scan(...any) error }) (index.Language, error) {
	var ls langScan
	err := s.Scan(ls.dest()...)
	return ls.language(), err
}

// FindLanguage returns the language with the given canonical code, or an
// ErrNotFound error. The answer is cached until the next write; its
// slices must not be modified.
func (db *DB) FindLanguage(ctx context.Context, code string) (index.Language, error) {
	// A code the table lacks is cached too: a component's source
	// language is often such a code (en-us), asked for by every
	// translation's detail.
	known, err := lookup(ctx, db, &db.languages, code, nil, func() (knownLanguage, error) {
		l, err := db.findLanguage(ctx, code)
		if errors.Is(err, index.ErrNotFound) {
			return knownLanguage{}, nil
		}
		return knownLanguage{l, err == nil}, err
	})
	if err == nil && !known.found {
		err = fmt.Errorf("%w", index.ErrNotFound) // as formatError answers a missing row
	}
	return known.Language, err
}

// knownLanguage is a language lookup's answer: the language, or found
// false for a code the table lacks.
type knownLanguage struct {
	index.Language
	found bool
}

func (db *DB) findLanguage(ctx context.Context, code string) (index.Language, error) {
	row := db.r.QueryRowContext(ctx, `SELECT `+languageColumns+` FROM languages WHERE code = ?`, code)
	l, err := scanLanguage(row)
	if err != nil {
		return l, formatError(err)
	}
	return l, nil
}

// FindUsedLanguages returns one page of the languages that have at least
// one translation, in ascending id (seed) order, and how many there are.
// Translations in the projects whose ids are hidden do not count, so a
// language used only there is left out. This is the list the reference
// shows to readers who may not manage languages; the table itself holds
// every known language.
func (db *DB) FindUsedLanguages(ctx context.Context, p index.Page, hidden ...int64) ([]index.Language, int, error) {
	used := ` FROM languages l WHERE EXISTS (SELECT 1 FROM translations t WHERE t.language_code = l.code)`
	var args []any
	if len(hidden) > 0 {
		var cond string
		cond, args = notIn("c.project_id", hidden)
		used = ` FROM languages l WHERE EXISTS (SELECT 1 FROM translations t
			JOIN components c ON c.id = t.component_id WHERE t.language_code = l.code AND ` + cond + `)`
	}
	var total int
	if err := db.r.QueryRowContext(ctx, `SELECT count(*)`+used, args...).Scan(&total); err != nil {
		return nil, 0, formatError(err)
	}
	if total == 0 || p.Offset() >= total {
		return nil, total, nil
	}
	rows, err := db.r.QueryContext(ctx, `SELECT `+languageColumns+used+` ORDER BY l.id LIMIT ? OFFSET ?`,
		withArgs(args, p.Size, p.Offset())...)
	if err != nil {
		return nil, 0, formatError(err)
	}
	defer rows.Close()
	out := make([]index.Language, 0, min(p.Size, total))
	for rows.Next() {
		l, err := scanLanguage(rows)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, l)
	}
	return out, total, rows.Err()
}
