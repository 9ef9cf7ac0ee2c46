package sqlstore

import (
	"cmp"
	"database/sql"
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/tolk-project/tolk/checks"
	"github.com/tolk-project/tolk/index"
)

// The inconsistent check (reference: workspace §1, ConsistencyCheck):
// a unit fails it when the same string (source and context) in the same
// language of another component of the project, both components allowing
// translation propagation, holds another target and one of the two is
// translated. It is stored as every other check (the settler adds it to
// what package checks computes, addInconsistent); the units it compares
// are found as propagation finds them (peerTranslations), by the
// id_hash each component's kind gives the string, so a project of one
// component, or whose components do not allow propagation, pays one
// query per translation settled.
//
// The check settles project-wide in the write that changes a string,
// whatever the write (an edit, an import, an upload, a removal), so the
// counts of every component stay exact on both sides:
//
//   - An edit marks the same string's units elsewhere for a recheck
//     (propagate). Any other unit settled in a write's first round (an
//     import's, a pull's, a component recheck's) has the units sharing
//     its string in the peers compared with the group it makes with
//     them (followInconsistent, from the rows sameStrings already read);
//     those whose stored inconsistent row disagrees with the group are
//     settled in the second round (rechecks). A unit settled whole sees
//     the whole group, so that round marks nothing more.
//   - A unit that leaves a group (removed, its source changed, its
//     translation or component removed, its component no longer
//     allowing propagation or turned into a glossary) can only make the
//     others consistent: the write marks the units of the project's
//     other components in that language that hold an inconsistent row
//     (inconsistentLeft), and settles them in its first round; they are
//     few, as failing checks are, and found through checks_name.
//
// An empty unit fails the check against a translated one, as the
// reference's (its check does not ignore untranslated strings): a
// translation settled whole reads its empty units too when it has peers
// (loadTranslation), which it skips otherwise.

// peerTranslations returns the translations in t's language of the
// other components of t's project that allow translation propagation
// and whose format stores text as t's does (storesMarkup), by id; none
// when t's own component does not allow it, t is a source or a
// glossary. Locked components are among them.
func peerTranslations(tx *Tx, t *index.Translation) ([]index.Translation, error) {
	if !t.Component.AllowTranslationPropagation || t.IsSource || t.Component.IsGlossary {
		return nil, nil
	}
	ids, err := cachedPeerIDs(tx, t)
	if err != nil {
		return nil, err
	}
	markup := storesMarkup(tx, &t.Component)
	// Sized at once: a Translation (its Component within) is over a
	// kilobyte, and growing the slice by appends copied and cleared nine
	// peers' worth several times for each of the ten translations an
	// edit reaching nine peers settles (9% of BenchmarkPropagatedEdit's
	// CPU, session 12).
	// One more: an edit's propagation looks up its own translation
	// with the peers (propagateUnits).
	out := make([]index.Translation, 0, len(ids)+1)
	for _, id := range ids {
		other, err := cachedTranslation(tx, id)
		if err != nil {
			return nil, err
		}
		if sharesWith(tx, markup, &other) {
			out = append(out, other)
		}
	}
	return out, nil
}

// sharesWith reports whether other shares strings with a translation
// whose format stores markup as markup says (peerTranslations).
func sharesWith(tx *Tx, markup bool, other *index.Translation) bool {
	return other.Component.AllowTranslationPropagation && !other.Component.IsGlossary &&
		storesMarkup(tx, &other.Component) == markup
}

// peerTranslationsTotals is peerTranslations for the settler, which
// also notes the peers' unit totals in totals (peersMostlyWanted): where
// the caches do not answer (a wide write: an import, a pull), the peers
// and their totals are one query, where they were a query for the ids,
// one a peer, and one for the totals before each lookup of 64 strings
// or more (BENCHMARKS session 11, mend11).
func peerTranslationsTotals(tx *Tx, t *index.Translation, totals map[int64]int64) ([]index.Translation, error) {
	if !t.Component.AllowTranslationPropagation || t.IsSource || t.Component.IsGlossary {
		return nil, nil
	}
	if tx.cachesAnswer() {
		return peerTranslations(tx, t) // cachedPeerIDs and cachedTranslation answer
	}
	rows, err := tx.Query(`SELECT `+translationColumns+`, coalesce(st.total, -1)`+translationFrom+`
		LEFT JOIN stats st ON st.scope = 't' AND st.scope_key = CAST(t.id AS TEXT)
		WHERE c.project_id = ? AND c.id != ? AND t.language_code = ? AND t.is_source = 0 ORDER BY t.id`,
		t.Component.ProjectID, t.ComponentID, t.LanguageCode)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	markup := storesMarkup(tx, &t.Component)
	var out []index.Translation
	for rows.Next() {
		var total int64
		other, err := scanTranslation(scanWith{rows, []any{&total}}, tx.db.formatPlural)
		if err != nil {
			return nil, err
		}
		if sharesWith(tx, markup, &other) {
			out = append(out, other)
			totals[other.ID] = total
		}
	}
	return out, rows.Err()
}

// storesMarkup reports whether c's format stores strings as XML content
// (the format's flags hold "xml-text": the XLIFF placeables variants),
// where a literal & is "&amp;". A string is shared (propagated,
// compared by inconsistent) only between components whose formats store
// text alike: a target "Sichern &amp; Beenden" saved in an XLIFF is the
// text "Sichern & Beenden", and copying its bytes into a .strings file
// would write "&amp;" there, which the reference does. Converting
// between the two is exact only for strings without inline elements;
// Tolk does not share across them at all (docs/propagation.md).
func storesMarkup(tx *Tx, c *index.Component) bool {
	if tx.db.formatFlags == nil {
		return false
	}
	return index.HasFlag(tx.db.formatFlags(c.FileFormat), "xml-text")
}

// peerKey names the translations languageTranslations reads: a
// language's in the components of a project.
type peerKey struct {
	project  int64
	language string
}

// projectTranslations are the translations of a project in one
// language, sources aside, by id.
type projectTranslations []projectTranslation

// projectTranslation is a translation's id and its component's.
type projectTranslation struct{ id, component int64 }

// except returns the ids of the translations of components other than
// component: its translation's peers.
func (p projectTranslations) except(component int64) []int64 {
	out := make([]int64, 0, len(p))
	for _, t := range p {
		if t.component != component {
			out = append(out, t.id)
		}
	}
	return out
}

