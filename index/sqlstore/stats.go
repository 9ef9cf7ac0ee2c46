package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/tolk-project/tolk/index"
)

const statsColumns = `total, total_words, total_chars, translated, translated_words, translated_chars,
	fuzzy, fuzzy_words, fuzzy_chars, failing, failing_words, failing_chars,
	approved, approved_words, approved_chars, readonly, readonly_words, readonly_chars,
	suggestions, comments`

func statsFields(s *index.Stats) []any {
	return []any{&s.Total, &s.TotalWords, &s.TotalChars, &s.Translated, &s.TranslatedWords,
		&s.TranslatedChars, &s.Fuzzy, &s.FuzzyWords, &s.FuzzyChars, &s.Failing, &s.FailingWords,
		&s.FailingChars, &s.Approved, &s.ApprovedWords, &s.ApprovedChars, &s.Readonly,
		&s.ReadonlyWords, &s.ReadonlyChars, &s.Suggestions, &s.Comments}
}

func statsValues(s index.Stats) []any {
	return []any{s.Total, s.TotalWords, s.TotalChars, s.Translated, s.TranslatedWords,
		s.TranslatedChars, s.Fuzzy, s.FuzzyWords, s.FuzzyChars, s.Failing, s.FailingWords,
		s.FailingChars, s.Approved, s.ApprovedWords, s.ApprovedChars, s.Readonly,
		s.ReadonlyWords, s.ReadonlyChars, s.Suggestions, s.Comments}
}

// countTranslation recounts a translation's units. Used inside a write,
// never on a read: reads use the stored rows.
func countTranslation(ctx context.Context, q queryer, translationID int64) (index.Stats, error) {
	var s index.Stats
	err := q.QueryRowContext(ctx, `SELECT count(*), coalesce(sum(num_words), 0), coalesce(sum(num_chars), 0),
		coalesce(sum(CASE WHEN state >= 20 THEN 1 ELSE 0 END), 0), coalesce(sum(CASE WHEN state >= 20 THEN num_words END), 0),
		coalesce(sum(CASE WHEN state >= 20 THEN num_chars END), 0),
		coalesce(sum(CASE WHEN state >= 10 AND state < 20 THEN 1 ELSE 0 END), 0), coalesce(sum(CASE WHEN state >= 10 AND state < 20 THEN num_words END), 0),
		coalesce(sum(CASE WHEN state >= 10 AND state < 20 THEN num_chars END), 0),
		coalesce(sum(has_failing_check), 0), coalesce(sum(CASE WHEN has_failing_check != 0 THEN num_words END), 0),
		coalesce(sum(CASE WHEN has_failing_check != 0 THEN num_chars END), 0),
		coalesce(sum(CASE WHEN state = 30 THEN 1 ELSE 0 END), 0), coalesce(sum(CASE WHEN state = 30 THEN num_words END), 0),
		coalesce(sum(CASE WHEN state = 30 THEN num_chars END), 0),
		coalesce(sum(CASE WHEN state = 100 THEN 1 ELSE 0 END), 0), coalesce(sum(CASE WHEN state = 100 THEN num_words END), 0),
		coalesce(sum(CASE WHEN state = 100 THEN num_chars END), 0),
		coalesce(sum(has_suggestion), 0), coalesce(sum(has_comment), 0)
		FROM units WHERE translation_id = ?`, translationID).Scan(statsFields(&s)...)
	return s, err
}

// refreshTranslationStats recounts one translation and applies the
// difference to its component, project and language rows, so those stay
// exact without ever summing over their translations.
func refreshTranslationStats(tx *Tx, t scopeIDs) error {
	now, err := countTranslation(runCtx, tx.queryer(), t.translationID)
	if err != nil {
		return err
	}
	return applyTranslationStats(tx, t, now)
}

