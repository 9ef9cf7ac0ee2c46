package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/tolk-project/tolk/index"
)

// Suggestions (reference workspace §2; migration 0022). Every write
// reads the unit, its translation and the suggestion inside the single
// writer's transaction and hands them to the caller's rules, so that
// concurrent votes are serialized: the vote that reaches
// suggestion_autoaccept accepts, and the next finds the suggestion gone
// (ErrNotFound), never a second accept. units.has_suggestion and the
// statistics' suggestions move with the write that changes them (the
// editor's delta, stored by finish), so every count equals a recount.

const suggestionColumns = `s.id, s.unit_id, s.target, coalesce(s.user_id, 0), coalesce(us.username, ''),
	s.address, s.agent, s.timestamp, s.votes
	FROM suggestions s LEFT JOIN users us ON us.id = s.user_id`

func scanSuggestion(row interface{ Scan(...any) error }) (index.Suggestion, error) {
	var s index.Suggestion
	var target, ts string
	err := row.Scan(&s.ID, &s.UnitID, &target, &s.UserID, &s.Username, &s.Address, &s.Agent, &ts, &s.Votes)
	s.Target, s.Timestamp = index.SplitPlural(target), parseTime(ts)
	return s, err
}

// FindSuggestionByID returns a suggestion, or ErrNotFound.
func (db *DB) FindSuggestionByID(ctx context.Context, id int64) (index.Suggestion, error) {
	s, err := scanSuggestion(db.r.QueryRowContext(ctx, `SELECT `+suggestionColumns+` WHERE s.id = ?`, id))
	return s, formatError(err)
}

// FindSuggestions returns a page of suggestions and their total: a
// unit's, oldest first, or every one outside f.HiddenProjects, newest
// first, as the reference lists them.
//
// Cost: a unit's list and the list of all suggestions are counted lists
// (list_counts 'su' and 's', migration 0057), so any page costs what the
// first does (keyset.go). With hidden projects the list falls back to a
// count and an OFFSET read, as units' do, its cost growing with the page.
func (db *DB) FindSuggestions(ctx context.Context, f index.SuggestionFilter) ([]index.Suggestion, int, error) {
	// One read transaction, so the total and the page see one snapshot.
	tx, err := db.beginRead(ctx)
	if err != nil {
		return nil, 0, formatError(err)
	}
	defer tx.Rollback()
	var out []index.Suggestion
	var total int
	if f.UnitID == 0 && len(f.HiddenProjects) > 0 {
		out, total, err = findSuggestionsFiltered(ctx, tx, f)
	} else {
		out, total, err = findSuggestionsByKey(ctx, tx, f)
	}
	return out, total, formatError(err)
}

// suggestionList is the counted list of f's suggestions, hidden
// projects aside.
func suggestionList(f index.SuggestionFilter) keyList {
	if f.UnitID != 0 {
		return keyList{list: "su", scope: f.UnitID, from: "suggestions s", id: "s.id",
			where: " WHERE s.unit_id = ?", args: []any{f.UnitID}, hi: noBound}
	}
	return keyList{list: "s", from: "suggestions s", id: "s.id", hi: noBound, desc: true}
}

// findSuggestionsByKey reads a page of a counted list of suggestions.
func findSuggestionsByKey(ctx context.Context, q queryer, f index.SuggestionFilter) ([]index.Suggestion, int, error) {
	l := suggestionList(f)
	size := max(f.Page.Size, 1)
	total, first, ok, err := l.locate(ctx, q, f.Page.Offset())
	if err != nil || !ok {
		return nil, total, err
	}
	cond, args, order := l.page(first)
	rows, err := q.QueryContext(ctx, `SELECT `+suggestionColumns+cond+order+` LIMIT ?`, withArgs(args, size)...)
	if err != nil {
		return nil, 0, err
	}
	out, err := scanSuggestions(rows)
	return out, total, err
}