// cachedPeerIDs is peerIDs answered from db.peers on the terms of
// cachedTranslation: while the batch's writes, this one included, were
// narrow ones, which add or move no translation or component. An edit
// asks twice (propagate, then the inconsistent check as it settles), and
// every edit of a translation asks the same; each was a query on the
// writer. The cache keeps a project's language whole, not a
// component's peers: the translations an edit's group settles (its own
// and each peer's) ask for their peers in turn, one key for all; keyed
// by component, an edit reaching nine peers at 100x (18,400
// translations, past maxCachedLookups) ran the query 7.5 times.
func cachedPeerIDs(tx *Tx, t *index.Translation) ([]int64, error) {
	if !tx.cachesAnswer() {
		return peerIDs(tx, t)
	}
	k := peerKey{t.Component.ProjectID, t.LanguageCode}
	all, err := cachedAt(tx.db, &tx.db.peers, k, noDep, maxCachedLookups, one,
		func(uint64) (projectTranslations, error) { return languageTranslations(tx, k) })
	if err != nil {
		return nil, err
	}
	return all.except(t.ComponentID), nil
}

// peerIDs reads the ids of the translations into t's language of the
// other components of t's project, sources aside, in order.
func peerIDs(tx *Tx, t *index.Translation) ([]int64, error) {
	all, err := languageTranslations(tx, peerKey{t.Component.ProjectID, t.LanguageCode})
	if err != nil {
		return nil, err
	}
	return all.except(t.ComponentID), nil
}

// languageTranslations reads the translations into k's language of k's
// project, sources aside, in order.
func languageTranslations(tx *Tx, k peerKey) (projectTranslations, error) {
	rows, err := tx.Query(`SELECT t.id, t.component_id FROM translations t JOIN components c ON c.id = t.component_id
		WHERE c.project_id = ? AND t.language_code = ? AND t.is_source = 0 ORDER BY t.id`, k.project, k.language)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out projectTranslations
	for rows.Next() {
		out = append(out, projectTranslation{})
		if err := rows.Scan(&out[len(out)-1].id, &out[len(out)-1].component); err != nil {
			return nil, err
		}
	}
	return out, rows.Err()
}

// sharedString is a unit's string as another component holds it.
type sharedString struct {
	id              int64
	source, context string
	target          string
	state           index.State
}

// peerString is a peer's unit holding a string: peers[peer]'s.
type peerString struct {
	peer int
	sharedString
}

// sharedHash is the id_hash peer's kind gives the string (source joined,
// context): the context alone in a monolingual component.
func sharedHash(peer *index.Translation, str [2]string) int64 {
	return index.IDHashJoined(peer.Component.IsMonolingual(), str[0], str[1])
}

// sameStrings returns, for each of strs (source joined, context), the
// units of peers holding it, in the order of peers (one a peer). It is
// one query (per maxInList of peers and of hashes) whatever the number
// of peers, through the units_translation_hash index; propagation
// (propagateUnits) asks it (as sameStringsNoting, then sent), and the
// inconsistent check its queued form (sameStringsTotals), where each
// asked once per peer. A string's
// hash is computed once for each kind of component among the peers
// (monolingual or not), not once a peer, and the answer is indexed by
// string: an import of a copy with nine peers read 600,000 rows into a
// map keyed by peer and hash, then hashed every string again for every
// peer to look each up (a third of Tolk's CPU; BENCHMARKS session 10).
func sameStrings(tx *Tx, peers []index.Translation, strs [][2]string) ([][]peerString, error) {
	out, err := sameStringsTotals(tx, peers, strs, nil)
	if err != nil {
		return nil, err
	}
	return out, tx.flush()
}

// sameStringsTotals is sameStrings whose answer, on PostgreSQL, is
// filled in when the write's queued statements are next sent
// (pipeline.go), so that the query goes with others: the inconsistent
// check's with an edit's same-target lookups (queueInconsistent). On
// SQLite it is answered at once. totals are the peers' unit totals when
// known (peerTotals: the settler's, read once for all its lookups), so
// that a lookup of many strings asks none (peersMostlyWanted); nil asks.
func sameStringsTotals(tx *Tx, peers []index.Translation, strs [][2]string, totals map[int64]int64) ([][]peerString, error) {
	return sameStringsNoting(tx, peers, strs, totals, nil)
}

// sameStringsNoting is sameStringsTotals noting in twice (if not nil),
// when the answer is filled in, whether a peer held one of strs in two
// units or more: the one of lowest id is kept then, whatever order the
// plan reads them in (so that two indexes of one history propagate to
// the same unit), and propagation's answer is not reused
// (propagatedLookup).
func sameStringsNoting(tx *Tx, peers []index.Translation, strs [][2]string, totals map[int64]int64,
	twice *bool) ([][]peerString, error) {
	out := make([][]peerString, len(strs))
	if len(peers) == 0 || len(strs) == 0 {
		return out, nil
	}
	l := newSharedLookup(peers, strs)
	l.totals = totals
	err := l.query(tx, false, func(scan func(...any) error) error {
		var s sharedString
		var tid, hash int64
		if err := scan(&s.id, &tid, &hash, &s.source, &s.context, &s.target, &s.state); err != nil {
			return err
		}
		p, ok := l.peerAt[tid]
		if !ok {
			return nil
		}
		// A hash of another kind's, or a collision, or a second unit of
		// the string in the peer (the one of lowest id is kept).
		l.match(l.peerKind[p], hash, s.source, s.context, func(k int) {
			i := slices.IndexFunc(out[k], func(o peerString) bool { return o.peer == p })
			if i < 0 {
				out[k] = append(out[k], peerString{p, s})
				return
			}
			if s.id < out[k][i].id {
				out[k][i].sharedString = s
			}
			if twice != nil {
				*twice = true
			}
		})
		return nil
	}, func() {
		for _, found := range out {
			slices.SortStableFunc(found, func(a, b peerString) int { return cmp.Compare(a.peer, b.peer) })
		}
	})
	return out, err
}

// sharedTarget is a target the peers' units of a string hold, and its
// state.
type sharedTarget struct {
	target string
	state  index.State
}

