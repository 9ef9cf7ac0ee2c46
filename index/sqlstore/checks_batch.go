package sqlstore

import (
	"cmp"
	"maps"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/tolk-project/tolk/checks"
	"github.com/tolk-project/tolk/index"
)

// The checks that read other rows than the unit's own (see Quality
// checks in checks.go), and what they cost a write:
//
//   - check_glossary (flag check-glossary) reads the project's glossary
//     terms in the unit's language: one query per glossary translation,
//     once per write, and only when a settled unit has the flag
//     (loadTerms). A write that settles a glossary's units marks every
//     translation of the project's components whose flags set
//     check-glossary, in the glossary's language (every language for its
//     source strings), and settles them in a second round (rechecks):
//     one query on components per write that touches a glossary
//     (removing a term through DeleteUnit counts too), answered from a
//     cache in a batch of narrow writes (cachedGlossaryUsers).
//   - translated reads the history of the units that are not translated
//     (empty or needing editing): one query per 512 of them, on the
//     changes' unit_id index (changes_unit), the only index of changes
//     by unit. An edit that records "Marked for edit" (37: every save as
//     needing editing) or a source change reads none: that change ends
//     the walk (historyEnds). A translation settled whole reads its
//     empty units only when they have such history (an EXISTS on the
//     same index).
//   - reused compares a translated unit's target with the other units of
//     its translation (the reference looks project-wide; here the
//     translation): from memory when the whole translation is settled (an
//     import, a pull, a change of the component's flags); on an edit, one
//     lookup of the units sharing the new target and one of those that
//     shared the old, both on units_target_prefix (migration 0032,
//     unitsByTarget). Units that newly share a target are settled in the
//     second round (at most 512 a write), and so are those that shared
//     the target an edit changed or DeleteUnit removed (at most 1,024).

// trackedActions are the changes TranslatedCheck walks (the reference's
// ACTIONS_REVERTABLE and SOURCE_ACTIONS): 2 changed, 5 new, 6
// automatic, 7 suggestion accepted, 8 reverted, 9 uploaded, 27
// replaced, 30 source changed, 36 approved, 37 marked for edit, 59 and
// 72 updated by the repository or an upload, 77 propagated.
const trackedActions = `(2, 5, 6, 7, 8, 9, 27, 30, 36, 37, 59, 72, 77)`

// historyEnds notes the change action the write just recorded as the
// unit's newest; one that ends translated's walk (checks.PastBreak):
// the walk starts and stops there, so the unit's settle reads no
// history. Saving a string as needing editing records "Marked for edit"
// (37, index.EditAction), so such saves, half of an editor's, cost no
// history read.
func (tx *Tx) historyEnds(id int64, action index.Action) {
	if u, ok := tx.checks.snapshots[id]; ok && pastKind(action) == checks.PastBreak {
		u.historyEnds = true
		tx.checks.snapshots[id] = u
	}
}

// pastKind classifies a tracked change for checks.TranslatedInPast.
func pastKind(a index.Action) checks.PastKind {
	switch a {
	case index.ActionSourceChange, index.ActionMarkedEdit:
		return checks.PastBreak
	}
	return checks.PastEdit
}

// wantsGlossary says whether a unit's flags may set check-glossary,
// before they are merged: the component's and the format's (sc.flags),
// or any of the unit's own layers.
func wantsGlossary(sc *checkScope, u *checkedUnit, sourceExtra string) bool {
	const f = "check-glossary"
	return sc.flags.Has(f) || strings.Contains(u.flags, f) || strings.Contains(sourceExtra, f) ||
		strings.Contains(u.extra, f)
}

// loadTerms reads the glossary terms of the scopes whose units need
// them (see wantsGlossary).
func (s *checkSettler) loadTerms(units []checkedUnit, scopes []*checkScope, extras []string) error {
	for i := range units {
		sc := scopes[i]
		if sc.termsLoaded || sc.glossary || sc.isSource || units[i].state == index.StateEmpty {
			continue
		}
		if wantsGlossary(sc, &units[i], extras[i]) {
			if err := s.tx.readTerms(sc); err != nil {
				return err
			}
		}
	}
	return nil
}

