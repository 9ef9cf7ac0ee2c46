package sqlstore

import (
	"context"
	"database/sql"
	"errors"

	"github.com/tolk-project/tolk/index"
)

// resolveLink sets c.LinkedID from c.Repo: the id of the component a
// weblate://project/[category/…/]component link names, 0 when Repo is no
// link, and rewrites c.Repo to the link with the target's category path
// (index.LinkTo), as the reference's own links read, so that a bare slug
// written for a component in categories is stored as the full form. A
// category path that is not the target's names nothing. It
// answers a *index.FieldError on "repo" for a link to nothing, to c
// itself or to a linked component (the reference's three refusals), and
// for a link from a component others link to (Tolk's: the reference
// let that make chains and, both ways, cycles); on "branch" or
// "push_branch"/"push" when c sets what its parent owns.
func resolveLink(tx *Tx, c *index.Component) error {
	c.LinkedID = 0
	if !index.IsLink(c.Repo) {
		return nil
	}
	project, path, slug, ok := index.LinkTarget(c.Repo)
	if !ok {
		return index.FieldErr("repo", "invalid", index.MsgLinkInvalid)
	}
	var target int64
	var targetLinked sql.NullInt64
	var targetPath sql.NullString
	err := tx.QueryRow(`SELECT c.id, c.linked_id, `+categoryPathColumn+` FROM components c JOIN projects p ON p.id = c.project_id
		WHERE p.slug = ? AND c.slug = ?`, project, slug).Scan(&target, &targetLinked, &targetPath)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && path != "" && path != targetPath.String) {
		return index.FieldErr("repo", "invalid", index.MsgLinkInvalid)
	}
	if err != nil {
		return err
	}
	c.Repo = index.LinkScheme + project + "/" + index.FullSlug(targetPath.String, slug)
	var fe index.FieldError
	switch {
	case target == c.ID:
		fe.Add("repo", "invalid", index.MsgLinkSelf)
	case targetLinked.Valid:
		fe.Add("repo", "invalid", index.MsgLinkToLinked)
	case c.ID != 0:
		var n int
		if err := tx.QueryRow(`SELECT count(*) FROM components WHERE linked_id = ?`, c.ID).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			fe.Add("repo", "invalid", index.MsgLinkedParent)
		}
	}
	for _, f := range []struct{ attr, value string }{{"branch", c.Branch}, {"push", c.Push}, {"push_branch", c.PushBranch}} {
		if f.value != "" {
			fe.Add(f.attr, "invalid", index.MsgLinkNotOption)
		}
	}
	if err := fe.Err(); err != nil {
		return err
	}
	c.LinkedID = target
	return nil
}

// setLinked stores the component's linked_id (resolveLink's answer).
func setLinked(tx *Tx, id, linkedID int64) error {
	_, err := tx.Exec(`UPDATE components SET linked_id = ? WHERE id = ?`, nullID(linkedID), id)
	return err
}

// relinkComponents points the repo of the components linked to c at c's
// project, category path and slug (index.LinkTo) after a rename or move
// of c, of one of its categories or of its project, as the reference
// rewrites their links (Component, Category and Project save).
func relinkComponents(tx *Tx, c index.Component) error {
	rows, err := tx.Query(`SELECT id, settings FROM components WHERE linked_id = ?`, c.ID)
	if err != nil {
		return err
	}
	settings := map[int64]string{}
	for rows.Next() {
		var id int64
		var text string
		if err := rows.Scan(&id, &text); err != nil {
			rows.Close()
			return err
		}
		settings[id] = text
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for id, text := range settings {
		l, err := decodeSettings(text)
		if err != nil {
			return err
		}
		l.Repo = index.LinkTo(&c)
		body, err := componentSettings(l)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(`UPDATE components SET settings = ? WHERE id = ?`, body, id); err != nil {
			return err
		}
	}
	return nil
}

// removeComponent removes one component inside a write: first the
// components linked to it (the reference cascades, and a link to nothing
// could not be served), then its statistics from the project and
// language totals, then its row with its translations, units and
// changes (ON DELETE CASCADE), and records "Component removed" (38) on
// its project by the actor. DeleteComponent, DeleteCategory and the
// linked components themselves go through it, so no removal forgets a
// step. The caller forgets orphan deliveries and reloads the hooks once
// after all its removals.
func removeComponent(tx *Tx, id, projectID int64, name string, by index.Actor) error {
	if err := deleteLinkedComponents(tx, id, by); err != nil {
		return err
	}
	if err := dropComponentStats(tx, id); err != nil {
		return err
	}
	tx.inconsistentLeft(projectID, id, "") // its strings leave their groups (inconsistent.go)
	if _, err := tx.Exec(`DELETE FROM components WHERE id = ?`, id); err != nil {
		return err
	}
	return insertChange(tx, index.Change{Action: index.ActionComponentRemoved, ProjectID: projectID,
		UserID: by.UserID, AuthorID: by.AuthorID, Target: name})
}

// deleteLinkedComponents removes the components linked to the one being
// removed, each with removeComponent. A linked component has none linked
// to it (resolveLink refuses chains), so this recursion is one level.
func deleteLinkedComponents(tx *Tx, id int64, by index.Actor) error {
	rows, err := tx.Query(`SELECT id, project_id, settings FROM components WHERE linked_id = ? ORDER BY id`, id)
	if err != nil {
		return err
	}
	type linked struct {
		id, project int64
		name        string
	}
	var all []linked
	for rows.Next() {
		var l linked
		var settings string
		if err := rows.Scan(&l.id, &l.project, &settings); err != nil {
			rows.Close()
			return err
		}
		c, err := decodeSettings(settings)
		if err != nil {
			rows.Close()
			return err
		}
		l.name = c.Name
		all = append(all, l)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, l := range all {
		if err := removeComponent(tx, l.id, l.project, l.name, by); err != nil {
			return err
		}
	}
	return nil
}

// LinkedComponents returns the components linked to the one with the
// given id (whose repository they share), in id order.
func (db *DB) LinkedComponents(ctx context.Context, id int64) ([]index.Component, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT `+componentColumns+`
		FROM components c JOIN projects p ON p.id = c.project_id WHERE c.linked_id = ? ORDER BY c.id`, id)
	if err != nil {
		return nil, formatError(err)
	}
	return collectComponents(rows)
}

// FindComponentByID returns the component with the given id, or
// ErrNotFound.
func (db *DB) FindComponentByID(ctx context.Context, id int64) (index.Component, error) {
	row := db.r.QueryRowContext(ctx, `SELECT `+componentColumns+`
		FROM components c JOIN projects p ON p.id = c.project_id WHERE c.id = ?`, id)
	c, err := scanComponent(row)
	return c, formatError(err)
}
