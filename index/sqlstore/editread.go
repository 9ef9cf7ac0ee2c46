package sqlstore

import (
	"database/sql"
	"fmt"
	"strings"

	"github.com/tolk-project/tolk/index"
)

// editReadQuery reads, with the unit an edit is about to change, what
// the edit reads next (readUnitForEdit): the source unit's extra flags
// (sourceExtraFlags), the unit's check rows, each its dismissed digit
// and its name (checkSettler.existing), and the author's name
// (authorName). On SQLite each was a statement of its own, about 5 µs of
// a unit PATCH's writer time apiece (issue 26: the PATCH within 10% of
// 17bbd80's); the subqueries cost one index probe each inside this one.
const editReadQuery = `SELECT ` + editUnitColumns + `,
	coalesce((SELECT group_concat(k.dismissed || k.name, ' ') FROM checks k WHERE k.unit_id = units.id), ''),
	(` + authorNameQuery + `)
	FROM units WHERE id = ?`

// editUnitColumns are the columns both engines' edit reads begin with
// (readUnitForEdit, editReadQuery), from units: the unit's, then its
// source unit's id and extra flags (sourceExtraFlags).
const editUnitColumns = unitColumns + `, coalesce(source_unit_id, id),
	coalesce((SELECT s.extra_flags FROM units s WHERE s.id = coalesce(units.source_unit_id, units.id)), '')`

// readUnitForEditSQLite is readUnitForEdit on SQLite: one statement
// where findUnitAndTranslation and the reads after it took four.
func readUnitForEditSQLite(tx *Tx, id, authorID int64) (index.Unit, index.Translation, error) {
	var src int64
	var flags, checkNames string
	var author sql.NullString
	u, err := scanUnit(scanWith{tx.QueryRow(editReadQuery, authorID, id), []any{&src, &flags, &checkNames, &author}})
	if err != nil {
		return u, index.Translation{}, err
	}
	if tx.extraFlags == nil {
		tx.extraFlags = map[int64]string{}
	}
	tx.extraFlags[src] = flags
	if tx.unitChecks == nil {
		tx.unitChecks = map[int64][]index.UnitCheck{}
	}
	tx.unitChecks[id] = parseCheckNames(checkNames)
	if authorID != 0 && author.Valid {
		tx.author.id, tx.author.name = authorID, author.String
	}
	t, err := cachedTranslation(tx, u.TranslationID)
	if err != nil {
		// As findUnitAndTranslation: a miss is internal, not a 404.
		return u, t, fmt.Errorf("translation %d of unit %d: %v", u.TranslationID, id, err)
	}
	return u, t, nil
}

// parseCheckNames reads editReadQuery's check rows: a dismissed digit
// and a check id each, apart by spaces (no check id holds one).
func parseCheckNames(s string) []index.UnitCheck {
	if s == "" {
		return nil
	}
	var out []index.UnitCheck
	for f := range strings.FieldsSeq(s) {
		out = append(out, index.UnitCheck{Name: f[1:], Dismissed: f[0] != '0'})
	}
	return out
}

// scanWith scans a row into the destinations given and then more: a
// row scanner's columns followed by a query's own.
type scanWith struct {
	row  interface{ Scan(...any) error }
	more []any
}

func (r scanWith) Scan(dest ...any) error { return r.row.Scan(append(dest, r.more...)...) }