// loadTerms is checkSettler.loadTerms for the units of one scope.
func (tx *Tx) loadTerms(sc *checkScope, units []checkedUnit, extras []string) error {
	if sc.termsLoaded || sc.glossary || sc.isSource {
		return nil
	}
	for i := range units {
		if units[i].state != index.StateEmpty && wantsGlossary(sc, &units[i], extras[i]) {
			return tx.readTerms(sc)
		}
	}
	return nil
}

// glossaryKey names the terms of a project's glossaries from one source
// language to one language.
type glossaryKey struct {
	project       int64
	srcLang, lang string
}

// readTerms sets sc.terms: the translated and read-only units of the
// project's glossary components with sc's source language, in sc's
// language, as the reference's get_glossary_units reads them
// (queryTerms), once per write. Untranslated terms are left out: they
// ask nothing of a translation.
func (tx *Tx) readTerms(sc *checkScope) error {
	sc.termsLoaded = true
	if sc.lang == sc.srcLang {
		return nil
	}
	key := glossaryKey{sc.ids.projectID, sc.srcLang, sc.lang}
	if terms, ok := tx.glossaryTerms[key]; ok {
		sc.terms = terms
		return nil
	}
	terms, err := queryTerms(tx.Query, key, 0, func(tid, _ int64) (checks.Flags, error) {
		gs, err := tx.checkScope(tid)
		if err != nil {
			return checks.Flags{}, err
		}
		return gs.flags, nil
	})
	if err != nil {
		return err
	}
	if tx.glossaryTerms == nil {
		tx.glossaryTerms = map[glossaryKey][]checks.Term{}
	}
	tx.glossaryTerms[key] = terms
	sc.terms = terms
	return nil
}

// removedChecked records what the removal of u changes for other
// units' checks: a glossary term gone, a target no longer shared.
func (tx *Tx) removedChecked(u *index.Unit) error {
	sc, err := tx.checkScope(u.TranslationID)
	if err != nil {
		return err
	}
	if sc.glossary {
		if tx.checks.glossaries == nil {
			tx.checks.glossaries = map[glossaryKey]bool{}
		}
		tx.checks.glossaries[glossaryOf(sc)] = true
	} else if u.State.Translated() {
		tx.leftTarget(u.TranslationID, index.JoinPlural(u.Target))
	}
	return nil
}

// glossaryOf names the glossary terms a glossary translation holds: those
// of its language, or of every language for its source strings.
func glossaryOf(sc *checkScope) glossaryKey {
	lang := sc.lang
	if sc.isSource {
		lang = ""
	}
	return glossaryKey{sc.ids.projectID, sc.srcLang, lang}
}

// noteGlossary records that the write settled units of a glossary
// translation: the units using its terms are rechecked (rechecks).
func (s *checkSettler) noteGlossary(sc *checkScope) {
	if !sc.glossary {
		return
	}
	if s.glossaries == nil {
		s.glossaries = map[glossaryKey]bool{}
	}
	s.glossaries[glossaryOf(sc)] = true
}