// sameTargetsLater returns, for each of strs, the distinct targets and
// states its units in peers hold, all of one kind (onePeerKind): what
// the inconsistent check of a unit compares it with, which does not
// depend on how many units hold each. The rows are made distinct by the
// database, so an import of a copy whose peers agree reads about a row
// a string whatever their number, where sameStrings reads one a peer.
// As sameStringsTotals', the answer is filled in when the write's queued
// statements are next sent; totals are as there.
func sameTargetsLater(tx *Tx, peers []index.Translation, strs [][2]string, totals map[int64]int64) ([][]sharedTarget, error) {
	out := make([][]sharedTarget, len(strs))
	if len(peers) == 0 || len(strs) == 0 {
		return out, nil
	}
	l := newSharedLookup(peers, strs)
	l.totals = totals
	err := l.query(tx, true, func(scan func(...any) error) error {
		var t sharedTarget
		var hash int64
		var source, context string
		if err := scan(&hash, &source, &context, &t.target, &t.state); err != nil {
			return err
		}
		// SQLite's chunks of peers may each answer a pair.
		l.match(l.peerKind[0], hash, source, context, func(k int) {
			if !slices.Contains(out[k], t) {
				out[k] = append(out[k], t)
			}
		})
		return nil
	}, nil)
	return out, err
}

// onePeerKind reports whether peers are all monolingual or all not, as
// sameTargets asks.
func onePeerKind(peers []index.Translation) bool {
	for i := range peers {
		if peers[i].Component.IsMonolingual() != peers[0].Component.IsMonolingual() {
			return false
		}
	}
	return true
}

// sharedLookup is a lookup of strings in peer translations (sameStrings,
// sameTargets): the hashes to ask and where a row read belongs.
type sharedLookup struct {
	strs [][2]string
	// byHash[kind] is the strings by the hash that kind gives them
	// (kind 1: monolingual); usually one string a hash.
	byHash       [2]map[int64][]int32
	peerAt       map[int64]int // peers' index by translation id
	peerKind     []int
	tids, hashes []int64
	totals       map[int64]int64 // the peers' unit totals, if known (peerTotals)
}

func newSharedLookup(peers []index.Translation, strs [][2]string) *sharedLookup {
	l := &sharedLookup{strs: strs, peerAt: make(map[int64]int, len(peers)), peerKind: make([]int, len(peers)),
		tids: make([]int64, len(peers))}
	hashSet := map[int64]bool{}
	for i := range peers {
		l.tids[i] = peers[i].ID
		l.peerAt[peers[i].ID] = i
		kind := 0
		if peers[i].Component.IsMonolingual() {
			kind = 1
		}
		l.peerKind[i] = kind
		if l.byHash[kind] != nil {
			continue
		}
		l.byHash[kind] = make(map[int64][]int32, len(strs))
		for k, str := range strs {
			h := sharedHash(&peers[i], str)
			l.byHash[kind][h] = append(l.byHash[kind][h], int32(k))
			hashSet[h] = true
		}
	}
	l.hashes = slices.Sorted(maps.Keys(hashSet))
	return l
}

// match calls fn with each of the strings a unit of a peer of kind, of
// id_hash hash, source and context holds.
func (l *sharedLookup) match(kind int, hash int64, source, context string, fn func(k int)) {
	for _, k := range l.byHash[kind][hash] {
		if l.strs[k][0] == source && l.strs[k][1] == context {
			fn(int(k))
		}
	}
}

// query reads the peers' units of the lookup's hashes, every one
// (sharedColumns) or their distinct strings, targets and states
// (distinctColumns), calls row for each and then done (if not nil). On
// PostgreSQL the query is queued with the write's other statements
// (queryLater): row and done run when they are sent.
func (l *sharedLookup) query(tx *Tx, distinct bool, row func(scan func(...any) error) error, done func()) error {
	scan := func(rows *sql.Rows) error {
		defer rows.Close()
		for rows.Next() {
			if err := row(rows.Scan); err != nil {
				return err
			}
		}
		return rows.Err()
	}
	if tx.db != nil && tx.db.dialect.name == "postgres" {
		whole, err := peersMostlyWanted(tx, l.tids, len(l.strs), l.totals)
		if err != nil {
			return err
		}
		q, args := pgSameStrings, []any{l.tids, l.hashes}
		switch {
		case whole && distinct:
			q, args = pgSameTargetsWhole, []any{l.hashes, l.tids}
		case whole:
			q, args = pgSameStringsWhole, []any{l.hashes, l.tids}
		case len(l.strs) < mostlyWantedFloor && distinct:
			q = pgSameTargetsPairs
		case len(l.strs) < mostlyWantedFloor:
			q = pgSameStringsPairs
		case distinct:
			q = pgSameTargets
		}
		return tx.queryLater(q, func(rows pgx.Rows) error {
			for rows.Next() {
				if err := row(rows.Scan); err != nil {
					return err
				}
			}
			if done != nil {
				done()
			}
			return rows.Err()
		}, args...)
	}
	if done != nil {
		defer done()
	}
	columns := sharedColumns
	if distinct {
		columns = distinctColumns
	}
	switch whole, err := peersMostlyWanted(tx, l.tids, len(l.strs), l.totals); {
	case err != nil:
		return err
	case whole:
		// The peers whole, the hashes one set (json_each, built once a
		// statement): the IN lists' chunks probed each (peer, hash)
		// pair, 58% of a copy's CPU with nine peers (BENCHMARKS
		// session 10).
		set, err := json.Marshal(l.hashes)
		if err != nil {
			return err
		}
		for tchunk := range slices.Chunk(l.tids, maxInList) {
			tlist, targs := idList(tchunk)
			rows, err := tx.Query(`SELECT `+columns+` FROM units u WHERE u.translation_id IN `+tlist+`
				AND u.id_hash + 0 IN (SELECT value FROM json_each(?))`, append(targs, string(set))...)
			if err != nil {
				return err
			}
			if err := scan(rows); err != nil {
				return err
			}
		}
		return nil
	}
	for tchunk := range slices.Chunk(l.tids, maxInList/2) {
		tlist, targs := idList(tchunk)
		for hchunk := range slices.Chunk(l.hashes, maxInList/2) {
			hlist, hargs := idList(hchunk)
			rows, err := tx.Query(`SELECT `+columns+` FROM units u
				WHERE u.translation_id IN `+tlist+` AND u.id_hash IN `+hlist, append(targs, hargs...)...)
			if err != nil {
				return err
			}
			if err := scan(rows); err != nil {
				return err
			}
		}
	}
	return nil
}

