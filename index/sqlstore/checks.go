package sqlstore

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/tolk-project/tolk/checks"
	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/langdata"
)

// Quality checks are stored rows (migration 0021), written by the write
// that changes what they read, so that every statistics row counts them
// exactly, as it counts states. A write does not run the checks itself:
// it marks what it changed (Tx.recheck, recheckTranslation,
// recheckSource) and runWrite settles the marks once the write's
// function has returned (settleChecks), inside the write's savepoint: a
// write rolled back takes its check rows with it.
//
// Settling reads each marked unit with what its checks depend on (its
// source and target, state, the flags of the file, of its source unit
// and its own extra flags, the component's check flags and enforced
// checks, the file format's flags and the languages), runs the checks
// package, replaces the unit's rows by the failing ids (keeping the
// dismissal of a check that still fails), keeps has_failing_check in
// step and owes the statistics the difference. The checks that read
// other rows (the glossary, the unit's history, the units sharing its
// target) are in checks_batch.go, with what they cost; what they change
// for other units is settled in a second round.

// checkMarks are the units and translations a write marked for
// settleChecks.
type checkMarks struct {
	units        map[int64]bool // unit id → saved by an edit (enforced checks apply)
	translations map[int64]bool // every unit of the translation
	sources      map[int64]bool // a source unit and the units that follow it
	actor        index.Actor    // who saved the units with enforced checks
	// snapshots hold, for marked units the write has in memory as they
	// now are, what settling would read of them: an edit's unit is not
	// read again.
	snapshots map[int64]checkedUnit
	// created are the checks running on translations the write created.
	created []*createdChecks
	// left are, by translation, the targets translated units had before
	// the write changed them: the units still sharing one may no longer
	// be reused (rechecks).
	left map[int64][]string
	// glossaries are the glossaries whose terms the write removed
	// (removedChecked).
	glossaries map[glossaryKey]bool
	// leftGroups are the strings the write took out of their groups
	// across components (inconsistentLeft).
	leftGroups map[leftKey]bool
	// propagated is the answer of an edit's propagation lookup as its
	// writes left it, which the inconsistent check reuses
	// (reusablePropagation); propagations counts the write's
	// propagateUnits calls: only a write's one is reused.
	propagated   *propagatedLookup
	propagations int
}

// recheck marks units whose checks may have changed; saved says an edit
// (not an import) set their target, so enforced checks apply to them.
func (tx *Tx) recheck(saved bool, actor index.Actor, ids ...int64) {
	if tx.checks.units == nil {
		tx.checks.units = map[int64]bool{}
	}
	for _, id := range ids {
		tx.checks.units[id] = tx.checks.units[id] || saved
	}
	if saved {
		tx.checks.actor = actor
	}
}

// recheckUnit marks u, which the write holds as it now stands (recheck
// with a snapshot): every later change of u in the write must mark it
// again, and a removal must forget it (forgetUnit).
func (tx *Tx) recheckUnit(u *index.Unit, saved bool, actor index.Actor) {
	tx.recheck(saved, actor, u.ID)
	if g := tx.pre.runningGuess(); g != nil && g.read.u.TranslationID == u.TranslationID && g.unit != u.ID {
		// The guess answers for its translation as the write's BEGIN
		// left it but for its own unit (targetGuess): another unit of
		// it edited, the settle looks up.
		tx.pre.guess = nil
	}
	if tx.checks.snapshots == nil {
		tx.checks.snapshots = map[int64]checkedUnit{}
	}
	src := u.SourceUnitID
	if src == 0 {
		src = u.ID
	}
	tx.checks.snapshots[u.ID] = checkedUnit{id: u.ID, translationID: u.TranslationID,
		source: index.JoinPlural(u.Source), target: index.JoinPlural(u.Target), state: u.State, flags: u.Flags,
		extra: u.ExtraFlags, sourceUnitID: src, words: u.NumWords, chars: u.NumChars(),
		failing: u.HasFailingCheck, sourceUnit: src == u.ID, context: u.Context, hasContext: true}
}

// sourceExtraFlags returns a source unit's extra flags, read once per
// write: an edit's autofixes and its checks both need them.
func (tx *Tx) sourceExtraFlags(id int64) (string, error) {
	if flags, ok := tx.extraFlags[id]; ok {
		return flags, nil
	}
	var flags string
	err := tx.QueryRow(`SELECT extra_flags FROM units WHERE id = ?`, id).Scan(&flags)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return "", err
	}
	if tx.extraFlags == nil {
		tx.extraFlags = map[int64]string{}
	}
	tx.extraFlags[id] = flags
	return flags, nil
}

