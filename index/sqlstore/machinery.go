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
// reference's "weblate" service does; the units of the language in the
// project's other components are scanned, which no index narrows by
// text: the editor asks for one string at a time.
func (db *DB) FindSameSource(ctx context.Context, f index.SameSourceFilter) ([]index.SameSourceMatch, error) {
	if len(f.Sources) == 0 {
		return nil, nil
	}
	limit := f.Limit
	if limit <= 0 {
		limit = 10
	}
	args := []any{f.ProjectID, f.ExcludeComponentID, f.SourceLanguage, f.Language, index.StateTranslated}
	marks := make([]string, len(f.Sources))
	for i, s := range f.Sources {
		marks[i] = "?"
		args = append(args, s)
	}
	rows, err := db.r.QueryContext(ctx, `SELECT u.source, u.target, u.id, u.state, c.slug, c.name
		FROM components c
		JOIN translations t ON t.component_id = c.id
		JOIN units u ON u.translation_id = t.id
		WHERE c.project_id = ? AND c.id != ? AND c.source_language = ? AND t.language_code = ?
			AND t.is_source = 0 AND u.state >= ? AND u.source IN (`+strings.Join(marks, ", ")+`)
		ORDER BY u.state DESC, u.id`, args...)
	if err != nil {
		return nil, formatError(err)
	}
	defer rows.Close()
	var out []index.SameSourceMatch
	per := map[string]int{}
	for rows.Next() {
		var m index.SameSourceMatch
		var target string
		if err := rows.Scan(&m.Source, &target, &m.UnitID, &m.State, &m.ComponentSlug, &m.ComponentName); err != nil {
			return nil, formatError(err)
		}
		if per[m.Source] >= limit || index.IsBlank(index.SplitPlural(target)) {
			continue
		}
		per[m.Source]++
		m.Target = index.SplitPlural(target)
		out = append(out, m)
	}
	return out, formatError(rows.Err())
}