// applyTranslationStats stores now as the translation's statistics and
// adds the difference to its component, project and language rows.
func applyTranslationStats(tx *Tx, t scopeIDs, now index.Stats) error {
	old, err := readStats(runCtx, tx.queryer(), "t", itoa(t.translationID))
	if err != nil {
		return err
	}
	delta := now
	delta.Add(old, -1)
	if delta == (index.Stats{}) {
		return nil
	}
	if err := addStats(tx, "t", itoa(t.translationID), delta); err != nil {
		return err
	}
	for _, s := range aggregateScopes(t) {
		if err := addStats(tx, s.scope, s.key, delta); err != nil {
			return err
		}
	}
	return nil
}

// aggregateScopes are the rows a translation's statistics add up into:
// its component, its project, its language, and its language within the
// project (for the project's languages list).
func aggregateScopes(t scopeIDs) []scopeKey {
	return []scopeKey{{"c", itoa(t.componentID)}, {"p", itoa(t.projectID)}, {"l", t.languageCode},
		{"pl", itoa(t.projectID) + "/" + t.languageCode}}
}

type scopeIDs struct {
	translationID, componentID, projectID int64
	languageCode                          string
}

// statsAddSet adds an upsert's values to a stats row's counts.
const statsAddSet = `total = stats.total + excluded.total, total_words = stats.total_words + excluded.total_words,
		total_chars = stats.total_chars + excluded.total_chars, translated = stats.translated + excluded.translated,
		translated_words = stats.translated_words + excluded.translated_words,
		translated_chars = stats.translated_chars + excluded.translated_chars, fuzzy = stats.fuzzy + excluded.fuzzy,
		fuzzy_words = stats.fuzzy_words + excluded.fuzzy_words, fuzzy_chars = stats.fuzzy_chars + excluded.fuzzy_chars,
		failing = stats.failing + excluded.failing, failing_words = stats.failing_words + excluded.failing_words,
		failing_chars = stats.failing_chars + excluded.failing_chars, approved = stats.approved + excluded.approved,
		approved_words = stats.approved_words + excluded.approved_words,
		approved_chars = stats.approved_chars + excluded.approved_chars, readonly = stats.readonly + excluded.readonly,
		readonly_words = stats.readonly_words + excluded.readonly_words,
		readonly_chars = stats.readonly_chars + excluded.readonly_chars,
		suggestions = stats.suggestions + excluded.suggestions, comments = stats.comments + excluded.comments`

// addStats adds d to a statistics row, or, in a write that defers its
// statistics (writeNarrow), owes it to the row until the batch stores
// what it owes (flushStats).
func addStats(tx *Tx, scope, key string, d index.Stats) error {
	tx.touch(statsDep(scope, key))
	if o := tx.owe(scope, key); o != nil {
		o.delta.Add(d, 1)
		return nil
	}
	args := append([]any{scope, key}, statsValues(d)...)
	_, err := tx.Exec(`INSERT INTO stats (scope, scope_key, `+statsColumns+`)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (scope, scope_key) DO UPDATE SET `+statsAddSet, args...)
	return err
}

func readStats(ctx context.Context, q queryer, scope, key string) (index.Stats, error) {
	var s index.Stats
	var last string
	err := q.QueryRowContext(ctx, `SELECT `+statsColumns+`, last_change, last_author FROM stats
		WHERE scope = ? AND scope_key = ?`, scope, key).Scan(append(statsFields(&s), &last, &s.LastAuthor)...)
	if errors.Is(err, sql.ErrNoRows) {
		return index.Stats{}, nil
	}
	s.LastChange = parseTime(last)
	return s, err
}

// recentWindow is how far back recent_changes looks.
const recentWindow = 24 * time.Hour

func (db *DB) statsWithRecent(ctx context.Context, scope, key, column string, arg any) (index.Stats, error) {
	return db.cachedStats(ctx, [2]string{scope, key}, statsDep(scope, key), func(now time.Time) (index.Stats, error) {
		s, err := readStats(ctx, db.r, scope, key)
		if err != nil {
			return s, formatError(err)
		}
		s.RecentChanges, err = db.recentChanges(ctx, column, arg, now)
		return s, err
	})
}

