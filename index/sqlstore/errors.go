package sqlstore

import (
	"database/sql"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/tolk-project/tolk/index"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// formatError turns driver errors into index error kinds where the caller
// can act on them; everything else passes through as internal.
func formatError(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, sql.ErrNoRows) || isPostgresUnstorableText(err) {
		return fmt.Errorf("%w", index.ErrNotFound)
	}
	if isUniqueViolation(err) {
		return &index.Error{Kind: index.ErrConflict, Message: "Object already exists."}
	}
	return err
}

// isUniqueViolation reports a unique or primary key constraint error of
// either engine.
func isUniqueViolation(err error) bool {
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() {
		case sqlite3.SQLITE_CONSTRAINT_UNIQUE, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY:
			return true
		}
	}
	return isPostgresUniqueViolation(err)
}

// isPostgresUnstorableText reports PostgreSQL's refusal of a text it
// cannot hold, one with a NUL character (SQLSTATE 22021), where SQLite
// takes it. No row holds such a text, so a lookup by one finds nothing,
// as on SQLite; the API refuses NUL characters in the bodies of writes,
// so a path's slug or code is where they come from.
func isPostgresUnstorableText(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "22021"
}

// isPostgresUniqueViolation reports PostgreSQL's unique_violation.
func isPostgresUniqueViolation(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "23505"
}