// The columns sameStrings and sameTargets read.
const (
	sharedColumns   = `u.id, u.translation_id, u.id_hash, u.source, u.context, u.target, u.state`
	distinctColumns = `DISTINCT u.id_hash, u.source, u.context, u.target, u.state`
)

// pgSameStrings is sameStrings' statement on PostgreSQL: the peers and
// the hashes as two arrays. The IN lists (padded to powers of two by
// idList) took a generic plan after five runs that, with the statistics
// of translations made after the last ANALYZE (an automatic
// translation's fresh copy), read the peers whole through
// units_translation_position and rebuilt the hash list's ARRAY[...] of
// up to 256 parameters for every row it tested (auto_explain in
// AutoTranslateJellyfin, session 8: 7,784 rows tested for 800 kept,
// 0.2-0.9 s an execution at load 30). An array parameter is built once
// an execution, whatever the plan; a probe per peer and hash (a LATERAL
// subquery) read more buffers than the peers whole in that benchmark
// (1.62M against 1.13M), so the plan is left to the planner.
// TestWriteListsPlan checks the generic plan builds no list per row.
const pgSameStrings = `SELECT ` + sharedColumns + ` FROM units u` + pgSameProbe

// pgSameStringsWhole is pgSameStrings reading the peers whole (in the
// order of their pages, through units_translation_position's bitmap)
// and the hashes hashed: for a lookup that wants most of the peers'
// units (peersMostlyWanted), as an import of a copy of a peer does. A
// probe per peer and hash read four buffers a row found (57,585 for
// 14,441 rows, seven peers of 2,063 units: 24-28 ms); the peers whole
// 663 (16-20 ms, load 7). The hash is id_hash + 0 so that no plan
// probes by it, and joined to the array unnested: a generic plan
// compares each row with an = ANY(array) parameter element by element
// (80 ms), a hash join once. TestWriteListsPlan checks the join.
const pgSameStringsWhole = `SELECT ` + sharedColumns + pgSameWhole

// pgSameStringsPairs is pgSameStrings for a lookup of a few strings
// (an edit's, fewer than mostlyWantedFloor): a probe of
// units_translation_hash for each pair of a peer and a hash, which no
// plan can turn into reading the peers whole. pgSameStrings' two arrays
// let a generic plan weigh the product of their guessed lengths in
// probes against one pass over each peer through
// units_translation_position, which statistics that make the peers small
// (a table or translations not yet analyzed) favour: session 12's quiet
// run saw it at 543 us and 251 blocks a call in one c1 writes run,
// against 8 in the others (BENCHMARKS.md). Each probe here is one
// translation's and one hash's, where the pair's index is the cheapest
// whatever the statistics. OFFSET 0 keeps the probe a subquery run per
// pair. TestWriteListsPlan checks the generic plan.
const pgSameStringsPairs = `SELECT ` + sharedColumns + pgSamePairs

// pgSameTargets, pgSameTargetsPairs and pgSameTargetsWhole are
// sameTargets' statements.
const (
	pgSameTargets      = `SELECT ` + distinctColumns + ` FROM units u` + pgSameProbe
	pgSameTargetsPairs = `SELECT ` + distinctColumns + pgSamePairs
	pgSameTargetsWhole = `SELECT ` + distinctColumns + pgSameWhole
)

const (
	pgSameProbe = `
	WHERE u.translation_id = ANY(CAST(? AS bigint[])) AND u.id_hash = ANY(CAST(? AS bigint[]))`
	pgSameWhole = `
	FROM units u JOIN unnest(CAST(? AS bigint[])) AS h(hash) ON u.id_hash + 0 = h.hash
	WHERE u.translation_id = ANY(CAST(? AS bigint[]))`
	pgSamePairs = `
	FROM unnest(CAST(? AS bigint[])) AS p(tid) CROSS JOIN unnest(CAST(? AS bigint[])) AS h(hash)
	CROSS JOIN LATERAL (SELECT ` + sharedColumns + ` FROM units u
		WHERE u.translation_id = p.tid AND u.id_hash = h.hash OFFSET 0) u`
)

// mostlyWantedFloor is the number of strings below which a lookup
// probes the peers without asking whether it wants most of them.
const mostlyWantedFloor = 64

// peersMostlyWanted reports whether a lookup of wanted strings in the
// peer translations tids would find at least half of their units (by
// their statistics: each peer holds a string at most once), where
// reading them whole beats a probe per peer and string. A lookup of
// fewer than 64 strings (an edit's, a merge upload's) probes without
// asking. The totals come from totals when it holds every peer's (the
// settler's, peerTotals), else from a query of their own. Either way
// the answer only chooses a plan: both read the same rows.
func peersMostlyWanted(tx *Tx, tids []int64, wanted int, totals map[int64]int64) (bool, error) {
	if wanted < mostlyWantedFloor {
		return false, nil
	}
	if totals != nil {
		var sum int64
		known := true
		for _, id := range tids {
			t, ok := totals[id]
			if !ok {
				known = false
				break
			}
			if t < 0 { // no statistics row: probe, as the query's count says
				return false, nil
			}
			sum += t
		}
		if known {
			return sum <= 2*int64(len(tids))*int64(wanted), nil
		}
	}
	keys := make([]string, len(tids))
	for i, id := range tids {
		keys[i] = itoa(id)
	}
	// PostgreSQL takes the keys as one array; SQLite as IN lists of at
	// most maxInList, padded (idList) so that the statement cache keeps
	// a few texts.
	const count = `SELECT count(*), coalesce(sum(total), 0) FROM stats WHERE scope = 't' AND scope_key `
	postgres := tx.db != nil && tx.db.dialect.name == "postgres"
	size := maxInList
	if postgres {
		size = len(keys)
	}
	var n, total int64
	for chunk := range slices.Chunk(keys, size) {
		q, args := count+`= ANY(CAST(? AS text[]))`, []any{chunk}
		if !postgres {
			var list string
			list, args = idList(chunk)
			q = count + `IN ` + list
		}
		var cn, ct int64
		if err := tx.QueryRow(q, args...).Scan(&cn, &ct); err != nil {
			return false, err
		}
		n, total = n+cn, total+ct
	}
	return n == int64(len(tids)) && total <= 2*int64(len(tids))*int64(wanted), nil
}

