package sqlstore

import (
	"context"
	"strings"

	"github.com/tolk-project/tolk/index"
)

// languageCodeTaken is the reference's message for a duplicate code (its
// model's unique field, as its serializer words it).
const languageCodeTaken = "Language with this Language code already exists."

// CreateLanguage adds a language, marked as the deployment's own so that
// seeding the built-in table never overwrites it. Its plural definition
// gets an id of its own. A code already taken is a *index.FieldError on
// code.
func (db *DB) CreateLanguage(ctx context.Context, l index.Language) (index.Language, error) {
	defer db.forgetPlurals() // the checks' cache of plural rules
	err := db.write(ctx, func(tx *Tx) error {
		if err := checkLanguageCodeFree(tx, l.Code, ""); err != nil {
			return err
		}
		var err error
		if l.Plural.ID, err = nextPluralID(tx); err != nil {
			return err
		}
		p := l.Plural
		_, err = tx.Exec(`INSERT INTO languages (code, name, direction, population, aliases,
			plural_id, plural_source, plural_number, plural_formula, plural_type, custom)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1)`, l.Code, l.Name, l.Direction, l.Population,
			strings.Join(l.Aliases, ","), p.ID, p.Source, p.Number, p.Formula, p.Type)
		return err
	})
	return l, err
}

// checkLanguageCodeFree answers a *index.FieldError when a language other
// than the one with code except has code.
func checkLanguageCodeFree(tx *Tx, code, except string) error {
	var n int
	if err := tx.QueryRow(`SELECT count(*) FROM languages WHERE code = ? AND code != ?`,
		code, except).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		return index.FieldErr("code", "unique", languageCodeTaken)
	}
	return nil
}

// nextPluralID is an id no plural definition has.
func nextPluralID(tx *Tx) (int64, error) {
	var id int64
	err := tx.QueryRow(`SELECT coalesce(max(plural_id), 0) + 1 FROM languages`).Scan(&id)
	return id, err
}

// UpdateLanguage reads the language with the given code, lets update
// change it and stores the result in one transaction, marked as the
// deployment's own. A changed plural definition gets a new id. The code
// of a language that a translation or a component's source uses cannot
// change: the index refers to languages by code, and renaming them under
// their files is not an edit of the language. Problems are
// *index.FieldError; ErrNotFound when there is no such language.
func (db *DB) UpdateLanguage(ctx context.Context, code string, update func(*index.Language) error) (index.Language, error) {
	defer db.forgetPlurals() // the checks' cache of plural rules
	var l index.Language
	err := db.write(ctx, func(tx *Tx) error {
		before, err := scanLanguage(tx.QueryRow(`SELECT `+languageColumns+` FROM languages WHERE code = ?`, code))
		if err != nil {
			return err
		}
		l = before
		if err := update(&l); err != nil {
			return err
		}
		if l.Code != code {
			if err := checkLanguageCodeFree(tx, l.Code, code); err != nil {
				return err
			}
			if n, err := languageUses(tx, code); err != nil {
				return err
			} else if n > 0 {
				return index.FieldErr("code", "invalid",
					"The code of a language in use can not be changed; add a new language instead.")
			}
		}
		if l.Plural.Number != before.Plural.Number || l.Plural.Formula != before.Plural.Formula {
			if l.Plural.ID, err = nextPluralID(tx); err != nil {
				return err
			}
		}
		p := l.Plural
		_, err = tx.Exec(`UPDATE languages SET code = ?, name = ?, direction = ?, population = ?,
			aliases = ?, plural_id = ?, plural_source = ?, plural_number = ?, plural_formula = ?,
			plural_type = ?, custom = 1 WHERE code = ?`, l.Code, l.Name, l.Direction, l.Population,
			strings.Join(l.Aliases, ","), p.ID, p.Source, p.Number, p.Formula, p.Type, code)
		return err
	})
	return l, err
}

// languageUses counts the translations into a language and the
// components whose source language it is.
func languageUses(tx *Tx, code string) (int, error) {
	var n int
	err := tx.QueryRow(`SELECT (SELECT count(*) FROM translations WHERE language_code = ?)
		+ (SELECT count(*) FROM components WHERE source_language = ?)`, code, code).Scan(&n)
	return n, err
}

// DeleteLanguage removes the language with the given code. A language
// that a translation or a component's source still uses is refused
// (ErrInvalid) rather than leaving them without their language.
// ErrNotFound when there is no such language.
func (db *DB) DeleteLanguage(ctx context.Context, code string) error {
	defer db.forgetPlurals() // the checks' cache of plural rules
	return db.write(ctx, func(tx *Tx) error {
		n, err := languageUses(tx, code)
		if err != nil {
			return err
		}
		if n > 0 {
			return index.Errorf(index.ErrInvalid,
				"The language %s is used by %d translations or components; remove them first.", code, n)
		}
		res, err := tx.Exec(`DELETE FROM languages WHERE code = ?`, code)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return index.ErrNotFound
		}
		return nil
	})
}
