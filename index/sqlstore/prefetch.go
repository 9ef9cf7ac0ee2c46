package sqlstore

import (
	"context"
	"strings"
	"unicode/utf8"

	"github.com/tolk-project/tolk/index"
)

// The reads of a batch's unit edits, prefetched. On PostgreSQL a unit
// edit read its unit, the unit's check rows, its source unit's extra
// flags and its author's name in a round trip of its own
// (readUnitForEdit), one for each edit of a batch (issue 31: the writer's
// serial path at concurrency 8 is its round trips). The writer knows each
// edit's unit before it runs (writeUnitEdit), so the batch's first round
// trip, which takes its locks and replays write_log (beginBatch), reads
// them all, and an edit whose read is still what it would read takes it
// from there: a batch of one edit costs three round trips (was four), and
// every edit of a batch one (was two). With the target the edit expects
// to save (UpdateUnitExpecting), its settle's same-target lookups go
// with the reads too (targetGuess, pipeline.go): two round trips, and
// none of its own in a batch, where nothing else it reads needs one.
//
// When is a prefetched read still the edit's read? It was read after the
// batch's locks were granted: no other process's write can change the
// rows of the batch's scopes (a unit's translation, its component's key;
// the project's translations of its language where it propagates,
// writers.go) until the batch commits, and a process's exclusive write
// waits for the batch. So only the batch's own earlier writes can have
// changed it, and the read is used only when none of them can have:
//
//   - every earlier write of the batch was a unit edit (writeUnitEdit)
//     that read its own unit (readUnitForEdit records its scope), stayed
//     narrow and did not widen (a write that touches everything may
//     rename the author, change flags, or anything else);
//   - none of them edited a unit of the same translation (the checks'
//     same-target lookups recheck its units that share the old or the new
//     target), nor of the same project where either is a source (a
//     source string's edit moves every translation's unit, its flags every
//     translation's checks, and the moved strings leave and join the
//     inconsistent check's groups of the project's other components, in
//     every language: editTemplate, inconsistentLeft),
//     nor, where both components propagate translations, of the same
//     project and language (propagation writes the string's units in the
//     project's other components of that language, and the inconsistent
//     check their check rows: inconsistent.go). An edit of a translation
//     writes nothing of the component's other translations: the corpus's
//     components have up to a hundred languages, so a batch's edits often
//     share one (a rule by component had most of a batch's later edits
//     read afresh in tolk-bench's writes);
//   - its author's name was read with it (the batch's first edit's author);
//   - its component's flags do not name check-glossary: a glossary's
//     edit settles again such translations of its project, their check
//     rows included (checkSettler.rechecks). Since migration 0113 it
//     holds their locks, so another writer's or process's glossary edit
//     cannot run beside the batch, but an earlier glossary edit of the
//     same batch may change them before the later edit reads; such an
//     edit reads them afresh, just before it settles, as before the
//     prefetch (narrowing the rule to a batch with a glossary edit is
//     left: the corpus's slicer glossary is one of the few).
//
// A scoped write edits nothing outside its scope (writeScoped), and what
// an edit reaches is inside the rule's: so two edits of one unit, or of two
// units one of which propagates into the other, read the second afresh
// (TestPrefetchedEdits). Otherwise the edit reads as before (the round
// trip, after the batch's earlier writes). A write that fails is
// counted as if it had written. On SQLite, with no round trips to save,
// nothing is prefetched.

// writeUnitEdit is writeUnit for an edit whose write begins with
// readUnitForEdit(tx, unit, author): its batch prefetches that read, and
// with expect (not nil) the same-target lookups on it (targetGuess).
func (db *DB) writeUnitEdit(ctx context.Context, unit, author int64, expect []string, fn func(tx *Tx) error) error {
	if unit <= 0 {
		return db.writeNarrow(ctx, fn)
	}
	read := editRead{unit: unit, author: author}
	if expect != nil {
		read.target = index.JoinPlural(expect)
		// A text PostgreSQL refuses (a NUL, bytes not UTF-8), which the
		// write's rules refuse too, is not sent ahead: its lookup's error
		// would abort the batch's first round trip, every write of it.
		read.guess = utf8.ValidString(read.target) && !strings.Contains(read.target, "\x00")
	}
	return db.enqueue(&writeRequest{ctx: ctx, fn: fn, narrow: true, scope: writeScope{scopeUnit, unit},
		edit: read})
}

// editRead is what a unit edit reads first (writeUnitEdit), and with
// guess the target it expects to save (UpdateUnitExpecting), whose
// same-target lookups the prefetch sends too (targetGuess).
type editRead struct {
	unit, author int64
	target       string
	guess        bool
}