// recentCount is a scope's count of changes in the recent window, taken
// at a time, and the newest change there was then.
type recentCount struct {
	at     time.Time
	lastID int64
	n      int
}

// recentChanges counts the changes of one scope (column = arg) in the
// 24 hours before now. Every edit makes a scope's statistics stale, and
// counting a busy project's day of changes again for each read was the
// price of reading statistics while translators edit (a few ms each, at
// hundreds of edits a second). So a full count is kept for
// recentStaleness, and within it the answer is that count plus the
// changes recorded since, found by id: exact for new changes, and as
// late as a cached answer always was about changes leaving the window.
func (db *DB) recentChanges(ctx context.Context, column string, arg any, now time.Time) (int, error) {
	key := column + "\x00" + fmt.Sprint(arg)
	db.recentMu.Lock()
	rc, ok := db.recent[key]
	db.recentMu.Unlock()
	if ok && !now.Before(rc.at) && now.Sub(rc.at) < recentStaleness {
		var more int
		err := db.r.QueryRowContext(ctx, `SELECT count(*) FROM changes WHERE `+column+` = ? AND id > ?`,
			arg, rc.lastID).Scan(&more)
		return rc.n + more, formatError(err)
	}
	// The count and the newest change from one snapshot.
	tx, err := db.beginRead(ctx)
	if err != nil {
		return 0, formatError(err)
	}
	defer tx.Rollback()
	q := tx
	rc = recentCount{at: now}
	if err := q.QueryRowContext(ctx, `SELECT count(*) FROM changes WHERE `+column+` = ? AND id >= `+firstChangeAfter,
		arg, formatTime(now.Add(-recentWindow))).Scan(&rc.n); err != nil {
		return 0, formatError(err)
	}
	if err := q.QueryRowContext(ctx, `SELECT coalesce(max(id), 0) FROM changes`).Scan(&rc.lastID); err != nil {
		return 0, formatError(err)
	}
	db.recentMu.Lock()
	defer db.recentMu.Unlock()
	if db.recent == nil || len(db.recent) >= maxCachedLookups {
		db.recent = map[string]recentCount{}
	}
	db.recent[key] = rc
	return rc.n, nil
}

// TranslationStats returns the stored statistics of a translation.
func (db *DB) TranslationStats(ctx context.Context, translationID int64) (index.Stats, error) {
	return db.statsWithRecent(ctx, "t", itoa(translationID), "translation_id", translationID)
}

// ComponentStats returns the stored statistics summed over a component.
func (db *DB) ComponentStats(ctx context.Context, componentID int64) (index.Stats, error) {
	return db.statsWithRecent(ctx, "c", itoa(componentID), "component_id", componentID)
}

// ProjectStats returns the stored statistics summed over a project.
func (db *DB) ProjectStats(ctx context.Context, projectID int64) (index.Stats, error) {
	return db.statsWithRecent(ctx, "p", itoa(projectID), "project_id", projectID)
}

// LanguageStats returns the stored statistics summed over every
// translation into the language, leaving out the projects whose ids are
// hidden.
func (db *DB) LanguageStats(ctx context.Context, code string, hidden ...int64) (index.Stats, error) {
	if len(hidden) == 0 {
		return db.statsWithRecent(ctx, "l", code, "language_code", code)
	}
	// The sum over the language's projects moves with the language's row.
	return db.cachedStats(ctx, [2]string{"l-", code + "/" + hiddenKey(hidden)}, statsDep("l", code), func(now time.Time) (index.Stats, error) {
		return db.languageStatsWithout(ctx, code, hidden, now)
	})
}