// rechecks marks what the settled units change for other units: the
// translations using a glossary the write touched, and the units that
// newly share a reused target. It reports whether it marked any.
func (s *checkSettler) rechecks() (bool, error) {
	tx := s.tx
	marked := false
	for k := range s.marks.glossaries {
		if s.glossaries == nil {
			s.glossaries = map[glossaryKey]bool{}
		}
		s.glossaries[k] = true
	}
	for _, k := range slices.SortedFunc(maps.Keys(s.glossaries), func(a, b glossaryKey) int {
		return cmp.Or(cmp.Compare(a.project, b.project), strings.Compare(a.srcLang, b.srcLang),
			strings.Compare(a.lang, b.lang))
	}) {
		ids, err := cachedGlossaryUsers(tx, k)
		if err != nil {
			return false, err
		}
		for _, id := range ids {
			sc, err := tx.checkScope(id)
			if err != nil {
				return false, err
			}
			if sc.flags.Has("check-glossary") {
				tx.recheckTranslation(id)
				marked = true
			}
		}
	}
	for _, tid := range slices.Sorted(maps.Keys(s.marks.left)) {
		// A translation the write removed has no scope left: looked up
		// as before (it finds nothing).
		if sc, err := tx.checkScope(tid); err == nil && !sc.runsReused() {
			// reused runs on none of its units (context), the only
			// check that reads the targets of other units: none need
			// settling again for a target left (a lookup less for half
			// an editor's saves in such a translation; issue 26).
			continue
		}
		targets := slices.Compact(slices.Sorted(slices.Values(s.marks.left[tid])))
		row := func(id int64, _, _ string) error {
			if len(s.follow) < 2*maxInList {
				if s.follow == nil {
					s.follow = map[int64]bool{}
				}
				s.follow[id] = true
			}
			return nil
		}
		// An edit saved as needing editing left its target: answered
		// by the prefetched lookup when it holds it (targetGuess).
		if err := s.unitsByTargetLater(tid, 0, targets, row); err != nil {
			return false, err
		}
	}
	// The lookups of every translation in one round trip: their rows
	// only fill follow.
	if err := tx.flushForAnswers(); err != nil {
		return false, err
	}
	var follow []int64
	for id := range s.follow {
		if !s.seen[id] {
			follow = append(follow, id)
		}
	}
	for id := range s.peerFollow {
		if !s.seen[id] && !s.follow[id] {
			follow = append(follow, id)
		}
	}
	if len(follow) > 0 {
		tx.recheck(false, index.Actor{}, follow...)
		marked = true
	}
	return marked, nil
}

// cachedGlossaryUsers is glossaryUsers answered from db.glossaryUsers
// on the terms of cachedTranslation: while the batch's writes, this one
// included, were narrow ones, which add, move or reconfigure no
// translation or component (a component's settings change is a wide
// write). Each glossary edit asked it in a round trip of its own: 0.24
// round trips an edit of tolk-bench's writes at concurrency 8 on
// PostgreSQL, where a quarter of the edits are a glossary's.
func cachedGlossaryUsers(tx *Tx, k glossaryKey) ([]int64, error) {
	if !tx.cachesAnswer() {
		return glossaryUsers(tx, k)
	}
	return cachedAt(tx.db, &tx.db.glossaryUsers, k, noDep, maxCachedLookups, one,
		func(uint64) ([]int64, error) { return glossaryUsers(tx, k) })
}

// glossaryUsers reads the ids of the translations a change of the
// glossary terms k names may change check_glossary for, in order: those
// of the project's components whose settings name check-glossary (the
// caller keeps those whose flags set it), in k's language or, for a
// glossary's source strings, in every language.
func glossaryUsers(tx *Tx, k glossaryKey) ([]int64, error) {
	q := `SELECT t.id FROM translations t JOIN components c ON c.id = t.component_id
		WHERE c.project_id = ? AND c.is_glossary = 0 AND c.source_language = ? AND t.is_source = 0
		AND c.settings LIKE '%check-glossary%'`
	args := []any{k.project, k.srcLang}
	if k.lang != "" {
		q += ` AND t.language_code = ?`
		args = append(args, k.lang)
	}
	return queryIDs(tx, q+` ORDER BY t.id`, args...)
}

// leftTarget records that an edit took a translated unit off a target
// (checkMarks.left).
func (tx *Tx) leftTarget(translationID int64, target string) {
	if strings.TrimSpace(target) == "" {
		return
	}
	if tx.checks.left == nil {
		tx.checks.left = map[int64][]string{}
	}
	tx.checks.left[translationID] = append(tx.checks.left[translationID], target)
}