// prefetch is a batch's prefetched edit reads and what its writes so
// far may have changed.
type prefetch struct {
	units  map[int64]*unitRead
	author knownAuthor
	// current is the running write's read; scoped says it recorded its
	// scope (readUnitForEdit), scopes those the finished writes recorded;
	// spoiled that a finished write may have changed anything.
	current editRead
	scoped  bool
	scopes  []editScope
	spoiled bool
	// guess is the running write's same-target lookups, prefetched with
	// its unit and taken with it (take), until its settle uses them.
	guess *targetGuess
}

// editScope is where a unit edit may write, as the rule above reads it.
type editScope struct {
	translation, component, project int64
	language                        string
	source, propagates              bool
}

func scopeOf(t *index.Translation) editScope {
	return editScope{translation: t.ID, component: t.Component.ID, project: t.Component.ProjectID,
		language: t.Language.Code, source: t.IsSource,
		propagates: t.Component.AllowTranslationPropagation && !t.Component.IsGlossary}
}

func (a editScope) overlaps(b editScope) bool {
	return a.translation == b.translation ||
		((a.source || b.source) && a.project == b.project) ||
		(a.propagates && b.propagates && a.project == b.project && a.language == b.language)
}

// queuePrefetch queues, with the batch's first round trip, the reads of
// its unit edits (see above). Only on PostgreSQL.
func queuePrefetch(tx *Tx, live []*writeRequest) error {
	if tx.conn == nil {
		return nil // SQLite: no round trip to save
	}
	var ids []int64
	var author int64
	for _, r := range live {
		if r.edit.unit != 0 {
			ids = append(ids, r.edit.unit)
			if author == 0 {
				author = r.edit.author
			}
		}
	}
	if len(ids) == 0 {
		return nil
	}
	p := &prefetch{units: make(map[int64]*unitRead, len(ids))}
	tx.pre = p
	if author != 0 {
		if err := queueAuthorName(tx, author, &p.author); err != nil {
			return err
		}
	}
	// The statements of an edit's own read, a pair a unit: each keeps
	// one plan, which a statement of an array of ids, planned anew for
	// each length, would not (pgUnitByTarget says what that cost).
	for _, id := range ids {
		if p.units[id] != nil {
			continue
		}
		r := &unitRead{}
		p.units[id] = r
		if err := queueUnitRead(tx, id, r); err != nil {
			return err
		}
	}
	for _, req := range live {
		if r := p.units[req.edit.unit]; req.edit.guess && r != nil && r.guess == nil {
			r.guess = &targetGuess{unit: req.edit.unit, target: req.edit.target, read: r}
			if err := queueTargetGuess(tx, r.guess); err != nil {
				return err
			}
		}
	}
	return nil
}

// start readies p for the batch's next write, r.
func (p *prefetch) start(r *writeRequest) {
	if p == nil {
		return
	}
	p.current, p.scoped, p.guess = r.edit, false, nil
}

// finish records what the write that ran may have changed: its scope,
// or, when it was no unit edit that read its unit or it touched more
// than its unit's scope, anything.
func (p *prefetch) finish(tx *Tx) {
	if p == nil {
		return
	}
	if !p.scoped || !tx.narrowed || tx.widened {
		p.spoiled = true
	}
	p.current = editRead{}
}

// take returns the running write's prefetched read of unit id for
// readUnitForEdit, when it is still what the write would read (see
// above); ok false when the write must read it itself.
func (p *prefetch) take(tx *Tx, id, authorID int64) (u index.Unit, t index.Translation, ok bool) {
	if p == nil || p.spoiled || p.current.unit != id {
		return u, t, false
	}
	r := p.units[id]
	if r == nil || !r.found || (authorID != 0 && tx.author.id != authorID && p.author.id != authorID) {
		return u, t, false // not found: the read afresh says so
	}
	t, err := cachedTranslation(tx, r.u.TranslationID)
	if err != nil {
		return u, t, false // the read afresh says
	}
	if strings.Contains(t.Component.CheckFlags, "check-glossary") {
		return u, t, false // see above: rechecked outside the batch's locks
	}
	s := scopeOf(&t)
	for _, o := range p.scopes {
		if o.overlaps(s) {
			return u, t, false
		}
	}
	if authorID != 0 && tx.author.id != authorID {
		tx.author = p.author
	}
	r.keep(tx, id)
	p.record(id, &t)
	if g := r.guess; g != nil && g.answered {
		// Read with the unit: still what the write's lookups would
		// find, by the same rule (see targetGuess).
		p.guess = g
	}
	if tx.db != nil {
		tx.db.prefetchTaken.Add(1)
	}
	return r.u, t, true
}

// runningGuess is the running write's guess (nil when none was taken).
func (p *prefetch) runningGuess() *targetGuess {
	if p == nil {
		return nil
	}
	return p.guess
}

// record notes the scope of the running write's unit id, read in t.
func (p *prefetch) record(id int64, t *index.Translation) {
	if p == nil || p.current.unit != id || p.scoped {
		return
	}
	p.scopes = append(p.scopes, scopeOf(t))
	p.scoped = true
}
