package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strings"

	"github.com/tolk-project/tolk/index"
)

// Comments on units (reference workspace §3). units.has_comment says a
// unit has an unresolved comment stored on it, as the reference's
// Unit.unresolved_comments (comment.unit_id == self.id) does: a global
// comment, stored on the source unit, marks the source unit only, and
// counts in the source translation's statistics. Every write that adds,
// resolves or removes a comment sets has_comment and moves the
// statistics by the difference in its own transaction; a unit removed
// takes its comments (ON DELETE CASCADE) and its count (Stats.Count).

const commentColumns = `c.id, c.unit_id, c.comment, coalesce(c.user_id, 0), coalesce(u.username, ''),
	c.timestamp, c.resolved`

const commentFrom = ` FROM comments c LEFT JOIN users u ON u.id = c.user_id`

func scanComment(s interface{ Scan(...any) error }) (index.Comment, error) {
	var c index.Comment
	var ts string
	err := s.Scan(&c.ID, &c.UnitID, &c.Comment, &c.UserID, &c.Username, &ts, &c.Resolved)
	c.Timestamp = parseTime(ts)
	return c, err
}

// FindCommentByID returns one comment, or ErrNotFound.
func (db *DB) FindCommentByID(ctx context.Context, id int64) (index.Comment, error) {
	c, err := scanComment(db.r.QueryRowContext(ctx, `SELECT `+commentColumns+commentFrom+` WHERE c.id = ?`, id))
	return c, formatError(err)
}