// peerTotals reads into s.totals the unit totals (their statistics) of
// the peers of groups whose lookups ask peersMostlyWanted (64 strings or
// more) and that it does not hold yet, in one query: an import's lookup
// read them in a round trip of its own before its queued query, one
// per translation settled; -1 for a peer without a statistics row.
func (s *checkSettler) peerTotals(groups []inconsistentGroup) error {
	var ids []int64
	for _, g := range groups {
		if len(g.strs) < mostlyWantedFloor {
			continue
		}
		for _, p := range g.peers {
			if _, ok := s.totals[p.ID]; !ok && !slices.Contains(ids, p.ID) {
				ids = append(ids, p.ID)
			}
		}
	}
	if len(ids) == 0 {
		return nil
	}
	if s.totals == nil {
		s.totals = make(map[int64]int64, len(ids))
	}
	for _, id := range ids {
		s.totals[id] = -1
	}
	const q = `SELECT scope_key, total FROM stats WHERE scope = 't' AND scope_key `
	postgres := s.tx.db != nil && s.tx.db.dialect.name == "postgres"
	size := maxInList
	if postgres {
		size = len(ids)
	}
	for chunk := range slices.Chunk(ids, size) {
		keys := make([]string, len(chunk))
		for i, id := range chunk {
			keys[i] = itoa(id)
		}
		query, args := q+`= ANY(CAST(? AS text[]))`, []any{keys}
		if !postgres {
			var list string
			list, args = idList(keys)
			query = q + `IN ` + list
		}
		rows, err := s.tx.Query(query, args...)
		if err != nil {
			return err
		}
		for rows.Next() {
			var key string
			var total int64
			if err := rows.Scan(&key, &total); err != nil {
				rows.Close()
				return err
			}
			id, err := strconv.ParseInt(key, 10, 64)
			if err != nil {
				rows.Close()
				return err
			}
			s.totals[id] = total
		}
		if err := rows.Close(); err != nil {
			return err
		}
		if err := rows.Err(); err != nil {
			return err
		}
	}
	return nil
}

// inconsistentGroup is what the inconsistent check compares the units
// idx of a translation with: the peers' distinct targets of their
// strings (targets, for a created translation's units) or the peers'
// units of them (found), filled in by the query queueInconsistent
// queued.
type inconsistentGroup struct {
	idx     []int
	peers   []index.Translation
	strs    [][2]string
	sc      *checkScope
	created bool
	found   [][]peerString
	targets [][]sharedTarget
	// shared, when not nil, is the lookup the group shares with the
	// groups of the same strings (queueGroups); found is taken from it
	// once it is answered (takeShared).
	shared *sharedFound
	// follow says followInconsistent runs for the group's units idx (a
	// created translation's: those whose peers hold another target),
	// found read by then (markInconsistent).
	follow bool
}

// sharedFound is a lookup of strings in the peers of several groups
// together: found is sameStringsTotals' answer for peers, their union.
type sharedFound struct {
	peers []index.Translation
	found [][]peerString
}

// queueInconsistent queues, for each translation of units with peers,
// the query of its units' strings in the peers (sameStringsTotals,
// sameTargetsLater), so that it travels with the settle's other reads
// (an edit's same-target lookups, checkSettler.context): it was a round
// trip of its own after them, per translation. addInconsistent reads
// the answers.
func (s *checkSettler) queueInconsistent(units []checkedUnit) ([]inconsistentGroup, error) {
	groups, err := s.inconsistentGroups(units)
	if err != nil {
		return nil, err
	}
	return groups, s.queueGroups(groups)
}

// maxSharedStrings is the most strings a group may look up to share its
// lookup with other groups (queueGroups): an edit's, a propagated edit's.
const maxSharedStrings = 8