// findSuggestionsFiltered counts the suggestions outside f's hidden
// projects and reads the page with OFFSET, newest first.
func findSuggestionsFiltered(ctx context.Context, q queryer, f index.SuggestionFilter) ([]index.Suggestion, int, error) {
	cond, args := notIn("c.project_id", f.HiddenProjects)
	const from = ` JOIN units u ON u.id = s.unit_id JOIN translations t ON t.id = u.translation_id
		JOIN components c ON c.id = t.component_id`
	var total int
	if err := q.QueryRowContext(ctx, `SELECT count(*) FROM suggestions s`+from+` WHERE `+cond, args...).
		Scan(&total); err != nil {
		return nil, 0, err
	}
	size := max(f.Page.Size, 1)
	rows, err := q.QueryContext(ctx, `SELECT `+suggestionColumns+from+` WHERE `+cond+
		` ORDER BY s.id DESC LIMIT ? OFFSET ?`, withArgs(args, size, max(f.Page.Offset(), 0))...)
	if err != nil {
		return nil, 0, err
	}
	out, err := scanSuggestions(rows)
	return out, total, err
}

// scanSuggestions reads and closes rows.
func scanSuggestions(rows *sql.Rows) ([]index.Suggestion, error) {
	defer rows.Close()
	var out []index.Suggestion
	for rows.Next() {
		s, err := scanSuggestion(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// findSuggestionTx reads a suggestion with its unit and translation in
// a write transaction.
func findSuggestionTx(tx *Tx, id int64) (index.Suggestion, index.Unit, index.Translation, error) {
	s, err := scanSuggestion(tx.QueryRow(`SELECT `+suggestionColumns+` WHERE s.id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		// The kind alone: the API answers it as the reference's 404 of
		// any missing object, a suggestion accepted meanwhile included.
		return s, index.Unit{}, index.Translation{}, fmt.Errorf("suggestion %d: %w", id, index.ErrNotFound)
	}
	if err != nil {
		return s, index.Unit{}, index.Translation{}, err
	}
	u, t, err := findUnitAndTranslation(tx, s.UnitID)
	return s, u, t, err
}

// AddSuggestion adds a suggestion to a unit in one transaction, as the
// reference's SuggestionManager.add (reference workspace §2.2): decide
// (the permission rules) gets the unit and its translation; then the
// target is validated as a unit edit's (index.ValidateSuggestion), fixed
// by the automatic fixups, and refused when similar to the translation
// or already suggested by the same user (or with no vote to give). The
// same text suggested by someone else who may vote is an upvote
// (SuggestionVoted). A new suggestion records "Suggestion added" (4) and,
// with the vote right, its author's +1, which may accept it at once
// (suggestion_autoaccept 1).
func (db *DB) AddSuggestion(ctx context.Context, unitID int64, n index.NewSuggestion,
	decide func(u index.Unit, t index.Translation) (index.SuggestionRights, error)) (index.SuggestionOutcome, error) {
	var out index.SuggestionOutcome
	err := db.writeUnit(ctx, unitID, func(tx *Tx) error {
		u, t, err := findUnitAndTranslation(tx, unitID)
		if err != nil {
			return err
		}
		rights, err := decide(u, t)
		if err != nil {
			return err
		}
		if err := index.ValidateSuggestion(&u, &t, n.Target); err != nil {
			return err
		}
		e := editorOf(tx, &t, index.Actor{UserID: n.UserID, AuthorID: n.UserID})
		if out, err = addSuggestion(e, &u, &t, n, rights); err != nil {
			return err
		}
		return finishSuggestionWrite(e)
	})
	return out, err
}

// addSuggestion is AddSuggestion's write once the rules and the text's
// validation passed: the fixups, the similar and duplicate rules (a
// FieldError), the upvote of the same text, or the new suggestion with
// its change and its author's vote. e is an editor of t for the
// suggester; its statistics are the caller's to finish.
func addSuggestion(e *unitEditor, u *index.Unit, t *index.Translation, n index.NewSuggestion,
	rights index.SuggestionRights) (index.SuggestionOutcome, error) {
	tx := e.tx
	target := n.Target
	if !t.IsMonolingualSource() {
		var err error
		if target, _, err = e.autofix(u, target); err != nil {
			return index.SuggestionOutcome{}, err
		}
	}
	if err := index.SuggestionSimilar(u, target); err != nil {
		return index.SuggestionOutcome{}, err
	}
	joined := index.JoinPlural(target)
	var existing, author int64
	err := tx.QueryRow(`SELECT id, coalesce(user_id, 0) FROM suggestions WHERE unit_id = ? AND target = ?
		ORDER BY id LIMIT 1`, u.ID, joined).Scan(&existing, &author)
	switch {
	case err == nil:
		if author == n.UserID || !rights.Vote {
			return index.SuggestionOutcome{}, index.ErrSuggestionDuplicate
		}
		return vote(e, u, t, existing, n.UserID, 1)
	case !errors.Is(err, sql.ErrNoRows):
		return index.SuggestionOutcome{}, err
	}
	failing, err := suggestionChecks(tx, u, joined)
	if err != nil {
		return index.SuggestionOutcome{}, err
	}
	var id int64
	if err := tx.QueryRow(`INSERT INTO suggestions (unit_id, target, user_id, address, agent, timestamp, checks)
		VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id`, u.ID, joined, nullID(n.UserID), n.Address, n.Agent,
		formatTime(tx.now), strings.Join(failing, ",")).Scan(&id); err != nil {
		return index.SuggestionOutcome{}, err
	}
	if err := e.change(index.ActionSuggestion, u.ID, joined, ""); err != nil {
		return index.SuggestionOutcome{}, err
	}
	if err := setHasSuggestion(e, u, true); err != nil {
		return index.SuggestionOutcome{}, err
	}
	if rights.Vote {
		out, err := vote(e, u, t, id, n.UserID, 1)
		if out.Result == index.SuggestionVoted {
			out.Result = index.SuggestionCreated
		}
		return out, err
	}
	s, err := scanSuggestion(tx.QueryRow(`SELECT `+suggestionColumns+` WHERE s.id = ?`, id))
	return index.SuggestionOutcome{Result: index.SuggestionCreated, Suggestion: &s}, err
}

// suggestUpload is the reference's merge_suggestions: each considered
// unit of the file whose target differs from a writable unit's becomes
// a suggestion by the uploader (without their vote: the reference's
// upload adds none). Accepted counts the suggestions created; Skipped
// the units holding the text already, read-only ones, and texts the
// unit has as a suggestion already. A text at fault refuses the file, as
// a merge's does.
func suggestUpload(e *unitEditor, t *index.Translation, shape translationShape, up *index.Upload) (index.UploadResult, error) {
	res := index.UploadResult{Total: len(up.Units)}
	units, err := loadUnitsByHash(e.tx, e.ids.translationID)
	if err != nil {
		return res, err
	}
	for i := range up.Units {
		in := &up.Units[i]
		if ok, _ := up.Considers(in); !ok {
			continue
		}
		u, found := units[index.IDHash(shape.monolingual, in.Source, in.Context)]
		if !found {
			res.NotFound++
			continue
		}
		if len(in.Target) != index.PluralForms(u, shape.plurals) {
			return res, errPluralMismatch
		}
		if index.UnitReadOnly(u, t) || slices.Equal(u.Target, in.Target) {
			res.Skipped++
			continue
		}
		if err := index.CheckUploadText(in, in.Target, shape.sourceOf(u)); err != nil {
			return res, err
		}
		out, err := addSuggestion(e, u, t, index.NewSuggestion{Target: slices.Clone(in.Target), UserID: up.UserID},
			index.SuggestionRights{})
		switch {
		case errors.Is(err, index.ErrInvalid):
			res.Skipped++
		case err != nil:
			return res, err
		case out.Result == index.SuggestionCreated:
			res.Accepted++
		default:
			res.Skipped++
		}
	}
	return res, nil
}

// suggestionChecks runs the quality checks on target as u's translation
// (as the unit's own would run on it, translated), for display: the ids
// of those that fail, in the checks' order.
func suggestionChecks(tx *Tx, u *index.Unit, target string) ([]string, error) {
	sc, err := tx.checkScope(u.TranslationID)
	if err != nil {
		return nil, err
	}
	var sourceExtra string
	if u.SourceUnitID != 0 && u.SourceUnitID != u.ID {
		if sourceExtra, err = tx.sourceExtraFlags(u.SourceUnitID); err != nil {
			return nil, err
		}
	}
	cu := checkedUnit{id: u.ID, translationID: u.TranslationID, source: index.JoinPlural(u.Source), target: target,
		state: index.StateTranslated, flags: u.Flags, extra: u.ExtraFlags, sourceUnitID: u.SourceUnitID,
		sourceUnit: u.SourceUnitID == u.ID}
	if err := tx.loadTerms(sc, []checkedUnit{cu}, []string{sourceExtra}); err != nil {
		return nil, err
	}
	// No history (translated) nor neighbours (reused): a suggestion is
	// judged as a text, not as the unit's past.
	return sc.run(&cu, sourceExtra, unitContext{}), nil
}

// SuggestionChecksOf returns the ids of the quality checks each of the
// suggestions' texts failed when it was added (or when its source string
// last changed), for the editor to show beside it (reference workspace
// §2.4), in one query: by suggestion id, nil for one that failed none;
// an id with no suggestion is absent.
func (db *DB) SuggestionChecksOf(ctx context.Context, ids []int64) (map[int64][]string, error) {
	out := make(map[int64][]string, len(ids))
	for chunk := range slices.Chunk(ids, maxInList) {
		list, args := idList(chunk)
		rows, err := db.r.QueryContext(ctx, `SELECT id, checks FROM suggestions WHERE id IN `+list, args...)
		if err != nil {
			return nil, formatError(err)
		}
		for rows.Next() {
			var id int64
			var names string
			if err := rows.Scan(&id, &names); err != nil {
				rows.Close()
				return nil, formatError(err)
			}
			out[id] = nil
			if names != "" {
				out[id] = strings.Split(names, ",")
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, formatError(err)
		}
	}
	return out, nil
}

// finishUnitWrite stores what the editor owes and settles the checks
// the write marked, so that u, the unit the write's answer shows, is as
// its checks leave it: its state (an enforced check demotes it) and
// has_failing_check.
func finishUnitWrite(e *unitEditor, u *index.Unit) error {
	if err := e.finish(); err != nil {
		return err
	}
	settled, err := settleChecks(e.tx)
	if o, ok := settled[u.ID]; ok {
		u.State, u.HasFailingCheck = o.state, o.failing
	}
	return err
}

// finishSuggestionWrite stores what the editor owes and settles the
// checks an accept marked.
func finishSuggestionWrite(e *unitEditor) error {
	if err := e.finish(); err != nil {
		return err
	}
	_, err := settleChecks(e.tx)
	return err
}

// setHasSuggestion sets units.has_suggestion of u when it changes, and
// moves the statistics' suggestions with it.
func setHasSuggestion(e *unitEditor, u *index.Unit, has bool) error {
	if u.HasSuggestion == has {
		return nil
	}
	if _, err := e.tx.Exec(`UPDATE units SET has_suggestion = ? WHERE id = ?`, boolInt(has), u.ID); err != nil {
		return err
	}
	u.HasSuggestion = has
	if has {
		e.delta.Suggestions++
	} else {
		e.delta.Suggestions--
	}
	return nil
}

// dropSuggestion deletes a suggestion (its votes go by cascade) and
// clears u's has_suggestion when it was the last.
func dropSuggestion(e *unitEditor, u *index.Unit, id int64) error {
	if _, err := e.tx.Exec(`DELETE FROM suggestions WHERE id = ?`, id); err != nil {
		return err
	}
	var left int
	if err := e.tx.QueryRow(`SELECT count(*) FROM suggestions WHERE unit_id = ?`, u.ID).Scan(&left); err != nil {
		return err
	}
	return setHasSuggestion(e, u, left > 0)
}

// vote records userID's vote (+1 or -1, replacing an earlier one) on
// suggestion id of u, keeps suggestions.votes the net sum, and accepts
// the suggestion when that sum reaches t's suggestion_autoaccept, as the
// voter (the reference accepts with suggestion.vote: the voter needs no
// accept right), crediting its author.
func vote(e *unitEditor, u *index.Unit, t *index.Translation, id, userID int64, value int) (index.SuggestionOutcome, error) {
	tx := e.tx
	if _, err := tx.Exec(`INSERT INTO suggestion_votes (suggestion_id, user_id, value) VALUES (?, ?, ?)
		ON CONFLICT (suggestion_id, user_id) DO UPDATE SET value = excluded.value`, id, userID, value); err != nil {
		return index.SuggestionOutcome{}, err
	}
	if _, err := tx.Exec(`UPDATE suggestions SET votes = (SELECT coalesce(sum(value), 0)
		FROM suggestion_votes WHERE suggestion_id = ?) WHERE id = ?`, id, id); err != nil {
		return index.SuggestionOutcome{}, err
	}
	s, err := scanSuggestion(tx.QueryRow(`SELECT `+suggestionColumns+` WHERE s.id = ?`, id))
	if err != nil {
		return index.SuggestionOutcome{}, err
	}
	if !index.AutoAccepts(t, s.Votes) {
		return index.SuggestionOutcome{Result: index.SuggestionVoted, Suggestion: &s}, nil
	}
	if err := accept(e, u, t, &s, userID, index.AcceptState(u, t, false)); err != nil {
		return index.SuggestionOutcome{}, err
	}
	return index.SuggestionOutcome{Result: index.SuggestionAccepted}, nil
}

// accept saves suggestion s as u's target in state, recording
// "Suggestion accepted" (7) by acceptor with the suggester as the author
// (the acceptor for an anonymous suggestion), and deletes it. Accepting
// the text a translated unit holds only deletes it, as in the
// reference, unless it approves. e's statistics cover the suggestion
// count; the edit gets an editor of its own, for its actor.
func accept(e *unitEditor, u *index.Unit, t *index.Translation, s *index.Suggestion, acceptor int64,
	state index.State) error {
	author := s.UserID
	if author == 0 {
		author = acceptor
	}
	same := slices.Equal(u.Target, s.Target) && u.State.Translated()
	if !same || (state == index.StateApproved && u.State != index.StateApproved) {
		actor := index.Actor{UserID: acceptor, AuthorID: author}
		ae := editorOf(e.tx, t, actor)
		ed := index.UnitEdit{Target: s.Target, State: state}
		var err error
		if t.IsMonolingualSource() {
			err = ae.editTemplate(u, ed)
		} else {
			// An accepted suggestion is saved as the reference's
			// Unit.translate saves it: propagated too.
			var edited bool
			if edited, err = ae.edit(u, ed, index.ActionSuggestionAccept); err == nil && edited {
				err = propagate(e.tx, t, u, actor)
			}
		}
		if err != nil {
			return err
		}
		if err := ae.finish(); err != nil {
			return err
		}
	}
	return dropSuggestion(e, u, s.ID)
}

// AcceptSuggestion accepts a suggestion once decide (the rules, given
// the suggestion, its unit and translation) returns the state to save
// it in: it becomes the unit's target (see accept) and is deleted. It
// returns the unit as written, or ErrNotFound.
func (db *DB) AcceptSuggestion(ctx context.Context, id int64, actor index.Actor,
	decide func(s index.Suggestion, u index.Unit, t index.Translation) (index.State, error)) (index.Unit, error) {
	var out index.Unit
	err := db.writeScoped(ctx, writeScope{scopeSuggestion, id}, func(tx *Tx) error {
		s, u, t, err := findSuggestionTx(tx, id)
		if err != nil {
			return err
		}
		state, err := decide(s, u, t)
		if err != nil {
			return err
		}
		e := editorOf(tx, &t, actor)
		if err := accept(e, &u, &t, &s, actor.UserID, state); err != nil {
			return err
		}
		err = finishUnitWrite(e, &u)
		out = u
		return err
	})
	return out, err
}

// VoteSuggestion records userID's vote, +1 or -1, on a suggestion once
// check (the rules) allows it; a vote reaching suggestion_autoaccept
// accepts it (SuggestionAccepted, no suggestion). ErrNotFound for a
// suggestion that does not exist, or no longer: an earlier vote may
// have accepted it.
func (db *DB) VoteSuggestion(ctx context.Context, id, userID int64, value int,
	check func(s index.Suggestion, u index.Unit, t index.Translation) error) (index.SuggestionOutcome, error) {
	var out index.SuggestionOutcome
	err := db.writeScoped(ctx, writeScope{scopeSuggestion, id}, func(tx *Tx) error {
		s, u, t, err := findSuggestionTx(tx, id)
		if err != nil {
			return err
		}
		if err := check(s, u, t); err != nil {
			return err
		}
		e := editorOf(tx, &t, index.Actor{UserID: userID, AuthorID: userID})
		if out, err = vote(e, &u, &t, s.ID, userID, value); err != nil {
			return err
		}
		return finishSuggestionWrite(e)
	})
	return out, err
}

// suggestionRemoved is the details of "Suggestion removed" (26).
type suggestionRemoved struct {
	Old             string `json:"old"`
	RejectionReason string `json:"rejection_reason,omitempty"`
	IsSpam          bool   `json:"is_spam,omitempty"`
}

// DeleteSuggestion rejects a suggestion once check (the rules) allows
// it: "Suggestion removed" (26) with the suggested text as its target,
// the unit's target as old and the reason given, then the suggestion is
// deleted. ErrNotFound for one that does not exist.
func (db *DB) DeleteSuggestion(ctx context.Context, id int64, actor index.Actor, why index.Rejection,
	check func(s index.Suggestion, u index.Unit, t index.Translation) error) error {
	return db.writeScoped(ctx, writeScope{scopeSuggestion, id}, func(tx *Tx) error {
		s, u, t, err := findSuggestionTx(tx, id)
		if err != nil {
			return err
		}
		if err := check(s, u, t); err != nil {
			return err
		}
		e := editorOf(tx, &t, actor)
		if err := removeSuggestion(e, &u, &s, index.ActionSuggestionDelete, why); err != nil {
			return err
		}
		return e.finish()
	})
}

// removeSuggestion records a suggestion's removal (26 or 29) and deletes
// it.
func removeSuggestion(e *unitEditor, u *index.Unit, s *index.Suggestion, action index.Action, why index.Rejection) error {
	details, err := json.Marshal(suggestionRemoved{Old: index.JoinPlural(u.Target), RejectionReason: why.Reason, IsSpam: why.IsSpam})
	if err != nil {
		return err
	}
	if err := e.change(action, u.ID, index.JoinPlural(s.Target), string(details)); err != nil {
		return err
	}
	return dropSuggestion(e, u, s.ID)
}

// cleanupBatch is how many suggestions one cleanup write removes at
// most: the writer serves edits between batches.
const cleanupBatch = 500

// CleanupSuggestions removes, as the reference's daily
// cleanup_suggestions, every suggestion whose text a translated unit
// already holds and every one another suggestion of its unit repeats
// (the newest of equal ones stays), each recording "Suggestion removed
// during cleanup" (29) with no user. It returns how many it removed.
func (db *DB) CleanupSuggestions(ctx context.Context) (int, error) {
	total := 0
	for {
		n := 0
		err := db.writeNarrow(ctx, func(tx *Tx) error {
			ids, err := queryIDs(tx, `SELECT s.id FROM suggestions s JOIN units u ON u.id = s.unit_id
				WHERE (u.state >= 20 AND u.target = s.target)
				OR EXISTS (SELECT 1 FROM suggestions o WHERE o.unit_id = s.unit_id AND o.target = s.target AND o.id > s.id)
				ORDER BY u.translation_id, s.unit_id, s.id LIMIT ?`, cleanupBatch)
			if err != nil {
				return err
			}
			editors := map[int64]*unitEditor{}
			for _, id := range ids {
				s, u, t, err := findSuggestionTx(tx, id)
				if err != nil {
					return err
				}
				e := editors[t.ID]
				if e == nil {
					e = editorOf(tx, &t, index.Actor{})
					editors[t.ID] = e
				}
				if err := removeSuggestion(e, &u, &s, index.ActionSuggestionCleanup, index.Rejection{}); err != nil {
					return err
				}
			}
			for _, e := range editors {
				if err := e.finish(); err != nil {
					return err
				}
			}
			n = len(ids)
			return nil
		})
		total += n
		if err != nil || n < cleanupBatch {
			return total, err
		}
	}
}