// FindComments returns one page of the comments f selects, oldest first
// (the reference orders them by timestamp; ids break ties), and how many
// it selects.
func (db *DB) FindComments(ctx context.Context, f index.CommentFilter) ([]index.Comment, int, error) {
	where, args := ` WHERE c.unit_id = ?`, []any{f.UnitID}
	if f.SourceUnitID != 0 && f.SourceUnitID != f.UnitID {
		where, args = ` WHERE c.unit_id IN (?, ?)`, []any{f.UnitID, f.SourceUnitID}
	}
	tx, err := db.beginRead(ctx)
	if err != nil {
		return nil, 0, formatError(err)
	}
	defer tx.Rollback()
	var total int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM comments c`+where, args...).Scan(&total); err != nil {
		return nil, 0, formatError(err)
	}
	if f.Page.Offset() < 0 || f.Page.Size <= 0 || f.Page.Offset() >= total {
		return nil, total, nil
	}
	rows, err := tx.QueryContext(ctx, `SELECT `+commentColumns+commentFrom+where+
		` ORDER BY c.timestamp, c.id LIMIT ? OFFSET ?`, withArgs(args, f.Page.Size, f.Page.Offset())...)
	if err != nil {
		return nil, 0, formatError(err)
	}
	defer rows.Close()
	out := make([]index.Comment, 0, min(f.Page.Size, total-f.Page.Offset()))
	for rows.Next() {
		c, err := scanComment(rows)
		if err != nil {
			return nil, 0, formatError(err)
		}
		out = append(out, c)
	}
	return out, total, formatError(rows.Err())
}

// errNoCommenter is the answer to a user_email no account has. The
// reference falls back to the caller silently, which files an imported
// comment under the importer; Tolk says so instead.
var errNoCommenter = index.FieldErr("user_email", "invalid", "No user has this e-mail address.")

// AddComment adds a comment to the unit with the given id in one
// transaction. check gets the unit and its translation (with component,
// project and language) and returns the id of the unit the comment is
// stored on (the unit or its source unit) or an error, returned as is.
// The comment is by the actor, or by the user whose e-mail address
// c.UserEmail is (a FieldError when none is); it is dated c.Timestamp or
// now. It records "Comment added" (3) on the unit it is stored on with
// the text in the details, the users it mentions that exist
// (comment_mentions), and sets that unit's has_comment. A report
// comment also marks the source string for review: a monolingual
// component's translated template string goes to needs checking (12,
// "Marked for edit", 37); a bilingual one gets the label "Source needs
// review" (created red when the project lacks it; "Label added", 86).
func (db *DB) AddComment(ctx context.Context, unitID int64, actor index.Actor, c index.NewComment,
	check func(u index.Unit, t index.Translation) (int64, error)) (index.Comment, error) {
	var out index.Comment
	write := db.writeNarrow
	if c.Scope != index.ScopeReport { // a report may create the project's label: not scoped
		// Wide: it may be stored on the source unit, which other
		// translations' comments reach too (writers.go).
		write = func(ctx context.Context, fn func(*Tx) error) error {
			return db.writeScoped(ctx, writeScope{scopeWideUnit, unitID}, fn)
		}
	}
	err := write(ctx, func(tx *Tx) error {
		u, t, err := findUnitAndTranslation(tx, unitID)
		if err != nil {
			return err
		}
		storeOn, err := check(u, t)
		if err != nil {
			return err
		}
		author := actor
		if c.UserEmail != "" {
			var id int64
			err := tx.QueryRow(`SELECT id FROM users WHERE lower(email) = lower(?) ORDER BY id LIMIT 1`,
				c.UserEmail).Scan(&id)
			if errors.Is(err, sql.ErrNoRows) {
				return errNoCommenter
			} else if err != nil {
				return err
			}
			author = index.Actor{UserID: id, AuthorID: id}
		}
		if storeOn != u.ID {
			if u, t, err = findUnitAndTranslation(tx, storeOn); err != nil {
				return err
			}
		}
		ts := tx.now
		if !c.Timestamp.IsZero() {
			ts = c.Timestamp
		}
		res, err := tx.Exec(`INSERT INTO comments (unit_id, comment, user_id, timestamp) VALUES (?, ?, ?, ?)`,
			u.ID, c.Comment, nullID(author.UserID), formatTime(ts))
		if err != nil {
			return err
		}
		id, err := tx.lastInsertID(res)
		if err != nil {
			return err
		}
		if err := recordMentions(tx, id, c.Comment); err != nil {
			return err
		}
		e := editorOf(tx, &t, author)
		if err := e.setHasComment(&u, true); err != nil {
			return err
		}
		if err := e.commentChange(index.ActionComment, u.ID, c.Comment); err != nil {
			return err
		}
		if c.Scope == index.ScopeReport {
			if err := e.reportSource(&u, &t); err != nil {
				return err
			}
		}
		if err := e.finish(); err != nil {
			return err
		}
		out, err = scanComment(tx.QueryRow(`SELECT `+commentColumns+commentFrom+` WHERE c.id = ?`, id))
		return err
	})
	return out, err
}

// recordMentions keeps the existing users text mentions with @username.
func recordMentions(tx *Tx, commentID int64, text string) error {
	names := index.Mentions(text)
	if len(names) == 0 {
		return nil
	}
	args := []any{commentID}
	for _, n := range names {
		args = append(args, n)
	}
	_, err := tx.Exec(`INSERT INTO comment_mentions (comment_id, user_id)
		SELECT ?, id FROM users WHERE username IN (?`+strings.Repeat(", ?", len(names)-1)+`)
		ON CONFLICT DO NOTHING`, args...)
	return err
}

// reportSource marks a reported source string u (of source translation
// t) for review, as AddComment describes.
func (e *unitEditor) reportSource(u *index.Unit, t *index.Translation) error {
	if !t.Component.IsMonolingual() {
		label, err := ensureLabel(e.tx, t.Component.ProjectID, index.SourceNeedsReview, index.SourceNeedsReviewColor)
		if err != nil {
			return err
		}
		return e.addLabels(u, []index.Label{label})
	}
	// A template's string is read-only in statistics (100) until
	// reviewed; a report marks it too, as the reference marks a
	// reported monolingual source string. A string flagged read-only
	// stays as it is.
	flagged := index.HasFlag(u.Flags, "read-only") || index.HasFlag(u.ExtraFlags, "read-only")
	if !u.State.Translated() || flagged || (u.State == index.StateReadOnly && !t.IsMonolingualSource()) {
		return nil
	}
	// 12 is the reference's "needs checking", which it gives a source
	// string reported this way; it counts as needing editing.
	_, err := e.edit(u, index.UnitEdit{Target: u.Target, State: index.State(12)}, index.ActionMarkedEdit)
	return err
}

// setHasComment stores whether u has an unresolved comment and moves
// the statistics by the difference.
func (e *unitEditor) setHasComment(u *index.Unit, has bool) error {
	if u.HasComment == has {
		return nil
	}
	if _, err := e.tx.Exec(`UPDATE units SET has_comment = ? WHERE id = ?`, has, u.ID); err != nil {
		return err
	}
	if has {
		e.delta.Comments++
	} else {
		e.delta.Comments--
	}
	u.HasComment = has
	return nil
}

// refreshHasComment sets u's has_comment from its comments.
func (e *unitEditor) refreshHasComment(u *index.Unit) error {
	var has bool
	if err := e.tx.QueryRow(`SELECT EXISTS (SELECT 1 FROM comments WHERE unit_id = ? AND resolved = 0)`,
		u.ID).Scan(&has); err != nil {
		return err
	}
	return e.setHasComment(u, has)
}

// commentChange records a comment action on unit unitID with the text
// in the details, as the reference keeps it (details.comment).
func (e *unitEditor) commentChange(action index.Action, unitID int64, text string) error {
	details, err := json.Marshal(map[string]string{"comment": text})
	if err != nil {
		return err
	}
	return e.change(action, unitID, "", string(details))
}

// commentWrite runs fn on a comment, its unit and translation, once
// check (given them) allows it, in one transaction.
func (db *DB) commentWrite(ctx context.Context, id int64, check func(c index.Comment, t index.Translation) error,
	fn func(tx *Tx, c *index.Comment, u *index.Unit, t *index.Translation) error) (index.Comment, error) {
	var out index.Comment
	err := db.writeScoped(ctx, writeScope{scopeComment, id}, func(tx *Tx) error {
		c, err := scanComment(tx.QueryRow(`SELECT `+commentColumns+commentFrom+` WHERE c.id = ?`, id))
		if err != nil {
			return err
		}
		u, t, err := findUnitAndTranslation(tx, c.UnitID)
		if err != nil {
			return err
		}
		if err := check(c, t); err != nil {
			return err
		}
		err = fn(tx, &c, &u, &t)
		out = c
		return err
	})
	return out, err
}

// SetCommentResolved resolves (or reopens) a comment once check, given
// the comment and its unit's translation, allows it; check's error is
// returned as is, an unknown id is ErrNotFound. Resolving records
// "Resolved comment" (65); reopening records nothing, as the reference
// has no action for it. The unit's has_comment and the statistics
// follow. It returns the comment as it now is.
func (db *DB) SetCommentResolved(ctx context.Context, id int64, resolved bool, actor index.Actor,
	check func(c index.Comment, t index.Translation) error) (index.Comment, error) {
	return db.commentWrite(ctx, id, check, func(tx *Tx, c *index.Comment, u *index.Unit, t *index.Translation) error {
		if c.Resolved == resolved {
			return nil
		}
		if _, err := tx.Exec(`UPDATE comments SET resolved = ? WHERE id = ?`, resolved, c.ID); err != nil {
			return err
		}
		c.Resolved = resolved
		e := editorOf(tx, t, actor)
		if err := e.refreshHasComment(u); err != nil {
			return err
		}
		if resolved {
			if err := e.commentChange(index.ActionCommentResolve, u.ID, c.Comment); err != nil {
				return err
			}
		}
		return e.finish()
	})
}

// DeleteComment removes a comment once check allows it (as
// SetCommentResolved), recording "Comment removed" (64) with its text.
func (db *DB) DeleteComment(ctx context.Context, id int64, actor index.Actor,
	check func(c index.Comment, t index.Translation) error) error {
	_, err := db.commentWrite(ctx, id, check, func(tx *Tx, c *index.Comment, u *index.Unit, t *index.Translation) error {
		if _, err := tx.Exec(`DELETE FROM comments WHERE id = ?`, c.ID); err != nil {
			return err
		}
		e := editorOf(tx, t, actor)
		if err := e.refreshHasComment(u); err != nil {
			return err
		}
		if err := e.commentChange(index.ActionCommentDelete, u.ID, c.Comment); err != nil {
			return err
		}
		return e.finish()
	})
	return err
}