// languageStatsWithout sums the language's statistics within each project
// (the "pl" rows) over the projects not hidden, so that no number of a
// hidden project reaches the answer, not even as a difference. Its last
// change and last author are those of the visible project whose
// translations into the language changed last. It reads one row per
// project translated into the language: fine for a reader's request,
// which is why the common case (nothing hidden) reads the language's own
// row instead.
func (db *DB) languageStatsWithout(ctx context.Context, code string, hidden []int64, now time.Time) (index.Stats, error) {
	skip := make(map[string]bool, len(hidden))
	for _, id := range hidden {
		skip[itoa(id)] = true
	}
	rows, err := db.r.QueryContext(ctx, `SELECT scope_key, `+statsColumns+`, last_change, last_author FROM stats
		WHERE scope = 'pl' AND substr(scope_key, instr(scope_key, '/') + 1) = ?`, code)
	if err != nil {
		return index.Stats{}, formatError(err)
	}
	defer rows.Close()
	var sum index.Stats
	for rows.Next() {
		var key, last string
		var st index.Stats
		if err := rows.Scan(append(append([]any{&key}, statsFields(&st)...), &last, &st.LastAuthor)...); err != nil {
			return index.Stats{}, fmt.Errorf("scan language stats: %w", err)
		}
		project, _, _ := strings.Cut(key, "/")
		if skip[project] {
			continue
		}
		sum.Add(st, 1)
		if t := parseTime(last); t.After(sum.LastChange) {
			sum.LastChange = t
			if st.LastAuthor != "" {
				sum.LastAuthor = st.LastAuthor
			}
		}
	}
	if err := rows.Err(); err != nil {
		return index.Stats{}, formatError(err)
	}
	cond, args := notIn("project_id", hidden)
	err = db.r.QueryRowContext(ctx, `SELECT count(*) FROM changes WHERE language_code = ? AND id >= `+firstChangeAfter+`
		AND (project_id IS NULL OR `+cond+`)`, withArgs([]any{code, formatTime(now.Add(-recentWindow))}, args...)...).
		Scan(&sum.RecentChanges)
	return sum, formatError(err)
}

// ProjectLanguageStats returns the statistics of every language of a
// project, summed over its components, with RecentChanges, ordered by
// language code.
func (db *DB) ProjectLanguageStats(ctx context.Context, projectID int64) ([]index.Language, []index.Stats, error) {
	prefix := itoa(projectID) + "/"
	rows, err := db.r.QueryContext(ctx, `SELECT `+languageColumns+`, `+statsColumns+`, s.last_change, s.last_author
		FROM stats s JOIN languages l ON l.code = substr(s.scope_key, ?)
		WHERE s.scope = 'pl' AND s.scope_key > ? AND s.scope_key < ? AND s.total > 0
		ORDER BY l.code`, len(prefix)+1, prefix, itoa(projectID)+"0") // '0' sorts right after '/'
	if err != nil {
		return nil, nil, formatError(err)
	}
	defer rows.Close()
	var langs []index.Language
	var stats []index.Stats
	for rows.Next() {
		var ls langScan
		var st index.Stats
		var last string
		if err := rows.Scan(append(append(ls.dest(), statsFields(&st)...), &last, &st.LastAuthor)...); err != nil {
			return nil, nil, err
		}
		st.LastChange = parseTime(last)
		langs = append(langs, ls.language())
		stats = append(stats, st)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, formatError(err)
	}
	recent, err := db.recentByLanguage(ctx, projectID)
	if err != nil {
		return nil, nil, err
	}
	for i := range langs {
		stats[i].RecentChanges = recent[langs[i].Code]
	}
	return langs, stats, nil
}

// recentByLanguage counts a project's recent changes per language, in
// one grouped query.
func (db *DB) recentByLanguage(ctx context.Context, projectID int64) (map[string]int, error) {
	since := formatTime(db.now().Add(-recentWindow))
	rows, err := db.r.QueryContext(ctx, `SELECT language_code, count(*) FROM changes
		WHERE project_id = ? AND id >= `+firstChangeAfter+` AND language_code IS NOT NULL
		GROUP BY language_code`, projectID, since)
	if err != nil {
		return nil, formatError(err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var code string
		var n int
		if err := rows.Scan(&code, &n); err != nil {
			return nil, fmt.Errorf("scan recent changes: %w", err)
		}
		out[code] = n
	}
	return out, formatError(rows.Err())
}