// readSourceExtraFlags reads into the write's cache (sourceExtraFlags)
// the extra flags of the source units ids not read yet, in one query per
// maxInList, for a write about to ask for several: an automatic
// translation's batch (its autofixes, then runAll's checks of fewer than
// parallelChecks units). Asking for each string's source unit alone was
// a round trip per string on PostgreSQL.
func (tx *Tx) readSourceExtraFlags(ids []int64) error {
	ids = slices.DeleteFunc(slices.Clone(ids), func(id int64) bool {
		_, ok := tx.extraFlags[id]
		return ok || id == 0
	})
	slices.Sort(ids)
	ids = slices.Compact(ids)
	if len(ids) < 2 {
		return nil
	}
	if tx.extraFlags == nil {
		tx.extraFlags = map[int64]string{}
	}
	for chunk := range slices.Chunk(ids, maxInList) {
		for _, id := range chunk {
			tx.extraFlags[id] = "" // a source unit gone has none, as sourceExtraFlags says
		}
		list, args := idList(chunk)
		rows, err := tx.Query(`SELECT id, extra_flags FROM units WHERE id IN `+list, args...)
		if err != nil {
			return err
		}
		for rows.Next() {
			var id int64
			var flags string
			if err := rows.Scan(&id, &flags); err != nil {
				rows.Close()
				return err
			}
			tx.extraFlags[id] = flags
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
	}
	return nil
}

// forgetUnit drops a unit the write removes from the marks.
func (tx *Tx) forgetUnit(id int64) {
	delete(tx.checks.units, id)
	delete(tx.checks.snapshots, id)
}

// recheckTranslation marks every unit of a translation.
func (tx *Tx) recheckTranslation(id int64) {
	if tx.checks.translations == nil {
		tx.checks.translations = map[int64]bool{}
	}
	tx.checks.translations[id] = true
}

// recheckSource marks a source unit and every unit linked to it: the
// source unit's extra flags apply to all of them.
func (tx *Tx) recheckSource(id int64) {
	if tx.checks.sources == nil {
		tx.checks.sources = map[int64]bool{}
	}
	tx.checks.sources[id] = true
}

// checkedUnit is what settleChecks reads of a unit.
type checkedUnit struct {
	id, translationID   int64
	source, target      string
	state               index.State
	flags, extra        string
	sourceUnitID        int64
	hash                int64 // id_hash: set for a created translation's units only
	words, chars        int
	failing, sourceUnit bool
	// historyEnds says the write just recorded a change that ends
	// translated's walk of the unit's history (a source change or a
	// marking for edit, checks.PastBreak): its history is not read.
	historyEnds bool
	// context is the unit's context when hasContext says it is known (a
	// snapshot: recheckUnit, or read for the Fluent checks by the
	// settler's context); the inconsistent check reads the others'
	// (unitContexts).
	context    string
	hasContext bool
}

// checkedUnitColumns are what settling reads of a unit. The source
// unit's extra flags are looked up apart (checkSettler.sourceExtra):
// they are almost always empty, and a join per unit was a tenth of an
// import.
const checkedUnitColumns = `u.id, u.translation_id, u.source, u.target, u.state, u.flags, u.extra_flags,
	u.num_words, u.num_chars, u.has_failing_check, coalesce(u.source_unit_id, u.id)
	FROM units u`

func scanCheckedUnit(rows interface{ Scan(...any) error }) (checkedUnit, error) {
	var u checkedUnit
	var sourceUnitID int64
	err := rows.Scan(&u.id, &u.translationID, &u.source, &u.target, &u.state, &u.flags, &u.extra,
		&u.words, &u.chars, &u.failing, &sourceUnitID)
	u.sourceUnitID, u.sourceUnit = sourceUnitID, sourceUnitID == u.id
	return u, err
}

// checkOutcome is what settling left a unit with.
type checkOutcome struct {
	state   index.State
	failing bool
}

// settleChecks runs the checks of what the write marked and stores the
// outcome (see Quality checks above). A write whose answer shows the
// units it saved settles itself before reading them (UpdateUnit) and
// gets what settling changed of each unit: its state (an enforced check
// demotes it) and has_failing_check; runWrite settles the rest.
func settleChecks(tx *Tx) (map[int64]checkOutcome, error) { return settleRound(tx, false) }

// settleRound is settleChecks; last says it is the second round, which
// marks nothing more (rechecks).
func settleRound(tx *Tx, last bool) (map[int64]checkOutcome, error) {
	m := tx.checks
	tx.checks = checkMarks{}
	var guess *targetGuess
	if tx.pre != nil {
		// The edit's lookups sent ahead answer the write's first settle
		// only, whatever it settles or fails at: what the write wrote
		// since may be another lookup's answer.
		guess, tx.pre.guess = tx.pre.guess, nil
	}
	if tx.db.noChecks {
		return nil, nil // Options.NoChecks: measuring without them
	}
	if len(m.leftGroups) > 0 {
		ids, err := leftPeers(tx, m.leftGroups)
		if err != nil {
			return nil, err
		}
		if len(ids) > 0 && m.units == nil {
			m.units = map[int64]bool{}
		}
		for _, id := range ids {
			m.units[id] = m.units[id] || false
		}
	}
	if len(m.units)+len(m.translations)+len(m.sources)+len(m.created)+len(m.left)+len(m.glossaries) == 0 {
		return nil, nil
	}
	s := &checkSettler{tx: tx, scopes: map[int64]*checkScope{}, deltas: map[int64]*index.Stats{}, marks: m, last: last,
		guess: guess}
	if len(m.created) > 0 {
		s.createdTranslations = make(map[int64]bool, len(m.created))
	}
	for _, job := range m.created {
		s.createdTranslations[job.translationID] = true
	}
	if err := s.settleCreated(m.created); err != nil {
		return nil, err
	}
	// What the wide marks reach may have a new source string or flags:
	// its suggestions' checks are run again too (suggestion_checks.go).
	s.resuggest = len(m.translations)+len(m.sources) > 0
	for _, tid := range slices.Sorted(maps.Keys(m.translations)) {
		if err := s.loadTranslation(tid); err != nil {
			return nil, err
		}
	}
	for _, sid := range slices.Sorted(maps.Keys(m.sources)) {
		// The units that follow a source unit are its component's units
		// of the same id_hash, found through the index every import uses
		// (see dependentUnits): source_unit_id has none.
		if err := s.load(`SELECT `+checkedUnitColumns+`
			WHERE u.translation_id IN (SELECT t.id FROM translations t
				JOIN translations st ON st.component_id = t.component_id
				JOIN units src ON src.translation_id = st.id WHERE src.id = ?)
			AND u.id_hash = (SELECT id_hash FROM units WHERE id = ?) ORDER BY u.id`, sid, sid); err != nil {
			return nil, err
		}
	}
	s.resuggest = false
	ids := make([]int64, 0, len(m.units))
	var held []checkedUnit
	for id := range m.units {
		switch u, ok := m.snapshots[id]; {
		case s.seen[id]:
		case ok:
			held = append(held, u)
		default:
			ids = append(ids, id)
		}
	}
	if len(held) > 0 {
		slices.SortFunc(held, func(a, b checkedUnit) int { return cmp.Compare(a.id, b.id) })
		if err := s.settleUnits(nil, held); err != nil {
			return nil, err
		}
	}
	slices.Sort(ids)
	for chunk := range slices.Chunk(ids, maxInList) {
		list, args := idList(chunk)
		if err := s.load(`SELECT `+checkedUnitColumns+` WHERE u.id IN `+list+` ORDER BY u.id`, args...); err != nil {
			return nil, err
		}
	}
	if err := s.finish(); err != nil {
		return nil, err
	}
	// A second round settles the units whose checks read what this one
	// settled (see checks_batch.go); it marks nothing more.
	if last {
		return s.outcomes, nil
	}
	again, err := s.rechecks()
	switch {
	case err != nil:
		return nil, err
	case again:
		more, err := settleRound(tx, true)
		if err != nil {
			return nil, err
		}
		for id, o := range more {
			if _, ok := s.outcomes[id]; !ok {
				if s.outcomes == nil {
					s.outcomes = map[int64]checkOutcome{}
				}
				s.outcomes[id] = o
			}
		}
	}
	return s.outcomes, nil
}

// maxInList bounds the ids of one IN list: a power of two, as idList
// pads to.
const maxInList = 512

// checkSettler settles the checks of the units one write marked.
type checkSettler struct {
	tx     *Tx
	marks  checkMarks
	scopes map[int64]*checkScope // by translation id
	deltas map[int64]*index.Stats
	seen   map[int64]bool
	// resuggest says the units being settled may have a new source
	// string or flags, so their suggestions are checked again.
	resuggest bool
	// The writes, gathered and run in bulk by finish.
	insert     []checkRow
	remove     []checkRow
	flip       map[bool][]int64 // has_failing_check's new value → units
	demoted    []checkedUnit    // saved units an enforced check sends to 11
	demotedFor map[int64][]string
	outcomes   map[int64]checkOutcome
	// whole are the translations settled whole (loadTranslation);
	// glossaries and follow what the settled units change for others
	// (rechecks).
	whole map[int64]bool
	last  bool // the second round (settleRound)
	// guess is the edit's same-target lookups sent ahead (targetGuess),
	// taken by the write's first settle only (settleRound).
	guess *targetGuess
	// peerFollow are other components' units whose inconsistent row
	// the settled units' groups disagree with (followInconsistent),
	// settled in the second round, all of them: the counts must be exact.
	peerFollow map[int64]bool
	// createdTranslations are the translations the write created, whose
	// units are all new (followCreated).
	createdTranslations map[int64]bool
	// totals are the peers' unit totals the settler's lookups asked
	// for (peerTotals), -1 for a peer without statistics.
	totals     map[int64]int64
	batch      bool // the daily pass: names carry the batch checks too (checks_daily.go)
	glossaries map[glossaryKey]bool
	follow     map[int64]bool
}

type checkRow struct {
	unit int64
	name string
}

// loadTranslation settles every unit of a translation: those with a
// target, the untranslated ones with a history translated reads, and
// the untranslated ones that still have check rows, which lose them.
// Other untranslated units run no check, and most units of a
// translation are often untranslated: they are not read.
func (s *checkSettler) loadTranslation(id int64) error {
	if s.whole == nil {
		s.whole = map[int64]bool{}
	}
	s.whole[id] = true
	existing, err := s.existingQuery(`SELECT k.unit_id, k.name, k.dismissed FROM checks k
		JOIN units u ON u.id = k.unit_id WHERE u.translation_id = ?`, id)
	if err != nil {
		return err
	}
	// An empty unit is read only when its history may fail translated,
	// or when other components share the translation's strings: it
	// fails inconsistent against a translated one (inconsistent.go).
	all, err := s.hasPeers(id)
	if err != nil {
		return err
	}
	if err := s.loadWith(existing, `SELECT `+checkedUnitColumns+` WHERE u.translation_id = ? AND (? = 1 OR u.state != 0
		OR EXISTS (SELECT 1 FROM changes c WHERE c.unit_id = u.id AND c.action IN `+trackedActions+`))
		ORDER BY u.id`, id, boolInt(all)); err != nil {
		return err
	}
	var stale []int64
	for uid := range existing {
		if !s.seen[uid] {
			stale = append(stale, uid)
		}
	}
	slices.Sort(stale)
	for chunk := range slices.Chunk(stale, maxInList) {
		list, args := idList(chunk)
		if err := s.loadWith(existing, `SELECT `+checkedUnitColumns+` WHERE u.id IN `+list, args...); err != nil {
			return err
		}
	}
	if s.resuggest {
		return s.recheckEmptySuggested(id)
	}
	return nil
}

// hasPeers reports whether translation id's strings are compared with
// other components' (peerTranslations).
func (s *checkSettler) hasPeers(id int64) (bool, error) {
	t, err := cachedTranslation(s.tx, id)
	if err != nil {
		return false, err
	}
	peers, err := peerTranslations(s.tx, &t)
	return len(peers) > 0, err
}

// load reads the units query selects, with their check rows, and
// settles each.
func (s *checkSettler) load(query string, args ...any) error {
	return s.loadWith(nil, query, args...)
}

// loadWith is load with the units' check rows already read (nil: read
// them).
func (s *checkSettler) loadWith(existing map[int64][]index.UnitCheck, query string, args ...any) error {
	rows, err := s.tx.Query(query, args...)
	if err != nil {
		return err
	}
	var units []checkedUnit
	for rows.Next() {
		u, err := scanCheckedUnit(rows)
		if err != nil {
			rows.Close()
			return err
		}
		if s.seen[u.id] {
			continue
		}
		if s.seen == nil {
			s.seen = map[int64]bool{}
		}
		s.seen[u.id] = true
		units = append(units, u)
	}
	if err := rows.Close(); err != nil {
		return err
	}
	return s.settleUnits(existing, units)
}

// settleUnits settles units, given their check rows (nil: read them).
func (s *checkSettler) settleUnits(existing map[int64][]index.UnitCheck, units []checkedUnit) error {
	if len(units) == 0 {
		return nil
	}
	if s.seen == nil {
		s.seen = map[int64]bool{}
	}
	for _, u := range units {
		s.seen[u.id] = true
	}
	if existing == nil {
		var err error
		if existing, err = s.existing(units); err != nil {
			return err
		}
	}
	names, err := s.runAll(units)
	if err != nil {
		return err
	}
	for i := range units {
		if err := s.settle(&units[i], names[i], existing[units[i].id]); err != nil {
			return err
		}
	}
	if s.resuggest {
		return s.recheckSuggestions(units)
	}
	return nil
}

// parallelChecks is the fewest units whose checks runAll spreads over
// the processors: below it, starting goroutines costs more than it saves.
const parallelChecks = 256

// runAll runs the checks of units, on every processor when they are
// many: settling runs on the writer, which every other write waits for,
// and the checks are pure (package checks), so an import's thousands of
// units need not be checked one after the other.
func (s *checkSettler) runAll(units []checkedUnit) ([][]string, error) {
	// The scopes and source flags are read first, in the transaction;
	// the goroutines only read them.
	scopes := make([]*checkScope, len(units))
	extras := make([]string, len(units))
	if len(units) > 1 && len(units) < parallelChecks {
		var ids []int64
		for i := range units {
			if u := &units[i]; !u.sourceUnit && u.state != index.StateEmpty {
				ids = append(ids, u.sourceUnitID)
			}
		}
		if err := s.tx.readSourceExtraFlags(ids); err != nil {
			return nil, err
		}
	}
	for i := range units {
		u := &units[i]
		sc, err := s.scope(u.translationID)
		if err != nil {
			return nil, err
		}
		scopes[i] = sc
		if !u.sourceUnit && u.state != index.StateEmpty {
			if extras[i], err = s.sourceExtra(sc, u.sourceUnitID, len(units) >= parallelChecks); err != nil {
				return nil, err
			}
		}
	}
	if err := s.loadTerms(units, scopes, extras); err != nil {
		return nil, err
	}
	// The inconsistent check's query (other components' units) goes
	// with the context's (inconsistent.go: queueInconsistent).
	groups, err := s.queueInconsistent(units)
	if err != nil {
		return nil, err
	}
	more, err := s.context(units, scopes, extras)
	if err != nil {
		return nil, err
	}
	names := make([][]string, len(units))
	err = runChecks(len(units), func(i int) { names[i] = scopes[i].run(&units[i], extras[i], more[i]) })
	if err == nil {
		err = s.addInconsistent(units, names, groups) // compares with other components' units (inconsistent.go)
	}
	return names, err
}

// runChecks calls check(i) for i in [0, n), on every processor when n is
// large (see parallelChecks), and returns once all have returned. A
// panic in a check is an error of the write, not a crash of the process:
// the write's own goroutine recovers from its panics, these goroutines
// must too.
func runChecks(n int, check func(i int)) error {
	workers := min(runtime.GOMAXPROCS(0), n/parallelChecks+1)
	if workers == 1 {
		// An edit's few units: no goroutine to start and wait for on
		// every write (issue 26: the PATCH's cost).
		return checkInline(n, check)
	}
	var (
		wg       sync.WaitGroup
		panicked atomic.Value
	)
	for w := range workers {
		wg.Go(func() {
			defer func() {
				if v := recover(); v != nil {
					panicked.CompareAndSwap(nil, fmt.Sprintf("%v\n%s", v, debug.Stack()))
				}
			}()
			for i := w; i < n; i += workers {
				check(i)
			}
		})
	}
	wg.Wait()
	if v := panicked.Load(); v != nil {
		return fmt.Errorf("sqlstore: a quality check panicked: %s", v)
	}
	return nil
}

// checkInline is runChecks on the calling goroutine, recovering from a
// check's panic as the workers do.
func checkInline(n int, check func(i int)) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("sqlstore: a quality check panicked: %v\n%s", v, debug.Stack())
		}
	}()
	for i := range n {
		check(i)
	}
	return nil
}