// queueGroups queues the lookups of groups (queueInconsistent), the
// peers' totals read first for them all (peerTotals). Groups of a few
// strings (maxSharedStrings) that look up the same ones share one
// lookup in the union of their peers: an edit propagated to nine peers
// settles ten translations holding its string, each of whose lookups
// read the other nine's units, ten statements of nine rows where one of
// ten rows answers them all (issue 31, the 100× layout). Their strings
// the same, the union asks no pair of peer and string that none of them
// asks.
func (s *checkSettler) queueGroups(groups []inconsistentGroup) error {
	if err := s.peerTotals(groups); err != nil {
		return err
	}
	reuse := s.reusablePropagation()
	var same map[string][]int // groups of a few strings, by them
	for i := range groups {
		g := &groups[i]
		if reuse.answers(g) {
			continue
		}
		if !g.created && len(g.strs) <= maxSharedStrings {
			if same == nil {
				same = map[string][]int{}
			}
			k := strsKey(g.strs)
			same[k] = append(same[k], i)
		}
	}
	for i := range groups {
		g := &groups[i]
		var err error
		switch {
		case reuse.answers(g):
			g.found = reuse.found(g)
			// Counted for TestInconsistentReuseMatchesLookup, which
			// has no statement log on SQLite to tell reuse apart.
			if c := s.tx.db.paths; c != nil {
				c.lookupsReused.Add(1)
			}
		case g.created:
			g.targets, err = sameTargetsLater(s.tx, g.peers, g.strs, s.totals)
		case len(g.strs) <= maxSharedStrings && len(same[strsKey(g.strs)]) > 1:
			members := same[strsKey(g.strs)]
			if members[0] != i {
				continue // queued with the first of them
			}
			sf := &sharedFound{peers: unionPeers(groups, members)}
			sf.found, err = sameStringsTotals(s.tx, sf.peers, g.strs, s.totals)
			for _, m := range members {
				groups[m].shared = sf
			}
		default:
			g.found, err = sameStringsTotals(s.tx, g.peers, g.strs, s.totals)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// propagatedLookup is an edit's propagation lookup (propagateUnits) of
// its string str in the peers and in the edited unit's own translation,
// each translation's unit of it as the write left it: read, then
// updated with what propagation wrote (each edited peer's new target
// and state; the units it left alone as read). The inconsistent check
// of the edited unit and of the peers' units of str looks up the same
// string in those translations, in the same write, and each of its
// rows is one of these: reused, it reads nothing (issue 31: 0.38 round
// trips an edit at concurrency 8, BENCHMARKS session 12 BATCH12).
type propagatedLookup struct {
	str  [2]string
	tids map[int64]bool         // the translations looked up
	rows map[int64]sharedString // by translation: its unit of str
}

// newPropagatedLookup is the record of found, the answer for str of a
// lookup in translations (one row a translation at most: no unit read
// twice, sameStringsNoting).
func newPropagatedLookup(translations []index.Translation, str [2]string, found []peerString) *propagatedLookup {
	p := &propagatedLookup{str: str, tids: make(map[int64]bool, len(translations)),
		rows: make(map[int64]sharedString, len(found))}
	for i := range translations {
		p.tids[translations[i].ID] = true
	}
	for _, o := range found {
		p.rows[translations[o.peer].ID] = o.sharedString
	}
	return p
}

// wrote notes that propagation left peer's unit id as u.
func (p *propagatedLookup) wrote(peer, id int64, u *index.Unit) {
	if p == nil {
		return
	}
	if row, ok := p.rows[peer]; ok && row.id == id {
		row.target, row.state = index.JoinPlural(u.Target), u.State
		p.rows[peer] = row
	}
}

// reusablePropagation returns the write's propagation lookup if this
// settling may answer the inconsistent check from it, else nil. It may
// when it is the first round (the second follows the first's writes),
// propagation ran once in the write for one unit (an edit's, or an
// upload's that wrote one unit; not a bulk edit's), the write marked nothing wide (a translation, a source
// string, a created translation, a glossary, a removal: units it did
// not edit one by one), and every unit it marked is one propagation
// read or one the write edited (its snapshot): where that unit holds
// str in a translation looked up, it is the row the record holds, as
// the record holds it. A write of a unit of str after propagation's
// (an edit) so fails the comparison: the check then looks up.
func (s *checkSettler) reusablePropagation() *propagatedLookup {
	m := &s.marks
	p := m.propagated
	if p == nil || s.last || m.propagations != 1 || s.tx.db.lookUpAgain ||
		len(m.translations)+len(m.sources)+len(m.created)+len(m.glossaries)+len(m.leftGroups) > 0 {
		return nil
	}
	read := make(map[int64]bool, len(p.rows))
	for _, row := range p.rows {
		read[row.id] = true
	}
	for id := range m.units {
		snap, ok := m.snapshots[id]
		if !ok {
			if !read[id] {
				return nil
			}
			continue
		}
		if !p.tids[snap.translationID] || snap.source != p.str[0] || snap.context != p.str[1] {
			continue
		}
		if row, ok := p.rows[snap.translationID]; !ok || row.id != id || row.target != snap.target ||
			row.state != snap.state {
			return nil
		}
	}
	return p
}

// answers reports whether p holds g's answer: g looks up p's string
// alone, in translations p looked up.
func (p *propagatedLookup) answers(g *inconsistentGroup) bool {
	if p == nil || g.created || len(g.strs) != 1 || g.strs[0] != p.str {
		return false
	}
	for i := range g.peers {
		if !p.tids[g.peers[i].ID] {
			return false
		}
	}
	return true
}

// found is g's answer from p (answers): the rows of g's peers, in their
// order, as sameStringsTotals would have read them.
func (p *propagatedLookup) found(g *inconsistentGroup) [][]peerString {
	var rows []peerString
	for i := range g.peers {
		if row, ok := p.rows[g.peers[i].ID]; ok {
			rows = append(rows, peerString{i, row})
		}
	}
	return [][]peerString{rows}
}

// strsKey is strs as one string, a key of queueGroups' map.
func strsKey(strs [][2]string) string {
	var b strings.Builder
	for _, str := range strs {
		b.WriteString(str[0])
		b.WriteByte(0)
		b.WriteString(str[1])
		b.WriteByte(1)
	}
	return b.String()
}

// unionPeers returns the peers of groups[members], each once, by id
// (the order peerTranslations gives each group's).
func unionPeers(groups []inconsistentGroup, members []int) []index.Translation {
	out := make([]index.Translation, 0, len(groups[members[0]].peers)+1) // the common case: one more
	seen := map[int64]bool{}
	for _, m := range members {
		for _, p := range groups[m].peers {
			if !seen[p.ID] {
				seen[p.ID] = true
				out = append(out, p)
			}
		}
	}
	slices.SortFunc(out, func(a, b index.Translation) int { return cmp.Compare(a.ID, b.ID) })
	return out
}

// takeShared sets g.found from the answered lookup g shares (queueGroups):
// the rows of g's own peers, by g's index of them, in the order of its
// peers, as a lookup of its own would have answered.
func (g *inconsistentGroup) takeShared() {
	if g.shared == nil {
		return
	}
	at := make(map[int64]int, len(g.peers))
	for p := range g.peers {
		at[g.peers[p].ID] = p
	}
	g.found = make([][]peerString, len(g.strs))
	for k, rows := range g.shared.found {
		for _, o := range rows {
			if p, ok := at[g.shared.peers[o.peer].ID]; ok {
				g.found[k] = append(g.found[k], peerString{p, o.sharedString})
			}
		}
		slices.SortStableFunc(g.found[k], func(a, b peerString) int { return cmp.Compare(a.peer, b.peer) })
	}
	g.shared = nil
}

// inconsistentGroups returns, for each translation of units with peers,
// the group of its units' strings, not yet looked up (queueGroups).
func (s *checkSettler) inconsistentGroups(units []checkedUnit) ([]inconsistentGroup, error) {
	byTranslation := map[int64][]int{}
	for i, u := range units {
		// A read-only unit fails no check itself but is one of its
		// string's group for the others (followInconsistent).
		if !u.sourceUnit {
			byTranslation[u.translationID] = append(byTranslation[u.translationID], i)
		}
	}
	var groups []inconsistentGroup
	for _, tid := range slices.Sorted(maps.Keys(byTranslation)) {
		t, err := cachedTranslation(s.tx, tid)
		if err != nil {
			return nil, err
		}
		if s.totals == nil {
			s.totals = map[int64]int64{}
		}
		peers, err := peerTranslationsTotals(s.tx, &t, s.totals)
		if err != nil || len(peers) == 0 {
			if err != nil {
				return nil, err
			}
			continue
		}
		sc, err := s.scope(tid)
		if err != nil {
			return nil, err
		}
		if sc.glossary || sc.isSource {
			continue
		}
		idx := byTranslation[tid]
		contexts, err := unitContexts(s.tx, units, idx)
		if err != nil {
			return nil, err
		}
		strs := make([][2]string, len(idx))
		for k, i := range idx {
			c := contexts[units[i].id]
			if units[i].hasContext { // a created translation's units have no id yet
				c = units[i].context
			}
			strs[k] = [2]string{units[i].source, c}
		}
		// A created translation's units compare with the peers' distinct
		// targets, and follow (followCreated) only where those are not
		// all theirs; other units read every peer's unit.
		groups = append(groups, inconsistentGroup{idx: idx, peers: peers, strs: strs, sc: sc,
			created: s.createdTranslations[tid] && onePeerKind(peers)})
	}
	return groups, nil
}

// addInconsistent appends the inconsistent check to names[i] for each
// of units failing it, from the groups queueInconsistent queued for
// units (sent now if nothing sent them since).
func (s *checkSettler) addInconsistent(units []checkedUnit, names [][]string, groups []inconsistentGroup) error {
	if len(groups) == 0 {
		return nil
	}
	if err := s.tx.flush(); err != nil {
		return err
	}
	if err := s.markInconsistent(units, names, groups); err != nil {
		return err
	}
	if err := s.tx.flush(); err != nil {
		return err
	}
	return s.followGroups(units, groups)
}

// followGroups runs followInconsistent for the groups markInconsistent
// marked, their lookups answered.
func (s *checkSettler) followGroups(units []checkedUnit, groups []inconsistentGroup) error {
	for _, g := range groups {
		if g.follow {
			if err := s.followInconsistent(units, g.idx, g.peers, g.found); err != nil {
				return err
			}
		}
	}
	return nil
}

// markInconsistent is addInconsistent's first half, its groups' lookups
// answered: it appends the check to names, and marks the groups to
// follow, queueing the lookup of a created translation's strings whose
// peers hold another target (answered at the next flush, so that the
// created translations of a write send theirs together, where each was
// a round trip of its own).
func (s *checkSettler) markInconsistent(units []checkedUnit, names [][]string, groups []inconsistentGroup) error {
	for gi := range groups {
		g := &groups[gi]
		g.takeShared()
		idx, found, targets := g.idx, g.found, g.targets
		if !g.created {
			targets = make([][]sharedTarget, len(found))
			for k, units := range found {
				for _, o := range units {
					targets[k] = append(targets[k], sharedTarget{o.target, o.state})
				}
			}
		}
		var others []checks.SameSource
		for k, i := range idx {
			u := &units[i]
			if u.state == index.StateReadOnly || len(targets[k]) == 0 {
				continue
			}
			others = others[:0]
			for _, o := range targets[k] {
				others = append(others, checks.SameSource{Target: index.SplitPlural(o.target),
					Translated: o.state.Translated()})
			}
			if checks.IsInconsistent(index.SplitPlural(u.target), u.state.Translated(), g.sc.flags, others) {
				names[i] = append(names[i], checks.Inconsistent)
			}
		}
		if s.last {
			continue
		}
		if g.created {
			// The strings whose peers hold another target: their
			// units read.
			var diff []int
			var diffStrs [][2]string
			for k, i := range idx {
				if slices.ContainsFunc(targets[k], func(o sharedTarget) bool { return o.target != units[i].target }) {
					diff, diffStrs = append(diff, i), append(diffStrs, g.strs[k])
				}
			}
			if len(diff) == 0 {
				continue
			}
			var err error
			if g.found, err = sameStringsTotals(s.tx, g.peers, diffStrs, s.totals); err != nil {
				return err
			}
			g.idx = diff
		}
		g.follow = true
	}
	return nil
}

// groupMember is a unit of a string's group across the components of a
// project (followInconsistent).
type groupMember struct {
	id, translationID int64
	target            []string
	translated        bool
	readOnly          bool
}

// followInconsistent marks for the second round the peers' units of
// units[idx]'s strings whose inconsistent row disagrees with what the
// string's group, as it now stands, says of them: the group is the
// settled unit and the units sameStrings found (found), every one of
// them the others' peer, so the answer is the one their own settling
// would give. Units settled in this round are left: they saw the group
// as it now is.
func (s *checkSettler) followInconsistent(units []checkedUnit, idx []int, peers []index.Translation,
	found [][]peerString) error {
	groups := make([][]groupMember, 0, len(idx))
	var candidates []int64
	for k, i := range idx {
		u := &units[i]
		if len(found[k]) == 0 {
			continue
		}
		g := []groupMember{{id: u.id, translationID: u.translationID, target: index.SplitPlural(u.target),
			translated: u.state.Translated(), readOnly: u.state == index.StateReadOnly}}
		for _, o := range found[k] {
			g = append(g, groupMember{id: o.id, translationID: peers[o.peer].ID, target: index.SplitPlural(o.target),
				translated: o.state.Translated(), readOnly: o.state == index.StateReadOnly})
		}
		if s.createdTranslations[u.translationID] {
			if err := s.followCreated(g); err != nil {
				return err
			}
			continue
		}
		for _, m := range g[1:] {
			if !s.seen[m.id] {
				candidates = append(candidates, m.id)
			}
		}
		groups = append(groups, g)
	}
	if len(candidates) == 0 {
		return nil
	}
	failing, err := unitsWithCheck(s.tx, candidates, checks.Inconsistent)
	if err != nil {
		return err
	}
	others := make([]checks.SameSource, 0, 8)
	for _, g := range groups {
		for j := 1; j < len(g); j++ {
			m := &g[j]
			if s.seen[m.id] {
				continue
			}
			want := false
			if !m.readOnly {
				sc, err := s.scope(m.translationID)
				if err != nil {
					return err
				}
				others = others[:0]
				for l := range g {
					if l != j {
						others = append(others, checks.SameSource{Target: g[l].target, Translated: g[l].translated})
					}
				}
				want = !sc.glossary && !sc.isSource && checks.IsInconsistent(m.target, m.translated, sc.flags, others)
			}
			if want != failing[m.id] {
				if s.peerFollow == nil {
					s.peerFollow = map[int64]bool{}
				}
				s.peerFollow[m.id] = true
			}
		}
	}
	return nil
}

// followCreated is followInconsistent for a group whose settled unit,
// g[0], is in a translation this write created: the group before the
// write was g without the created translations' units (those of every
// translation the round settles as created, which were all inserted
// before it), and each other member's inconsistent row says what that
// group said of it (the invariant every settling keeps), so a member
// is marked when the group without them and the group with them
// disagree on it — no check row is read. A member the write changed
// otherwise (edited, imported again) is settled in this round, and
// its own followInconsistent reads the rows of the group's others. An
// import of a copy whose strings match its peers' (the common case:
// components sharing strings translated alike) reads no row of checks
// where it read one per peer and string (BENCHMARKS session 10).
func (s *checkSettler) followCreated(g []groupMember) error {
	alike := true
	for _, m := range g[1:] {
		alike = alike && slices.Equal(m.target, g[0].target)
	}
	if alike {
		return nil // no member fails, with or without the new ones
	}
	var before, after []checks.SameSource
	for j := 1; j < len(g); j++ {
		m := &g[j]
		if m.readOnly || s.seen[m.id] || s.createdTranslations[m.translationID] {
			continue // fails nothing, or settled in this round
		}
		sc, err := s.scope(m.translationID)
		if err != nil {
			return err
		}
		if sc.glossary || sc.isSource {
			continue
		}
		before, after = before[:0], after[:0]
		for l := range g {
			if l == j {
				continue
			}
			o := checks.SameSource{Target: g[l].target, Translated: g[l].translated}
			after = append(after, o)
			if !s.createdTranslations[g[l].translationID] {
				before = append(before, o)
			}
		}
		if checks.IsInconsistent(m.target, m.translated, sc.flags, before) !=
			checks.IsInconsistent(m.target, m.translated, sc.flags, after) {
			if s.peerFollow == nil {
				s.peerFollow = map[int64]bool{}
			}
			s.peerFollow[m.id] = true
		}
	}
	return nil
}

// unitsWithCheck returns which of ids hold a row of the check name,
// dismissed or not.
func unitsWithCheck(tx *Tx, ids []int64, name string) (map[int64]bool, error) {
	out := map[int64]bool{}
	ids = slices.Compact(slices.Sorted(slices.Values(ids)))
	if tx.db != nil && tx.db.dialect.name == "postgres" && len(ids) > 0 {
		got, err := queryIDs(tx, pgUnitsWithCheck, ids, name)
		for _, id := range got {
			out[id] = true
		}
		return out, err
	}
	for chunk := range slices.Chunk(ids, maxInList) {
		list, args := idList(chunk)
		got, err := queryIDs(tx, `SELECT unit_id FROM checks WHERE name = ? AND unit_id IN `+list,
			append([]any{name}, args...)...)
		if err != nil {
			return nil, err
		}
		for _, id := range got {
			out[id] = true
		}
	}
	return out, nil
}

// pgUnitsWithCheck is unitsWithCheck's statement on PostgreSQL: one
// probe of checks' key (unit_id, name) an id. The IN list's generic plan
// read every row of the check through checks_name and tested each
// against the rebuilt list (auto_explain in AutoTranslateJellyfin,
// session 8: 9,218 rows removed for 512 kept, 0.4-0.7 s an execution at
// load 30; TestWriteListsPlan).
// The LATERAL subquery kept apart (OFFSET 0) is a probe an id in any
// plan: as a join, the plan could hash every row of the check.
const pgUnitsWithCheck = `SELECT c.unit_id FROM unnest(CAST(? AS bigint[])) AS x(id)
	CROSS JOIN LATERAL (SELECT c.unit_id FROM checks c WHERE c.unit_id = x.id AND c.name = ? OFFSET 0) c`

// leftKey names the strings a write took out of their groups: those of
// a language ("" for every one) in a component of a project.
type leftKey struct {
	project, component int64
	language           string
}

// inconsistentLeft notes that units of a component left their strings'
// groups (see the top of this file): settling marks the units of the
// project's other components, in the language, holding an inconsistent
// row (leftPeers).
func (tx *Tx) inconsistentLeft(project, component int64, language string) {
	if tx.checks.leftGroups == nil {
		tx.checks.leftGroups = map[leftKey]bool{}
	}
	tx.checks.leftGroups[leftKey{project, component, language}] = true
}

// leftPeers returns the units inconsistentLeft's keys name.
func leftPeers(tx *Tx, keys map[leftKey]bool) ([]int64, error) {
	var out []int64
	for _, k := range slices.SortedFunc(maps.Keys(keys), func(a, b leftKey) int {
		return cmp.Or(cmp.Compare(a.project, b.project), cmp.Compare(a.component, b.component),
			strings.Compare(a.language, b.language))
	}) {
		q := `SELECT k.unit_id FROM checks k JOIN units u ON u.id = k.unit_id
			JOIN translations t ON t.id = u.translation_id JOIN components c ON c.id = t.component_id
			WHERE k.name = ? AND c.project_id = ? AND c.id != ?`
		args := []any{checks.Inconsistent, k.project, k.component}
		if k.language != "" {
			q += ` AND t.language_code = ?`
			args = append(args, k.language)
		}
		ids, err := queryIDs(tx, q, args...)
		if err != nil {
			return nil, err
		}
		out = append(out, ids...)
	}
	return out, nil
}

// unitContexts returns the contexts of units[idx] by id: those a
// snapshot holds (an edit's unit: hasContext), the others read, as the
// settler does not read them for the other checks.
func unitContexts(tx *Tx, units []checkedUnit, idx []int) (map[int64]string, error) {
	out := make(map[int64]string, len(idx))
	var ids []int64
	for _, i := range idx {
		if u := &units[i]; u.hasContext {
			out[u.id] = u.context
		} else {
			ids = append(ids, u.id)
		}
	}
	for chunk := range slices.Chunk(ids, maxInList) {
		list, args := idList(chunk)
		rows, err := tx.Query(`SELECT id, context FROM units WHERE id IN `+list, args...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var id int64
			var c string
			if err := rows.Scan(&id, &c); err != nil {
				rows.Close()
				return nil, err
			}
			out[id] = c
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	return out, nil
}
