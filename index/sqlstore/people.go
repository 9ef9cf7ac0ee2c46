package sqlstore

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/tolk-project/tolk/index"
)

// A user's statistics are kept, not counted per request: the rows of
// user_activity (migration 0031) hold, per user, project, language and
// action, how many changes credit the user, and triggers keep them in
// step with the change log in the writing transaction. The reference
// keeps one counter per user on its Profile; Tolk's are per project so
// that a reader who may not see a private project gets counts without
// its activity, and per language so that the language count is exact.
// Counting on read from the change log instead took over 100 ms for a
// user with 100,000 changes (BenchmarkUserStatistics, before 0031).

// actionList is "(a, b, …)": the actions are constants of ours, written
// into the statement text.
func actionList(actions ...index.Action) string {
	parts := make([]string, len(actions))
	for i, a := range actions {
		parts[i] = strconv.Itoa(int(a))
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

var (
	statsTranslated = actionList(index.StatsTranslatedActions...)
	userStatsQuery  = `SELECT
		coalesce(sum(CASE WHEN action IN ` + statsTranslated + ` THEN n END), 0),
		coalesce(sum(CASE WHEN action = ` + strconv.Itoa(int(index.StatsSuggestedAction)) + ` THEN n END), 0),
		coalesce(sum(CASE WHEN action = ` + strconv.Itoa(int(index.StatsUploadedAction)) + ` THEN n END), 0),
		coalesce(sum(CASE WHEN action = ` + strconv.Itoa(int(index.StatsCommentedAction)) + ` THEN n END), 0),
		count(DISTINCT CASE WHEN action IN ` + statsTranslated + ` AND language_code <> '' THEN language_code END)
		FROM user_activity WHERE user_id = ? AND n > 0`
	creditActions = actionList(index.ContentActions()...)
)

// UserStatistics returns what the user with the given id has done
// outside the projects whose ids are hidden (see index.UserStats).
func (db *DB) UserStatistics(ctx context.Context, userID int64, hidden []int64) (index.UserStats, error) {
	q, args := userStatsQuery, []any{userID}
	if len(hidden) > 0 {
		cond, ids := notIn("project_id", hidden)
		q, args = q+" AND "+cond, append(args, ids...)
	}
	var st index.UserStats
	err := db.r.QueryRowContext(ctx, q, args...).Scan(&st.Translated, &st.Suggested, &st.Uploaded,
		&st.Commented, &st.Languages)
	return st, formatError(err)
}

// userActivityRecount is user_activity recounted from the change log.
var userActivityRecount = `SELECT author_id, project_id, coalesce(language_code, ''), action, count(*)
	FROM changes WHERE author_id IS NOT NULL AND project_id IS NOT NULL AND action IN ` +
	actionList(append([]index.Action{index.StatsSuggestedAction, index.StatsUploadedAction,
		index.StatsCommentedAction}, index.StatsTranslatedActions...)...) + `
	GROUP BY 1, 2, 3, 4`

// userActivity checks for VerifyCounts that each user_activity row
// equals its recount from the change log (a row at zero equals no row).
func (v *countVerifier) userActivity(ctx context.Context, q queryer) error {
	read := func(query string) (map[string]int64, error) {
		rows, err := q.QueryContext(ctx, query)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		out := map[string]int64{}
		for rows.Next() {
			var user, project, action, n int64
			var lang string
			if err := rows.Scan(&user, &project, &lang, &action, &n); err != nil {
				return nil, err
			}
			if n != 0 {
				out[fmt.Sprintf("user %d project %d language %q action %d", user, project, lang, action)] = n
			}
		}
		return out, rows.Err()
	}
	return v.compareCounts("user activity of", read,
		`SELECT user_id, project_id, language_code, action, n FROM user_activity`, userActivityRecount)
}

// FindContributions returns one page of the translations the user with
// the given id has edited (its contributors rows), outside the projects
// whose ids are hidden, in ascending id order, and their number.
func (db *DB) FindContributions(ctx context.Context, userID int64, pg index.Page, hidden ...int64) ([]index.Translation, int, error) {
	from := translationFrom + `
		JOIN contributors k ON k.translation_id = t.id`
	where, args := `k.user_id = ?`, []any{userID}
	count := `SELECT count(*) FROM contributors k WHERE `
	if len(hidden) > 0 {
		cond, ids := notIn("c.project_id", hidden)
		where, args = where+" AND "+cond, append(args, ids...)
		count = `SELECT count(*) FROM contributors k JOIN translations t ON t.id = k.translation_id
			JOIN components c ON c.id = t.component_id WHERE `
	}
	var total int
	if err := db.r.QueryRowContext(ctx, count+where, args...).Scan(&total); err != nil {
		return nil, 0, formatError(err)
	}
	if total == 0 || pg.Offset() >= total {
		return nil, total, nil
	}
	out, err := db.translationPage(ctx, from, where, args, pg, total)
	return out, total, err
}

// Credits returns the authors of the content changes f selects, with
// how many each made, by language: ordered by language name, then by
// count, most first, then by user id.
func (db *DB) Credits(ctx context.Context, f index.CreditFilter) ([]index.Credit, error) {
	var where string
	var args []any
	switch {
	case f.TranslationID != 0:
		where, args = `ch.translation_id = ?`, []any{f.TranslationID}
	case f.ComponentID != 0:
		where, args = `ch.component_id = ?`, []any{f.ComponentID}
	default:
		where, args = `ch.project_id = ?`, []any{f.ProjectID}
	}
	where += ` AND ch.timestamp >= ? AND ch.timestamp <= ? AND ch.action IN ` + creditActions
	args = append(args, formatTime(f.Start), formatTime(f.End))
	if f.LanguageCode != "" {
		where, args = where+` AND ch.language_code = ?`, append(args, f.LanguageCode)
	}
	if f.AuthorID != 0 {
		where, args = where+` AND ch.author_id = ?`, append(args, f.AuthorID)
	}
	rows, err := db.r.QueryContext(ctx, `SELECT coalesce(l.name, ch.language_code), u.email, u.full_name, count(*)
		FROM changes ch
		JOIN users u ON u.id = ch.author_id
		LEFT JOIN languages l ON l.code = ch.language_code
		WHERE `+where+`
		GROUP BY coalesce(l.name, ch.language_code), u.id, u.email, u.full_name
		ORDER BY 1, 4 DESC, u.id`, args...)
	if err != nil {
		return nil, formatError(err)
	}
	defer rows.Close()
	var out []index.Credit
	for rows.Next() {
		var c index.Credit
		if err := rows.Scan(&c.Language, &c.Email, &c.FullName, &c.ChangeCount); err != nil {
			return nil, formatError(err)
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, formatError(err)
	}
	// The engines may collate names differently; byte order is the same
	// on both.
	slices.SortStableFunc(out, func(a, b index.Credit) int { return strings.Compare(a.Language, b.Language) })
	return out, nil
}