// createdChecks are the checks of a translation the write created, run
// from what the import inserted while the write goes on (checkCreated):
// a new translation's units are exactly its import's, so they need not
// be read back.
type createdChecks struct {
	translationID int64
	units         []checkedUnit // id 0: known by hash
	names         [][]string
	err           error
	done          chan struct{}
}

// checkCreated starts the checks of the units an import inserted into
// a translation it created; settleChecks waits for them and stores the
// failing ones.
func (tx *Tx) checkCreated(translationID int64, units []checkedUnit) error {
	if len(units) == 0 || tx.db.noChecks {
		return nil
	}
	sc, err := tx.checkScope(translationID)
	if err != nil {
		return err
	}
	extras := make([]string, len(units))
	if !sc.isSource {
		m, err := tx.componentExtraFlags(sc.ids.componentID)
		if err != nil {
			return err
		}
		if len(m) > 0 {
			for i := range units {
				extras[i] = m[units[i].sourceUnitID]
			}
		}
	}
	if err := tx.loadTerms(sc, units, extras); err != nil {
		return err
	}
	// A new translation's units have no history, and the units sharing
	// a target are all among them.
	more := make([]unitContext, len(units))
	if sc.runsReused() {
		reusedInMemory(units, more)
	}
	job := &createdChecks{translationID: translationID, units: units, names: make([][]string, len(units)),
		done: make(chan struct{})}
	go func() {
		defer close(job.done)
		job.err = runChecks(len(units), func(i int) { job.names[i] = sc.run(&units[i], extras[i], more[i]) })
	}()
	tx.checks.created = append(tx.checks.created, job)
	return nil
}