// context reads what translated and reused need of other rows for
// units (see the costs above), and the keys the Fluent checks read of
// the units whose flags turn them on without a fluent-type (one query
// per 512 of them; a unit the write holds whole has its key already):
// those land in the units' context (hasContext).
// extras are the units' source units' extra flags.
func (s *checkSettler) context(units []checkedUnit, scopes []*checkScope, extras []string) ([]unitContext, error) {
	more := make([]unitContext, len(units))
	var keyed []int
	for i := range units {
		u, sc := &units[i], scopes[i]
		// run() checks no unit of a glossary and no read-only
		// translation: its key would be read for nothing.
		if u.hasContext || sc.glossary || (u.state == index.StateReadOnly && !sc.isSource) {
			continue
		}
		// The merged flags are parsed only where a layer may name a
		// Fluent check: almost no unit's do.
		if !checks.NeedsContext(sc.flags) && !strings.Contains(u.flags, "fluent-") &&
			!strings.Contains(u.extra, "fluent-") && !strings.Contains(extras[i], "fluent-") {
			continue
		}
		if checks.NeedsContext(sc.unitFlags(u.flags, extras[i], u.extra, u.sourceUnit)) {
			keyed = append(keyed, i)
		}
	}
	if len(keyed) > 0 {
		keys, err := unitContexts(s.tx, units, keyed)
		if err != nil {
			return nil, err
		}
		// Held on the units, the keys serve run() and addInconsistent,
		// which reads no unit's context twice.
		for _, i := range keyed {
			units[i].context = keys[units[i].id]
			units[i].hasContext = true
		}
	}
	var untranslated []int64
	at := map[int64]int{}
	byTranslation := map[int64][]int{} // reused candidates
	for i := range units {
		u, sc := &units[i], scopes[i]
		if sc.glossary || sc.isSource || u.state == index.StateReadOnly {
			continue
		}
		if !u.state.Translated() {
			if u.historyEnds {
				continue
			}
			untranslated = append(untranslated, u.id)
			at[u.id] = i
		} else if !sc.plural1 && strings.TrimSpace(u.target) != "" {
			byTranslation[u.translationID] = append(byTranslation[u.translationID], i)
		}
	}
	slices.Sort(untranslated)
	for chunk := range slices.Chunk(untranslated, maxInList) {
		list, args := idList(chunk)
		rows, err := s.tx.Query(`SELECT unit_id, action, target FROM changes
			WHERE unit_id IN `+list+` AND action IN `+trackedActions+` ORDER BY unit_id, id DESC`, args...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var id int64
			var action index.Action
			var target string
			if err := rows.Scan(&id, &action, &target); err != nil {
				rows.Close()
				return nil, err
			}
			i := at[id]
			more[i].history = append(more[i].history, checks.PastChange{Kind: pastKind(action), Target: target})
		}
		if err := rows.Close(); err != nil {
			return nil, err
		}
	}
	for _, tid := range slices.Sorted(maps.Keys(byTranslation)) {
		idx := byTranslation[tid]
		if s.whole[tid] {
			sub := make([]checkedUnit, len(idx))
			for j, i := range idx {
				sub[j] = units[i]
			}
			subMore := make([]unitContext, len(idx))
			reusedInMemory(sub, subMore)
			for j, i := range idx {
				more[i].otherSources = subMore[j].otherSources
			}
			continue
		}
		// A partial settle (an edit) looks the units of the same target
		// up on units_target_prefix (sameTargets), in the same query as
		// those of the targets the write's units left, which rechecks
		// then need not look up again.
		left := s.marks.left[tid]
		delete(s.marks.left, tid)
		if err := s.sameTargets(tid, units, idx, more, left); err != nil {
			return nil, err
		}
	}
	// The lookups queued (unitsByTargetLater), with what else is; when
	// every answer is in (an edit's lookups answered with the batch's
	// first round trip: targetGuess), the write's statements wait for
	// the batch's next round trip. An error an earlier flushed() kept
	// (laterErr) is returned here still, as the flush did.
	if err := s.tx.flushForAnswers(); err != nil {
		return nil, err
	}
	return more, nil
}

