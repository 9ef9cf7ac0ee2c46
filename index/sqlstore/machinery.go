package sqlstore

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/tolk-project/tolk/index"
)

// FindMachinerySettings returns the machine translation services the
// project configures (none: an empty map), or an error wrapping
// ErrNotFound for an unknown project.
func (db *DB) FindMachinerySettings(ctx context.Context, projectID int64) (index.MachinerySettings, error) {
	tx, err := db.beginRead(ctx)
	if err != nil {
		return nil, formatError(err)
	}
	defer tx.Rollback()
	s, err := findMachinerySettings(ctx, tx, projectID)
	return s, formatError(err)
}

func findMachinerySettings(ctx context.Context, q queryer, projectID int64) (index.MachinerySettings, error) {
	var one int
	if err := q.QueryRowContext(ctx, `SELECT 1 FROM projects WHERE id = ?`, projectID).Scan(&one); err != nil {
		return nil, err
	}
	rows, err := q.QueryContext(ctx,
		`SELECT service, configuration FROM machinery_settings WHERE project_id = ? ORDER BY service`, projectID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := index.MachinerySettings{}
	for rows.Next() {
		var service, config string
		if err := rows.Scan(&service, &config); err != nil {
			return nil, err
		}
		cfg := map[string]any{}
		if err := json.Unmarshal([]byte(config), &cfg); err != nil {
			return nil, fmt.Errorf("machinery settings of project %d, %s: %w", projectID, service, err)
		}
		out[service] = cfg
	}
	return out, rows.Err()
}

// UpdateMachinerySettings replaces the project's machine translation
// services with what decide returns, given the stored ones, in one
// transaction; an error from decide is returned and nothing changes. It
// returns the settings stored, or an error wrapping ErrNotFound for an
// unknown project.
func (db *DB) UpdateMachinerySettings(ctx context.Context, projectID int64,
	decide func(index.MachinerySettings) (index.MachinerySettings, error)) (index.MachinerySettings, error) {
	var stored index.MachinerySettings
	err := db.write(ctx, func(tx *Tx) error {
		current, err := findMachinerySettings(runCtx, tx.queryer(), projectID)
		if err != nil {
			return err
		}
		next, err := decide(current)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(`DELETE FROM machinery_settings WHERE project_id = ?`, projectID); err != nil {
			return err
		}
		for _, service := range slices.Sorted(maps.Keys(next)) {
			config, err := json.Marshal(next[service])
			if err != nil {
				return err
			}
			if _, err := tx.Exec(`INSERT INTO machinery_settings (project_id, service, configuration) VALUES (?, ?, ?)`,
				projectID, service, string(config)); err != nil {
				return err
			}
		}
		stored = next
		return nil
	})
	return stored, formatError(err)
}

// FindSameSource returns the translated strings (state 20 or more) of
// the project's other components in f.Language whose source text is one
// of f.Sources, in the same source language, at most f.Limit per source
// text, best state first. Sources are compared exactly, as the
// reference's "weblate" service does. The lookup is driven by the units'
// source prefix index (migration 0036: one indexed probe per text, SQLite
// made to start from units by CROSS JOIN), so its cost follows the
// matches, not the size of the project: automatic translation asks for
// thousands of texts at once.
func (db *DB) FindSameSource(ctx context.Context, f index.SameSourceFilter) ([]index.SameSourceMatch, error) {
	limit := f.Limit
	if limit <= 0 {
		limit = 10
	}
	var out []index.SameSourceMatch
	per := map[string]int{}
	for rest := f.Sources; len(rest) > 0; {
		n := min(len(rest), maxSameSource)
		if err := db.findSameSource(ctx, f, rest[:n], limit, per, &out); err != nil {
			return nil, err
		}
		rest = rest[n:]
	}
	return out, nil
}

// maxSameSource bounds the texts of one FindSameSource statement.
const maxSameSource = 500

func (db *DB) findSameSource(ctx context.Context, f index.SameSourceFilter, sources []string, limit int,
	per map[string]int, out *[]index.SameSourceMatch) error {
	args := []any{}
	prefixes := map[string]bool{}
	var prefixMarks []string
	for _, s := range sources {
		p := prefix40(s)
		if !prefixes[p] {
			prefixes[p] = true
			prefixMarks = append(prefixMarks, "?")
			args = append(args, p)
		}
	}
	marks := make([]string, len(sources))
	for i, s := range sources {
		marks[i] = "?"
		args = append(args, s)
	}
	args = append(args, f.ProjectID, f.ExcludeComponentID, f.SourceLanguage, f.Language, index.StateTranslated)
	only := ""
	if f.ComponentID != 0 {
		only = " AND c.id = ?"
		args = append(args, f.ComponentID)
	}
	rows, err := db.r.QueryContext(ctx, `SELECT u.source, u.target, u.id, u.state, c.slug, c.name
		FROM units u
		CROSS JOIN translations t
		CROSS JOIN components c
		WHERE substr(u.source, 1, 40) IN (`+strings.Join(prefixMarks, ", ")+`)
			AND u.source IN (`+strings.Join(marks, ", ")+`)
			AND t.id = u.translation_id AND c.id = t.component_id
			AND c.project_id = ? AND c.id != ? AND c.source_language = ? AND t.language_code = ?
			AND t.is_source = 0 AND u.state >= ?`+only+`
		ORDER BY u.state DESC, u.id`, args...)
	if err != nil {
		return formatError(err)
	}
	defer rows.Close()
	for rows.Next() {
		var m index.SameSourceMatch
		var target string
		if err := rows.Scan(&m.Source, &target, &m.UnitID, &m.State, &m.ComponentSlug, &m.ComponentName); err != nil {
			return formatError(err)
		}
		if per[m.Source] >= limit || index.IsBlank(index.SplitPlural(target)) {
			continue
		}
		per[m.Source]++
		m.Target = index.SplitPlural(target)
		*out = append(*out, m)
	}
	return formatError(rows.Err())
}

// prefix40 is substr(s, 1, 40) as both engines compute it: the first 40
// characters.
func prefix40(s string) string {
	n := 0
	for i := range s {
		if n == 40 {
			return s[:i]
		}
		n++
	}
	return s
}