// settleCreated stores the failing checks of the created translations'
// units: their rows, has_failing_check and the statistics. They have no
// rows yet, and most fail nothing: only those that do are looked up.
//
// inconsistent compares with other components' units, which the
// in-memory run cannot read: added here, from the units' strings (their
// contexts are known), and the other components' units it changes are
// settled in the second round (inconsistent.go). The translations'
// lookups go together: the peers' totals in one query, the lookups in
// one flush, their follow-ups in another, where an import's were three
// round trips a translation (BENCHMARKS session 11, mend11).
func (s *checkSettler) settleCreated(jobs []*createdChecks) error {
	groups := make([][]inconsistentGroup, len(jobs))
	var all []inconsistentGroup
	for i, job := range jobs {
		<-job.done
		if job.err != nil {
			return job.err
		}
		sc, err := s.scope(job.translationID)
		if err != nil {
			return err
		}
		s.noteGlossary(sc)
		if groups[i], err = s.inconsistentGroups(job.units); err != nil {
			return err
		}
		all = append(all, groups[i]...)
	}
	if len(all) > 0 {
		if err := s.peerTotals(all); err != nil {
			return err
		}
		for i := range jobs {
			if err := s.queueGroups(groups[i]); err != nil {
				return err
			}
		}
		if err := s.tx.flush(); err != nil {
			return err
		}
		for i, job := range jobs {
			if err := s.markInconsistent(job.units, job.names, groups[i]); err != nil {
				return err
			}
		}
		if err := s.tx.flush(); err != nil {
			return err
		}
		for i, job := range jobs {
			if err := s.followGroups(job.units, groups[i]); err != nil {
				return err
			}
		}
	}
	for _, job := range jobs {
		if err := s.createdRows(job); err != nil {
			return err
		}
	}
	return nil
}

// createdRows is settleCreated's part for job once its names are known.
func (s *checkSettler) createdRows(job *createdChecks) error {
	failing := map[int64]int{} // id_hash → index in job.units
	for i, names := range job.names {
		if len(names) > 0 {
			failing[job.units[i].hash] = i
		}
	}
	if len(failing) == 0 {
		return nil
	}
	if _, err := s.scope(job.translationID); err != nil {
		return err
	}
	hashes := slices.Sorted(maps.Keys(failing))
	for chunk := range slices.Chunk(hashes, maxInList) {
		list, args := idList(chunk)
		rows, err := s.tx.Query(`SELECT id, id_hash FROM units WHERE translation_id = ? AND id_hash IN `+list,
			append([]any{job.translationID}, args...)...)
		if err != nil {
			return err
		}
		for rows.Next() {
			var id, hash int64
			if err := rows.Scan(&id, &hash); err != nil {
				rows.Close()
				return err
			}
			i := failing[hash]
			u := &job.units[i]
			for _, n := range job.names[i] {
				s.insert = append(s.insert, checkRow{id, n})
			}
			if s.flip == nil {
				s.flip = map[bool][]int64{}
			}
			s.flip[true] = append(s.flip[true], id)
			s.delta(job.translationID).CountFailing(u.words, u.chars, 1)
		}
		if err := rows.Close(); err != nil {
			return err
		}
	}
	return nil
}