// byTarget is the condition "the unit's target is one of targets", in
// the shape units_target_prefix serves (migrations 0032, 0067): its
// predicate word for word (an empty target is never reused, so none is
// looked for), the index's expression against the same expression of
// each target, then the whole target. Each target is two arguments.
// SQLite only: see unitsByTarget.
func byTarget(targets []string) (string, []any) {
	list, args := idList(targets)
	return `target != '' AND substr(target, 1, 64) IN ` + strings.ReplaceAll(list, "?", "substr(?, 1, 64)") +
		` AND target IN ` + list, append(args, args...)
}

// pgUnitsByTarget is unitsByTarget's statement on PostgreSQL: the
// targets as one array, joined to the translation's units by the side
// table unit_targets (migration 0114: a translated unit's first 64
// characters of target, keyed with its translation), then to each
// unit's row for the whole target. The side table stands for the index
// units_target_prefix (migrations 0032, 0067), which kept an edit's
// UPDATE of units from being heap-only (issue 31).
//
// Not byTarget's IN lists there: PostgreSQL planned them (a generic
// plan after a few runs, idList's lengths repeating; a custom one with
// the statistics of a translation just created) as a scan of the whole
// translation's units with both lists as a Filter, each unit's target
// compared with every target in turn: 18.8-64 ms a lookup of 200
// targets in a 1,946-unit translation (auto_explain in
// AutoTranslateJellyfin, session 7), where the index answers in a
// fraction of a millisecond. A join costs each unit or each target one
// hash or index probe whatever the plan, and one statement takes any
// number of targets.
const pgUnitsByTarget = `SELECT u.id, u.source, u.target FROM unnest(CAST(? AS text[])) AS t(target)
	JOIN unit_targets s ON s.translation_id = ? AND s.prefix = substr(t.target, 1, 64)
	JOIN units u ON u.id = s.unit_id AND u.target = t.target
	WHERE u.state >= ?`

// pgUnitByTarget is pgUnitsByTarget for one target, a scalar: an edit
// looks up its new target and the one it left. The array's statement
// was planned anew at each of them (custom plans, 78 µs of the server's
// CPU an edit against 10 µs to run, pg_stat_statements at concurrency 8,
// issue 31): its estimate for an array of unknown length never let the
// generic plan win. With one value PostgreSQL settles on the generic
// plan, the same probe of unit_targets' key, after its first runs.
const pgUnitByTarget = `SELECT u.id, u.source, u.target FROM unit_targets s JOIN units u ON u.id = s.unit_id
	WHERE s.translation_id = ? AND s.prefix = substr(?, 1, 64) AND u.target = ? AND u.state >= ?`

// pgFewTargets is the most targets looked up one statement each
// (pgUnitByTarget), all in one round trip.
const pgFewTargets = 4

// unitsByFewTargets is unitsByTarget for a few distinct targets on
// PostgreSQL: a pgUnitByTarget statement each, queued to be sent
// together, with whatever the write sends next.
func (tx *Tx) unitsByFewTargets(tid int64, targets []string, scan func(func(...any) error) error) error {
	for _, t := range targets {
		err := tx.queryLater(pgUnitByTarget, func(rows pgx.Rows) error {
			for rows.Next() {
				if err := scan(intBools{row: rows}.Scan); err != nil {
					return err
				}
			}
			return rows.Err()
		}, tid, t, t, index.StateTranslated)
		if err != nil {
			return err
		}
	}
	return nil
}

// unitsByTarget calls row with the id, source and target of each
// translated unit of translation tid whose target is one of targets
// (distinct), through units_target_prefix (PostgreSQL: unit_targets):
// reused's lookups (sameTargets, rechecks).
func (tx *Tx) unitsByTarget(tid int64, targets []string, row func(id int64, source, target string) error) error {
	if err := tx.unitsByTargetLater(tid, targets, row); err != nil {
		return err
	}
	return tx.flush()
}

