package sqlstore

import (
	"context"

	"github.com/tolk-project/tolk/index"
)

// FindOtherLanguages returns the units of the same source string in the
// component's other languages (the editor's "Other languages": units
// linked to the same source unit, found as its id_hash in each of its
// component's translations through units_translation_hash — migration
// 0068 dropped units_source for the import's speed), leaving out
// unit excludeID and the source translation, the languages of first
// (codes: a translator's secondary languages) first in that order, then
// by language code. At most limit are returned (0: 100).
func (db *DB) FindOtherLanguages(ctx context.Context, sourceUnitID, excludeID int64, first []string, limit int) ([]index.LanguageUnit, error) {
	if limit <= 0 {
		limit = 100
	}
	// The languages of first lead, in their order, within the limit.
	order, args := "", []any{sourceUnitID, excludeID}
	if len(first) > 0 {
		order = "CASE t.language_code"
		for i, code := range first {
			order += " WHEN ? THEN " + itoa(int64(i))
			args = append(args, code)
		}
		order += " ELSE " + itoa(int64(len(first))) + " END, "
	}
	rows, err := db.r.QueryContext(ctx, `SELECT u.id, u.target, u.state, t.language_code,
		coalesce(l.name, t.language_code), coalesce(l.direction, 'ltr')
		`+otherLanguagesFrom+`
		ORDER BY `+order+`t.language_code LIMIT ?`, append(args, limit)...)
	if err != nil {
		return nil, formatError(err)
	}
	defer rows.Close()
	var out []index.LanguageUnit
	for rows.Next() {
		var lu index.LanguageUnit
		var target string
		if err := rows.Scan(&lu.UnitID, &target, &lu.State, &lu.LanguageCode, &lu.LanguageName, &lu.Direction); err != nil {
			return nil, formatError(err)
		}
		lu.Target = index.SplitPlural(target)
		out = append(out, lu)
	}
	return out, formatError(rows.Err())
}

// otherLanguagesFrom is FindOtherLanguages' FROM and WHERE: the units
// linked to source unit ? but unit ? in its component's translations
// other than the source (TestSourceUnitReadsPlan).
const otherLanguagesFrom = `FROM units s
		JOIN translations st ON st.id = s.translation_id
		JOIN translations t ON t.component_id = st.component_id
		JOIN units u ON u.translation_id = t.id AND u.id_hash = s.id_hash AND u.source_unit_id = s.id
		LEFT JOIN languages l ON l.code = t.language_code
		WHERE s.id = ? AND u.id != ? AND t.is_source = 0`