// existing reads the check rows of units.
func (s *checkSettler) existing(units []checkedUnit) (map[int64][]index.UnitCheck, error) {
	out := map[int64][]index.UnitCheck{}
	// Those read with their unit (queueUnitRead: an edit's, a
	// propagated edit's), taken once: the write may change them next.
	ids := make([]int64, 0, len(units))
	for _, u := range units {
		if rows, ok := s.tx.unitChecks[u.id]; ok {
			delete(s.tx.unitChecks, u.id)
			out[u.id] = rows
		} else {
			ids = append(ids, u.id)
		}
	}
	for chunk := range slices.Chunk(ids, maxInList) {
		list, args := idList(chunk)
		part, err := s.existingQuery(`SELECT unit_id, name, dismissed FROM checks WHERE unit_id IN `+list, args...)
		if err != nil {
			return nil, err
		}
		maps.Copy(out, part)
	}
	return out, nil
}

// existingQuery reads check rows (unit id, name, dismissed) by unit.
func (s *checkSettler) existingQuery(query string, args ...any) (map[int64][]index.UnitCheck, error) {
	rows, err := s.tx.Query(query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[int64][]index.UnitCheck{}
	for rows.Next() {
		var id int64
		var c index.UnitCheck
		if err := rows.Scan(&id, &c.Name, &c.Dismissed); err != nil {
			return nil, err
		}
		out[id] = append(out[id], c)
	}
	return out, rows.Err()
}

// settle compares a unit's failing checks with its rows.
func (s *checkSettler) settle(u *checkedUnit, names []string, rows []index.UnitCheck) error {
	sc, err := s.scope(u.translationID)
	if err != nil {
		return err
	}
	s.noteGlossary(sc)
	failing := false
	for _, r := range rows {
		// A source unit keeps the checks the daily pass computes
		// (checks_daily.go) but when that pass settles it (s.batch).
		if !slices.Contains(names, r.Name) && (s.batch || !sc.isSource || !isBatchCheck(r.Name)) {
			s.remove = append(s.remove, checkRow{u.id, r.Name})
		} else if !r.Dismissed {
			failing = true
		}
	}
	var enforced []string
	for _, n := range names {
		if !slices.ContainsFunc(rows, func(r index.UnitCheck) bool { return r.Name == n }) {
			s.insert = append(s.insert, checkRow{u.id, n})
			failing = true
		}
		if sc.enforced[n] {
			enforced = append(enforced, n)
		}
	}
	if len(enforced) > 0 && s.marks.units[u.id] && u.state.Translated() && u.state != index.StateReadOnly {
		s.demoted = append(s.demoted, *u)
		defer func() { s.outcomes[u.id] = checkOutcome{state: index.StateNeedsRewriting, failing: failing} }()
		if s.demotedFor == nil {
			s.demotedFor = map[int64][]string{}
		}
		s.demotedFor[u.id] = enforced
	}
	if s.outcomes == nil {
		s.outcomes = map[int64]checkOutcome{}
	}
	s.outcomes[u.id] = checkOutcome{state: u.state, failing: failing}
	if failing != u.failing {
		if s.flip == nil {
			s.flip = map[bool][]int64{}
		}
		s.flip[failing] = append(s.flip[failing], u.id)
		sign := 1
		if !failing {
			sign = -1
		}
		s.delta(u.translationID).CountFailing(u.words, u.chars, sign)
	}
	return nil
}

// sourceExtra returns the extra flags of a source unit of sc's
// component. For many units (many), the component's source units that
// have any are read once per write; for a few (an edit), each source
// unit's by its id, which costs an edit less than reading the
// component's.
func (s *checkSettler) sourceExtra(sc *checkScope, sourceUnitID int64, many bool) (string, error) {
	if _, ok := s.tx.componentExtras[sc.ids.componentID]; !ok && !many {
		return s.tx.sourceExtraFlags(sourceUnitID)
	}
	m, err := s.tx.componentExtraFlags(sc.ids.componentID)
	return m[sourceUnitID], err
}

// componentExtraFlags returns the extra flags of a component's source
// units that have any, read once per write.
func (tx *Tx) componentExtraFlags(componentID int64) (map[int64]string, error) {
	if m, ok := tx.componentExtras[componentID]; ok {
		return m, nil
	}
	rows, err := tx.Query(`SELECT u.id, u.extra_flags FROM units u JOIN translations t ON t.id = u.translation_id
		WHERE t.component_id = ? AND t.is_source != 0 AND u.extra_flags != ''`, componentID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	m := map[int64]string{}
	for rows.Next() {
		var id int64
		var flags string
		if err := rows.Scan(&id, &flags); err != nil {
			return nil, err
		}
		m[id] = flags
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if tx.componentExtras == nil {
		tx.componentExtras = map[int64]map[int64]string{}
	}
	tx.componentExtras[componentID] = m
	return m, nil
}

func (s *checkSettler) delta(translationID int64) *index.Stats {
	d := s.deltas[translationID]
	if d == nil {
		d = &index.Stats{}
		s.deltas[translationID] = d
	}
	return d
}

// finish writes what settling found: the rows, the units' flags, the
// enforced checks' demotions and the statistics. The rows and flags are
// queued (pipeline.go): they need no answer, and on PostgreSQL each was
// a round trip of its own (an edit that starts or stops failing a
// check: two).
func (s *checkSettler) finish() error {
	tx := s.tx
	// Removals by check name, many units a statement: a write that
	// settles a project's inconsistent rows removes thousands, one
	// round trip each on PostgreSQL (7,718 in an automatic translation
	// of 1,946 strings, 5.6 s where 1.3 s before).
	byName := map[string][]int64{}
	var names []string
	for _, r := range s.remove {
		if byName[r.name] == nil {
			names = append(names, r.name)
		}
		byName[r.name] = append(byName[r.name], r.unit)
	}
	for _, name := range names {
		for chunk := range slices.Chunk(byName[name], maxInList) {
			list, args := idList(chunk)
			if err := tx.execLater(`DELETE FROM checks WHERE name = ? AND unit_id IN `+list,
				append([]any{name}, args...)...); err != nil {
				return err
			}
		}
	}
	for rows := s.insert; len(rows) > 0; {
		// Power-of-two row counts: few statement texts (see bulkRows).
		n := bulkRows(min(len(rows), maxBulkRows))
		args := make([]any, 0, 2*n)
		for _, r := range rows[:n] {
			args = append(args, r.unit, r.name)
		}
		if err := tx.execLater(`INSERT INTO checks (unit_id, name, dismissed) VALUES `+
			valueRows("(?, ?, 0)", n), args...); err != nil {
			return err
		}
		rows = rows[n:]
	}
	for _, v := range []bool{true, false} {
		for chunk := range slices.Chunk(s.flip[v], maxInList) {
			list, args := idList(chunk)
			if err := tx.execLater(`UPDATE units SET has_failing_check = ? WHERE id IN `+list,
				append([]any{boolInt(v)}, args...)...); err != nil {
				return err
			}
		}
	}
	for _, u := range s.demoted {
		if err := s.demote(u); err != nil {
			return err
		}
	}
	for _, tid := range slices.Sorted(maps.Keys(s.deltas)) {
		d := *s.deltas[tid]
		if d == (index.Stats{}) {
			continue
		}
		ids := s.scopes[tid].ids
		if err := addStats(tx, "t", itoa(tid), d); err != nil {
			return err
		}
		for _, sk := range aggregateScopes(ids) {
			if err := addStats(tx, sk.scope, sk.key, d); err != nil {
				return err
			}
		}
	}
	return nil
}

// demote keeps a save that leaves an enforced check failing, in state
// 11 ("needs rewriting", which counts as needing editing), and records
// "Applied enforced check" (76), as the reference's Unit.translate does
// (reference workspace §1.6).
func (s *checkSettler) demote(u checkedUnit) error {
	if _, err := s.tx.Exec(`UPDATE units SET state = ? WHERE id = ?`, index.StateNeedsRewriting, u.id); err != nil {
		return err
	}
	d := s.delta(u.translationID)
	var old, now index.Stats
	old.CountUnit(u.state, u.words, u.chars)
	now.CountUnit(index.StateNeedsRewriting, u.words, u.chars)
	d.Add(now, 1)
	d.Add(old, -1)
	ids := s.scopes[u.translationID].ids
	actor := s.marks.actor
	// The state before and after, as every change of a unit's state
	// keeps them (reference workspace §4.4), and the checks that failed.
	details, err := json.Marshal(struct {
		State    index.State `json:"state"`
		OldState index.State `json:"old_state"`
		Checks   []string    `json:"checks"`
	}{index.StateNeedsRewriting, u.state, s.demotedFor[u.id]})
	if err != nil {
		return err
	}
	return insertChange(s.tx, index.Change{Action: index.ActionEnforcedCheck, ProjectID: ids.projectID,
		ComponentID: ids.componentID, TranslationID: ids.translationID, UnitID: u.id,
		LanguageCode: ids.languageCode, UserID: actor.UserID, AuthorID: actor.AuthorID,
		Target: u.target, Details: string(details)})
}

// checkScope is what the checks of one translation's units share.
type checkScope struct {
	ids      scopeIDs
	glossary bool // a glossary component: only the glossary checks run
	isSource bool
	plural1  bool // the language has one plural form: reused does not run
	lang     string
	srcLang  string
	flags    checks.Flags // the format's and the component's
	enforced map[string]bool
	plurals  *checks.PluralMap // pairs plural forms; nil: form by form
	// terms are the project's glossary terms in the language, read once
	// per write for the first unit with check-glossary (loadTerms).
	terms       []checks.Term
	termsLoaded bool
}

// runsReused says whether the reused check runs in the scope's
// translation: not in a glossary, a source translation or a language of
// one plural form.
func (sc *checkScope) runsReused() bool { return !sc.glossary && !sc.isSource && !sc.plural1 }

func (s *checkSettler) scope(translationID int64) (*checkScope, error) {
	sc, err := s.tx.checkScope(translationID)
	if err == nil {
		s.scopes[translationID] = sc
	}
	return sc, err
}

// checkScope reads what the checks of a translation's units share, once
// per write.
func (tx *Tx) checkScope(translationID int64) (*checkScope, error) {
	if sc, ok := tx.checkScopes[translationID]; ok {
		return sc, nil
	}
	t, err := cachedTranslation(tx, translationID)
	if err != nil {
		return nil, err
	}
	c := &t.Component
	sc := &checkScope{
		ids: scopeIDs{translationID: t.ID, componentID: t.ComponentID, projectID: c.ProjectID,
			languageCode: t.LanguageCode},
		glossary: c.IsGlossary,
		isSource: t.IsSource,
		plural1:  t.Language.Plural.Number <= 1,
		lang:     t.LanguageCode,
		srcLang:  c.SourceLanguage,
		enforced: map[string]bool{},
	}
	var formatFlags string
	if f := tx.db.formatFlags; f != nil {
		formatFlags = f(c.FileFormat)
	}
	sc.flags = checks.Merge(lenientFlags(formatFlags), lenientFlags(c.CheckFlags))
	for _, id := range c.EnforcedChecks {
		sc.enforced[id] = true
	}
	src, known, err := tx.sourcePlural(c.SourceLanguage)
	if err != nil {
		return nil, err
	}
	if known {
		if f := tx.db.formatPlural; f != nil {
			src = f(c.FileFormat, src)
		}
		sc.plurals = pluralMap(src, t.Language.Plural)
	}
	if tx.checkScopes == nil {
		tx.checkScopes = map[int64]*checkScope{}
	}
	tx.checkScopes[translationID] = sc
	return sc, nil
}

// sourcePlural returns the plural rule of a component's source language
// (known false for a code the table lacks), from the index's cache of
// them: every edit's checks need it, and languages change seldom (each
// language write empties the cache, forgetPlurals).
func (tx *Tx) sourcePlural(code string) (index.Plural, bool, error) {
	type known struct {
		plural index.Plural
		ok     bool
	}
	if v, ok := tx.db.sourcePlurals.Load(code); ok {
		k := v.(known)
		return k.plural, k.ok, nil
	}
	l, err := scanLanguage(tx.QueryRow(`SELECT `+languageColumns+` FROM languages WHERE code = ?`, code))
	switch {
	case errors.Is(err, sql.ErrNoRows):
		tx.db.sourcePlurals.Store(code, known{})
		return index.Plural{}, false, nil
	case err != nil:
		return index.Plural{}, false, err
	}
	tx.db.sourcePlurals.Store(code, known{l.Plural, true})
	return l.Plural, true, nil
}

// forgetPlurals empties the cache of sourcePlural: a language was
// written.
func (db *DB) forgetPlurals() { db.sourcePlurals.Clear() }

// pluralMaps caches pluralMap by the two languages' plural rules: a
// formula is compiled once per process, not once per write.
var pluralMaps sync.Map // [2]index.Plural (ids zeroed) → *checks.PluralMap

// pluralMap pairs the plural forms of two languages as the reference's
// plural mapper does (reference workspace §1.1); nil when a formula does
// not compile, which leaves the checks pairing form by form.
func pluralMap(src, tgt index.Plural) *checks.PluralMap {
	src.ID, tgt.ID = 0, 0
	key := [2]index.Plural{src, tgt}
	if m, ok := pluralMaps.Load(key); ok {
		return m.(*checks.PluralMap)
	}
	var m *checks.PluralMap
	sf, err1 := langdata.CompilePlural(src.Formula)
	tf, err2 := langdata.CompilePlural(tgt.Formula)
	if err1 == nil && err2 == nil {
		m = checks.NewPluralMap(src.Number, sf, tgt.Number, tf)
	}
	pluralMaps.Store(key, m)
	return m
}

// run returns the ids of the checks failing on u, as the reference's
// Unit.run_checks chooses them: the glossary checks in a glossary, the
// source checks for a source unit (read-only or not), none for other
// read-only units, those that
// opt in to untranslated units (translated) for an untranslated unit,
// the target checks otherwise. more is what the checks read of other
// rows (checks_batch.go).
func (sc *checkScope) run(u *checkedUnit, sourceExtra string, more unitContext) []string {
	if sc.glossary {
		return sc.runGlossary(u, sourceExtra)
	}
	// A source string is read-only in its own translation (sync's
	// import: state 100), and the reference runs the source checks on it
	// all the same: run_checks picks them for a source unit before it
	// looks at read-only.
	if u.state == index.StateReadOnly && !sc.isSource {
		return nil
	}
	flags := sc.unitFlags(u.flags, sourceExtra, u.extra, u.sourceUnit)
	if flags.Has("read-only") && !sc.isSource {
		return nil
	}
	cu := checks.Unit{Source: index.SplitPlural(u.source), Target: index.SplitPlural(u.target),
		Language: sc.lang, SourceLanguage: sc.srcLang, Flags: flags, PluralMap: sc.plurals,
		Glossary: sc.terms, History: more.history, OtherSources: more.otherSources}
	if u.hasContext {
		cu.Context = u.context
	}
	var res []checks.Result
	switch {
	case sc.isSource:
		res = checks.RunSource(cu)
	case u.state == index.StateEmpty:
		res = checks.RunUntranslated(cu)
	default:
		res = checks.Run(cu)
	}
	if len(res) == 0 {
		return nil
	}
	names := make([]string, len(res))
	for i, r := range res {
		names[i] = r.ID
	}
	return names
}

// runGlossary runs the glossary checks on a unit of a glossary
// component: on every unit with a text, read-only ones and the source
// language's included, as the reference's ProhibitedInitialCharacterCheck
// does (ignore_readonly is false).
func (sc *checkScope) runGlossary(u *checkedUnit, sourceExtra string) []string {
	if u.state == index.StateEmpty {
		return nil
	}
	flags := sc.unitFlags(u.flags, sourceExtra, u.extra, u.sourceUnit)
	res := checks.RunGlossary(checks.Unit{Source: index.SplitPlural(u.source), Target: index.SplitPlural(u.target),
		Language: sc.lang, SourceLanguage: sc.srcLang, Flags: flags})
	names := make([]string, len(res))
	for i, r := range res {
		names[i] = r.ID
	}
	return names
}

// unitContext is what the checks of one unit read of other rows: its
// history (translated) and the sources of the units sharing its target
// (reused).
type unitContext struct {
	history      []checks.PastChange
	otherSources []string
}

// unitFlags merges a unit's flags over the translation's, in the
// reference's order (reference workspace §1.5): the file's, its source
// unit's extra flags, its own.
func (sc *checkScope) unitFlags(file, sourceExtra, extra string, isSourceUnit bool) checks.Flags {
	flags := sc.flags
	layers := []string{file, sourceExtra, extra}
	if isSourceUnit {
		layers = layers[:2] // its source unit's extra flags are its own
	}
	for _, l := range layers {
		if l != "" {
			flags = checks.Merge(flags, lenientFlags(l))
		}
	}
	return flags
}

// autofix applies the reference's automatic fixups to an edit of u
// (index.UnitEdit.Autofix) and returns the fixed target and the ids of
// the fixups that changed it.
func (e *unitEditor) autofix(u *index.Unit, target []string) ([]string, []string, error) {
	sc, err := e.tx.checkScope(u.TranslationID)
	if err != nil || sc.isSource {
		return target, nil, err
	}
	var sourceExtra string
	if u.SourceUnitID != 0 && u.SourceUnitID != u.ID {
		if sourceExtra, err = e.tx.sourceExtraFlags(u.SourceUnitID); err != nil {
			return nil, nil, err
		}
	}
	flags := sc.unitFlags(u.Flags, sourceExtra, u.ExtraFlags, false)
	fixed, applied := checks.Autofix(checks.Unit{Source: u.Source, Target: target, Language: sc.lang,
		SourceLanguage: sc.srcLang, Flags: flags, PluralMap: sc.plurals})
	return fixed, applied, nil
}

// lenientFlags parses flags stored before they were validated, or read
// from a file (a PO file's "#," line may hold flags the checks do not
// know): what does not parse is left out, one comma-separated part at a
// time, rather than failing the write that reads it.
func lenientFlags(s string) checks.Flags {
	if s == "" {
		return checks.Flags{}
	}
	if f, ok := parsedFlags.Load(s); ok {
		return f.(checks.Flags)
	}
	f := parseLenient(s)
	if parsedFlagsLen.Add(1) <= maxParsedFlags {
		parsedFlags.Store(s, f)
	}
	return f
}

// parsedFlags memoizes lenientFlags: the same few flag strings (a
// component's check_flags, PO's "c-format") are read for unit after
// unit, and a checks.Flags is never modified once made. At most
// maxParsedFlags strings are kept, so that a flood of distinct ones
// cannot grow it without bound.
var (
	parsedFlags    sync.Map // string → checks.Flags
	parsedFlagsLen atomic.Int64
)

const maxParsedFlags = 4096

// parseLenient is lenientFlags without the memo.
func parseLenient(s string) checks.Flags {
	f, err := checks.ParseFlags(s)
	if err == nil {
		return f
	}
	var layers []checks.Flags
	for _, part := range strings.Split(s, ",") {
		if p, err := checks.ParseFlags(part); err == nil {
			layers = append(layers, p)
		}
	}
	return checks.Merge(layers...)
}

// UnitChecks returns the checks stored for a unit, failing ones and
// dismissed ones, in the checks' registry order (checks.All). ErrNotFound
// when there is no such unit.
func (db *DB) UnitChecks(ctx context.Context, unitID int64) ([]index.UnitCheck, error) {
	var n int
	if err := db.r.QueryRowContext(ctx, `SELECT count(*) FROM units WHERE id = ?`, unitID).Scan(&n); err != nil {
		return nil, formatError(err)
	}
	if n == 0 {
		return nil, index.Errorf(index.ErrNotFound, "unit %d not found", unitID)
	}
	rows, err := db.r.QueryContext(ctx, `SELECT name, dismissed FROM checks WHERE unit_id = ?`, unitID)
	if err != nil {
		return nil, formatError(err)
	}
	defer rows.Close()
	var out []index.UnitCheck
	for rows.Next() {
		var c index.UnitCheck
		if err := rows.Scan(&c.Name, &c.Dismissed); err != nil {
			return nil, formatError(err)
		}
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b index.UnitCheck) int { return cmp.Compare(checkOrder(a.Name), checkOrder(b.Name)) })
	return out, formatError(rows.Err())
}

// checkOrder is a check's place in the registry; unknown ids last.
func checkOrder(name string) int {
	if i, ok := checkIndex[name]; ok {
		return i
	}
	return len(checkIndex)
}

var checkIndex = func() map[string]int {
	m := map[string]int{}
	for i, c := range checks.All() {
		m[c.ID] = i
	}
	return m
}()

// SetCheckDismissed dismisses (dismissed true) or restores a check
// failing on a unit once allow, given the unit and its translation,
// returns nil (its error is returned as is), and records the change
// under Tolk's own actions ActionCheckDismissed and ActionCheckRestored:
// the reference records none. ErrNotFound when the unit has no row for
// the check. It reports whether anything changed; the unit's
// has_failing_check and the statistics follow in the same write.
func (db *DB) SetCheckDismissed(ctx context.Context, unitID int64, name string, dismissed bool, actor index.Actor,
	allow func(u index.Unit, t index.Translation) error) (changed bool, err error) {
	err = db.write(ctx, func(tx *Tx) error {
		u, t, err := findUnitAndTranslation(tx, unitID)
		if err != nil {
			return err
		}
		if err := allow(u, t); err != nil {
			return err
		}
		var was bool
		err = tx.QueryRow(`SELECT dismissed FROM checks WHERE unit_id = ? AND name = ?`, unitID, name).Scan(&was)
		if err != nil {
			return index.Errorf(index.ErrNotFound, "check %q does not fail on unit %d", name, unitID)
		}
		if was == dismissed {
			return nil
		}
		changed = true
		if _, err := tx.Exec(`UPDATE checks SET dismissed = ? WHERE unit_id = ? AND name = ?`,
			boolInt(dismissed), unitID, name); err != nil {
			return err
		}
		e := editorOf(tx, &t, actor)
		action := index.ActionCheckDismissed
		if !dismissed {
			action = index.ActionCheckRestored
		}
		if err := e.change(action, unitID, name, ""); err != nil {
			return err
		}
		tx.recheck(false, actor, unitID)
		return nil
	})
	return changed, err
}

// ComponentChecks counts the check rows of a component's units by check
// and language, in registry order, then language code.
func (db *DB) ComponentChecks(ctx context.Context, componentID int64) ([]index.CheckCount, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT k.name, t.language_code,
		sum(CASE WHEN k.dismissed = 0 THEN 1 ELSE 0 END), sum(CASE WHEN k.dismissed != 0 THEN 1 ELSE 0 END)
		FROM checks k JOIN units u ON u.id = k.unit_id JOIN translations t ON t.id = u.translation_id
		WHERE t.component_id = ? GROUP BY k.name, t.language_code`, componentID)
	if err != nil {
		return nil, formatError(err)
	}
	defer rows.Close()
	var out []index.CheckCount
	for rows.Next() {
		var c index.CheckCount
		if err := rows.Scan(&c.Name, &c.LanguageCode, &c.Failing, &c.Dismissed); err != nil {
			return nil, formatError(err)
		}
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b index.CheckCount) int {
		return cmp.Or(cmp.Compare(checkOrder(a.Name), checkOrder(b.Name)), strings.Compare(a.LanguageCode, b.LanguageCode))
	})
	return out, formatError(rows.Err())
}

// recheckComponent marks every translation of a component whose update
// changed what its checks read: the check flags, the format (and so its
// flags), the source language, or whether it is a glossary. A component
// over inline units is left to a background recheck (later; see
// checks_recheck.go).
func recheckComponent(tx *Tx, before, after index.Component, inline int) (later bool, err error) {
	propagates := func(c index.Component) bool { return c.AllowTranslationPropagation && !c.IsGlossary }
	if propagates(before) && (!propagates(after) || before.FileFormat != after.FileFormat) {
		// Its strings leave the groups of the project's other
		// components (inconsistent.go; a format may store text
		// otherwise: storesMarkup).
		tx.inconsistentLeft(after.ProjectID, after.ID, "")
	}
	if before.CheckFlags == after.CheckFlags && before.FileFormat == after.FileFormat &&
		before.SourceLanguage == after.SourceLanguage && before.IsGlossary == after.IsGlossary &&
		propagates(before) == propagates(after) {
		return false, nil
	}
	if now, err := recheckNow(tx, after.ID, inline); err != nil || !now {
		if err == nil {
			err = markRecheck(tx, after.ID) // the place it resumes from after a restart
		}
		return err == nil, err
	}
	ids, err := queryIDs(tx, `SELECT id FROM translations WHERE component_id = ?`, after.ID)
	for _, id := range ids {
		tx.recheckTranslation(id)
	}
	return false, err
}