// unitsByTargetLater is unitsByTarget whose row, for a few targets on
// PostgreSQL, is called when the write's queued statements are next
// sent (pipeline.go): an edit's settle sends its lookups of every
// translation it settles (propagation's peers) together, with the
// inconsistent check's query (checkSettler.context).
func (tx *Tx) unitsByTargetLater(tid int64, targets []string, row func(id int64, source, target string) error) error {
	scan := func(scan func(...any) error) error {
		var id int64
		var source, target string
		if err := scan(&id, &source, &target); err != nil {
			return err
		}
		return row(id, source, target)
	}
	if len(targets) == 0 {
		return nil
	}
	if tx.db.dialect.name == "postgres" {
		if len(targets) <= pgFewTargets {
			return tx.unitsByFewTargets(tid, targets, scan)
		}
		return tx.queryEach(pgUnitsByTarget, scan, targets, tid, index.StateTranslated)
	}
	for chunk := range slices.Chunk(targets, maxInList/2) {
		cond, targs := byTarget(chunk)
		err := tx.queryEach(`SELECT id, source, target FROM units WHERE translation_id = ? AND state >= ? AND `+cond,
			scan, append([]any{tid, index.StateTranslated}, targs...)...)
		if err != nil {
			return err
		}
	}
	return nil
}

// unitsByTargetLater is Tx.unitsByTargetLater for unit's lookup (0: one
// whose rows only pick units to settle again), answered instead by the
// edit's lookups sent ahead where they hold it (guessed, targetGuess).
func (s *checkSettler) unitsByTargetLater(tid, unit int64, targets []string, row func(id int64, source, target string) error) error {
	if guessed, err := s.guessed(tid, unit, targets, row); guessed || err != nil {
		return err
	}
	return s.tx.unitsByTargetLater(tid, targets, row)
}

// sameTargets reads, for the units idx of translation tid, the other
// translated units with the same target: their sources go to more, and
// those of another source are settled again (follow), since they are
// now reused too. The units sharing a target in left (targets the
// write's units left) are settled again as well: they may no longer be
// reused.
func (s *checkSettler) sameTargets(tid int64, units []checkedUnit, idx []int, more []unitContext, left []string) error {
	if len(idx) == 1 && len(left) <= 1 {
		return s.sameTarget(tid, units, idx[0], more, left)
	}
	sharing := map[string][]int{}
	for _, i := range idx {
		sharing[units[i].target] = append(sharing[units[i].target], i)
	}
	wasLeft := map[string]bool{}
	for _, t := range left {
		wasLeft[t] = true
	}
	targets := slices.Sorted(maps.Keys(sharing))
	for t := range wasLeft {
		if _, ok := sharing[t]; !ok {
			targets = append(targets, t)
		}
	}
	return s.tx.unitsByTargetLater(tid, targets, func(id int64, source, target string) error {
		if wasLeft[target] && !s.last && len(s.follow) < 2*maxInList {
			if s.follow == nil {
				s.follow = map[int64]bool{}
			}
			s.follow[id] = true
		}
		for _, i := range sharing[target] {
			if units[i].id == id {
				continue
			}
			if l := more[i].otherSources; len(l) < 2 && !slices.Contains(l, source) {
				more[i].otherSources = append(l, source)
			}
			if source != units[i].source && !s.last && len(s.follow) < maxInList {
				if s.follow == nil {
					s.follow = map[int64]bool{}
				}
				s.follow[id] = true
			}
		}
		return nil
	})
}

