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
// reference's "weblate" service does. The lookup finds the source units
// with those texts through the source prefix index, which holds source
// units only (migration 0064: one indexed probe per text, SQLite made to
// start from them by CROSS JOIN), and reaches their translations by
// id_hash through units_translation_hash (sameSourceQuery), so its cost
// follows the matches, not the size of the project: automatic
// translation asks for thousands of texts at once.
//
// A translation unit is found through its source unit only. One linked
// to no source unit is not found; Tolk makes none that way in use
// (findSameSource says where units get their link).
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
	for _, s := range sources {
		p := prefix40(s)
		if !prefixes[p] {
			prefixes[p] = true
			args = append(args, p)
		}
	}
	// The texts twice: the source units' and the translation units'.
	for range 2 {
		for _, s := range sources {
			args = append(args, s)
		}
	}
	args = append(args, f.ProjectID, f.ExcludeComponentID, f.SourceLanguage, f.Language, index.StateTranslated)
	if f.ComponentID != 0 {
		args = append(args, f.ComponentID)
	}
	rows, err := db.r.QueryContext(ctx, sameSourceQuery(len(prefixes), len(sources), f.ComponentID != 0), args...)
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

// sameSourceQuery is findSameSource's statement for prefixes distinct
// prefixes and texts texts, with the component filter when only.
//
// It starts from the source units s, through units_source_prefix: its
// predicate, source_unit_id = id, is repeated word for word, which is
// what lets both engines use a partial index (SQLite's planner matches
// the term; PostgreSQL proves the predicate from it). The translation
// unit u of the same string in the language asked follows from the
// source unit's component, that component's translation of the
// language and the id_hash every unit is linked by (through
// units_translation_hash; migration 0068 dropped units_source, an index
// of every unit by its source unit, for the import's speed). Before
// migration 0064 the statement probed every unit by its prefix; what it
// finds now differs only for a unit linked to no source unit
// (source_unit_id NULL), which it no longer finds. Tolk links every unit
// it makes: the import links a translation's units by id_hash to the
// source translation's (import.go, reconcileUnits), and sync builds
// each translation's units from the template (monolingual) or builds the
// source translation from the union of the translations' units
// (bilingual, sync/import.go); a unit added through the API is linked to
// the one added to the source translation (AddUnit); a source unit is
// linked to itself (linkSourceToItself, unitEditor.add). A translation
// unit whose source unit is gone is deleted (removeOrphans).
// TestFindSameSourceMatchesUnitScan checks the answers against a scan of
// every unit on a corpus component.
//
// u.source is compared with the texts too, not with s.source: a
// translation unit whose source text has not yet followed its source
// unit's (a template edited, the translation not yet re-imported) is
// found under its own text, as before, when that text was asked for.
func sameSourceQuery(prefixes, texts int, only bool) string {
	marks := func(n int) string { return strings.Repeat("?, ", n-1) + "?" }
	q := `SELECT u.source, u.target, u.id, u.state, c.slug, c.name
		FROM units s
		CROSS JOIN translations st
		CROSS JOIN components c
		CROSS JOIN translations t
		CROSS JOIN units u
		WHERE substr(s.source, 1, 40) IN (` + marks(prefixes) + `) AND s.source_unit_id = s.id
			AND s.source IN (` + marks(texts) + `) AND u.source IN (` + marks(texts) + `)
			AND st.id = s.translation_id AND c.id = st.component_id
			AND c.project_id = ? AND c.id != ? AND c.source_language = ?
			AND t.component_id = c.id AND t.language_code = ? AND t.is_source = 0
			AND u.translation_id = t.id AND u.id_hash = s.id_hash AND u.source_unit_id = s.id
			AND u.state >= ?`
	if only {
		q += " AND c.id = ?"
	}
	return q + " ORDER BY u.state DESC, u.id"
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