// sameTarget is sameTargets for one unit i and at most one target left:
// an edit's, the common write, without sameTargets' maps (a fifth of
// the lookup's CPU; issue 26).
func (s *checkSettler) sameTarget(tid int64, units []checkedUnit, i int, more []unitContext, left []string) error {
	u := &units[i]
	buf := [2]string{u.target}
	targets := buf[:1]
	wasLeft := ""
	if len(left) == 1 {
		wasLeft = left[0]
		if wasLeft != u.target {
			targets = append(targets, wasLeft)
		}
	}
	row := func(id int64, source, target string) error {
		if len(left) == 1 && target == wasLeft && !s.last && len(s.follow) < 2*maxInList {
			if s.follow == nil {
				s.follow = map[int64]bool{}
			}
			s.follow[id] = true
		}
		if target != u.target || id == u.id {
			return nil
		}
		if l := more[i].otherSources; len(l) < 2 && !slices.Contains(l, source) {
			more[i].otherSources = append(l, source)
		}
		if source != u.source && !s.last && len(s.follow) < maxInList {
			if s.follow == nil {
				s.follow = map[int64]bool{}
			}
			s.follow[id] = true
		}
		return nil
	}
	return s.unitsByTargetLater(tid, u.id, targets, row)
}

// reusedInMemory sets the other sources of units that are all the
// translated units of their translation, grouped by target. Each unit
// gets at most two distinct sources of its group, its own among them:
// enough for reused to see one that differs, and linear however many
// units share a target.
func reusedInMemory(units []checkedUnit, more []unitContext) {
	sources := map[string][]string{}
	for i := range units {
		u := &units[i]
		if u.state.Translated() && strings.TrimSpace(u.target) != "" {
			if l := sources[u.target]; len(l) < 2 && !slices.Contains(l, u.source) {
				sources[u.target] = append(l, u.source)
			}
		}
	}
	for i := range units {
		u := &units[i]
		if l := sources[u.target]; len(l) > 1 && u.state.Translated() {
			more[i].otherSources = l
		}
	}
}

// queryTerms reads the terms of key's glossaries (readTerms,
// GlossaryTerms), at most limit (0: all): the translated and read-only
// units of the project's glossary components with the source language,
// in the language, in one query, translation by translation in unit
// order, each with the forbidden and read-only flags its format and
// component (base, by translation and component), its file, its source
// string and its own flags give it, as check_glossary reads them.
func queryTerms(query queryFunc, key glossaryKey, limit int, base func(translationID, componentID int64) (checks.Flags, error)) ([]checks.Term, error) {
	q := `SELECT t.id, t.component_id, u.source, u.target, u.state, u.flags, u.extra_flags,
		coalesce((SELECT s.extra_flags FROM units s WHERE s.id = u.source_unit_id AND s.id != u.id), '')
		FROM translations t JOIN components c ON c.id = t.component_id JOIN units u ON u.translation_id = t.id
		WHERE c.project_id = ? AND c.is_glossary != 0 AND c.source_language = ? AND t.language_code = ?
			AND u.state >= ?
		ORDER BY t.id, u.id`
	args := []any{key.project, key.srcLang, key.lang, index.StateTranslated}
	if limit > 0 {
		q += ` LIMIT ?`
		args = append(args, limit)
	}
	type termRow struct {
		tid, cid                         int64
		source, target, file, extra, src string
		state                            index.State
	}
	rows, err := query(q, args...)
	if err != nil {
		return nil, err
	}
	var read []termRow
	for rows.Next() {
		var r termRow
		if err := rows.Scan(&r.tid, &r.cid, &r.source, &r.target, &r.state, &r.file, &r.extra, &r.src); err != nil {
			rows.Close()
			return nil, err
		}
		read = append(read, r)
	}
	// Closed before base reads: a PostgreSQL transaction runs one
	// statement at a time.
	if err := rows.Close(); err != nil {
		return nil, err
	}
	terms := make([]checks.Term, 0, len(read))
	var last int64
	var flags checks.Flags
	for _, r := range read {
		if r.tid != last {
			if flags, err = base(r.tid, r.cid); err != nil {
				return nil, err
			}
			last = r.tid
		}
		f := flags
		for _, layer := range []string{r.file, r.src, r.extra} {
			if layer != "" {
				f = checks.Merge(f, lenientFlags(layer))
			}
		}
		terms = append(terms, checks.Term{Source: r.source, Target: r.target, Forbidden: f.Has("forbidden"),
			ReadOnly: r.state == index.StateReadOnly || f.Has("read-only")})
	}
	return terms, nil
}
