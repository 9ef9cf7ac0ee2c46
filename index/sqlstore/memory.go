package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/langdata"
)

// The translation memory (reference workspace §5; design in
// docs/memory.md): units are its entries, read where they are, and
// imported entries are rows of memory. memory_index.go finds the source
// texts; this file reads the entries and writes imported ones.

// memoryChunk bounds the ids of one IN list of a lookup's reads.
const memoryChunk = 256

// LookupMemory returns the entries whose source is like q.Text, best
// first (exact matches, then by quality), at most MemoryLookupLimit, with
// at most one entry per source and target: the entries of q.ProjectID's
// units and imports, the shared pool when the project uses it, and
// site-wide imports. Entries below q.Threshold after the penalties are
// left out. Unknown languages or projects find nothing. Safe for
// concurrent use.
func (db *DB) LookupMemory(ctx context.Context, q index.MemoryQuery) ([]index.MemoryMatch, error) {
	out, err := db.LookupMemoryMany(ctx, []index.MemoryQuery{q})
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

// LookupMemoryMany is LookupMemory of each query, answered from one
// build of the index, in the order given. The entries of every query
// with the same target language are read together: one query on units
// and one on imported entries for the batch, not for each string.
func (db *DB) LookupMemoryMany(ctx context.Context, qs []index.MemoryQuery) ([][]index.MemoryMatch, error) {
	snap, err := db.memorySnapshot(ctx)
	if err != nil {
		return nil, err
	}
	lookups := make([]*memLookup, len(qs))
	groups := map[string]*memGroup{}
	personal := map[personalKey]map[[2]int64]bool{}
	for i, q := range qs {
		var own map[[2]int64]bool
		if q.UserID != 0 && q.TargetLanguage != "" {
			k := personalKey{q.UserID, langdata.NormalizeCode(q.TargetLanguage), fmt.Sprint(q.Hidden)}
			if own = personal[k]; own == nil {
				if own, err = db.personalMemory(ctx, snap, q); err != nil {
					return nil, err
				}
				personal[k] = own
			}
		}
		lk := snap.prepare(q, own)
		if lk == nil {
			continue
		}
		lookups[i] = lk
		key := langdata.NormalizeCode(q.TargetLanguage)
		g := groups[key]
		if g == nil {
			g = &memGroup{langs: snap.codesOf(q.TargetLanguage), seen: map[[2]int64]bool{}, sources: map[string]int{},
				bySource: map[string][]memHit{}}
			groups[key] = g
		}
		g.add(lk)
	}
	for _, g := range groups {
		if err := db.readGroup(ctx, snap, g); err != nil {
			return nil, err
		}
	}
	out := make([][]index.MemoryMatch, len(qs))
	for i, lk := range lookups {
		if lk == nil {
			continue
		}
		g := groups[langdata.NormalizeCode(lk.q.TargetLanguage)]
		var found []index.MemoryEntry
		for text := range lk.sims {
			for _, h := range g.bySource[text] {
				if lk.sc.sees(h.ref) {
					e := h.entry
					e.Personal = lk.sc.ownOnly(h.ref)
					found = append(found, e)
				}
			}
		}
		out[i] = rankMemory(found, lk.sims, lk.q, lk.threshold)
	}
	return out, nil
}

// memLookup is one query with the source texts the index found for it.
type memLookup struct {
	q         index.MemoryQuery
	threshold int
	sc        memScope
	cands     []memCandidate
	sims      map[string]int // similarity by candidate text
}

// personalKey names one user's personal scope in one target language,
// for the projects they may read.
type personalKey struct {
	user   int64
	lang   string
	hidden string
}

// personalMemory returns the strings (component and id_hash) of projects
// other than q.ProjectID and not hidden from q.UserID whose current
// translation in q's target language is one the user saved: a change of
// theirs (index.MemoryMadeBy) carries the unit's current target. One
// query on the user's changes (changes_user), however many strings ask.
func (db *DB) personalMemory(ctx context.Context, snap *memSnapshot, q index.MemoryQuery) (map[[2]int64]bool, error) {
	ll, largs := idList(snap.codesOf(q.TargetLanguage))
	actions := make([]int64, len(index.MemoryMadeBy))
	for i, a := range index.MemoryMadeBy {
		actions[i] = int64(a)
	}
	al, aargs := idList(actions)
	args := append(append(append([]any{q.UserID}, aargs...), largs...), q.ProjectID)
	rows, err := db.r.QueryContext(ctx, `SELECT DISTINCT t.component_id, u.id_hash
		FROM changes ch JOIN units u ON u.id = ch.unit_id JOIN translations t ON t.id = u.translation_id
		WHERE ch.user_id = ? AND ch.action IN `+al+` AND t.language_code IN `+ll+`
		AND u.state >= 10 AND u.target != '' AND u.target = ch.target AND ch.project_id != ?`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[[2]int64]bool{}
	for rows.Next() {
		var k [2]int64
		if err := rows.Scan(&k[0], &k[1]); err != nil {
			return nil, err
		}
		if c, ok := snap.components[k[0]]; ok && !slices.Contains(q.Hidden, c.project) {
			out[k] = true
		}
	}
	return out, rows.Err()
}

// prepare finds q's candidate texts, own being the asking user's
// personal scope (personalMemory; nil for none); nil when there are none.
func (s *memSnapshot) prepare(q index.MemoryQuery, own map[[2]int64]bool) *memLookup {
	threshold := q.Threshold
	if threshold <= 0 {
		threshold = index.MemoryDefaultThreshold
	}
	threshold = min(threshold, 100)
	l := s.langs[langdata.NormalizeCode(q.SourceLanguage)]
	if l == nil || q.Text == "" || q.TargetLanguage == "" {
		return nil
	}
	lk := &memLookup{q: q, threshold: threshold, sc: s.scope(q.ProjectID)}
	lk.sc.personal = own
	lk.cands = lk.sc.candidates(l, index.NewMemoryMatcher(q.Text), q.Text, threshold, index.MemoryLookupLimit)
	if len(lk.cands) == 0 {
		return nil
	}
	lk.sims = make(map[string]int, len(lk.cands))
	for _, c := range lk.cands {
		lk.sims[c.text.s] = c.sim
	}
	return lk
}

// memGroup is the lookups of one target language: what to read for all
// of them, and what was read, by source text.
type memGroup struct {
	langs                  []string // the language's stored codes
	comps, hashes, entries []int64
	seen                   map[[2]int64]bool // kind (0 component, 1 hash, 2 entry) and id
	sources                map[string]int    // every candidate text
	bySource               map[string][]memHit
}

// memHit is an entry read and the occurrence it belongs to, so that each
// lookup keeps only those its scope sees.
type memHit struct {
	entry index.MemoryEntry
	ref   memRef
}

func (g *memGroup) add(lk *memLookup) {
	once := func(kind, id int64, list *[]int64) {
		if k := [2]int64{kind, id}; !g.seen[k] {
			g.seen[k] = true
			*list = append(*list, id)
		}
	}
	for _, c := range lk.cands {
		g.sources[c.text.s] = c.sim
		for _, r := range c.text.refs {
			switch {
			case !lk.sc.sees(r):
			case r.entry != 0:
				once(2, r.entry, &g.entries)
			default:
				once(0, r.component, &g.comps)
				once(1, r.idHash, &g.hashes)
			}
		}
	}
}

// readGroup reads a group's entries: the translated units in one of its
// codes of the components whose id_hash is among its hashes and whose
// source is one of its texts (a component and a hash of two different
// texts match nothing, as the source is checked), and its imported
// entries in one of its codes.
func (db *DB) readGroup(ctx context.Context, snap *memSnapshot, g *memGroup) error {
	ll, largs := idList(g.langs)
	for ci := 0; ci < len(g.comps); ci += memoryChunk {
		cl, cargs := idList(g.comps[ci:min(ci+memoryChunk, len(g.comps))])
		for hi := 0; hi < len(g.hashes); hi += memoryChunk {
			hl, hargs := idList(g.hashes[hi:min(hi+memoryChunk, len(g.hashes))])
			args := append(append(append([]any{}, largs...), cargs...), hargs...)
			rows, err := db.r.QueryContext(ctx, `SELECT u.id, u.source, u.target, u.context, u.state, t.component_id,
				u.id_hash FROM translations t JOIN units u ON u.translation_id = t.id
				WHERE t.language_code IN `+ll+` AND t.component_id IN `+cl+` AND u.id_hash IN `+hl+`
				AND u.state >= 10 AND u.target != ''`, args...)
			if err != nil {
				return err
			}
			for rows.Next() {
				var e index.MemoryEntry
				var id, comp, hash int64
				var state index.State
				if err := rows.Scan(&id, &e.Source, &e.Target, &e.Context, &state, &comp, &hash); err != nil {
					rows.Close()
					return err
				}
				if _, ok := g.sources[e.Source]; !ok {
					continue
				}
				snap.unitEntry(&e, id, comp, state, g.langs[0])
				g.bySource[e.Source] = append(g.bySource[e.Source], memHit{e, memRef{component: comp, idHash: hash}})
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return err
			}
		}
	}
	for i := 0; i < len(g.entries); i += memoryChunk {
		list, args := idList(g.entries[i:min(i+memoryChunk, len(g.entries))])
		rows, err := db.r.QueryContext(ctx, `SELECT `+memoryColumns+` FROM memory m
			WHERE m.target_language IN `+ll+` AND m.id IN `+list, append(append([]any{}, largs...), args...)...)
		if err != nil {
			return err
		}
		var found []index.MemoryEntry
		if err := scanMemoryRows(rows, snap, &found); err != nil {
			return err
		}
		for _, e := range found {
			row, _ := index.SplitMemoryID(e.ID)
			g.bySource[e.Source] = append(g.bySource[e.Source], memHit{e, memRef{entry: row, project: e.ProjectID}})
		}
	}
	return nil
}

// unitEntry fills what a unit's entry takes from the snapshot.
func (s *memSnapshot) unitEntry(e *index.MemoryEntry, unitID, componentID int64, state index.State, lang string) {
	c := s.components[componentID]
	p := s.projects[c.project]
	e.ID = index.MemoryUnitID(unitID)
	e.TargetLanguage = lang
	e.Origin = p.slug + "/" + c.slug
	e.ProjectID, e.ProjectSlug = c.project, p.slug
	e.Status = index.MemoryStatusOf(state, p.review)
	e.Shared = p.inPool()
}

const memoryColumns = `m.id, m.source_language, m.target_language, m.source, m.target, m.context, m.origin,
	coalesce(m.project_id, 0)`

func scanMemoryRows(rows *sql.Rows, snap *memSnapshot, out *[]index.MemoryEntry) error {
	defer rows.Close()
	for rows.Next() {
		var e index.MemoryEntry
		var id int64
		if err := rows.Scan(&id, &e.SourceLanguage, &e.TargetLanguage, &e.Source, &e.Target, &e.Context,
			&e.Origin, &e.ProjectID); err != nil {
			return err
		}
		e.ID = index.MemoryImportedID(id)
		e.Imported, e.Status = true, index.MemoryActive
		e.Shared = e.ProjectID == 0
		if snap != nil {
			e.ProjectSlug = snap.projects[e.ProjectID].slug
		}
		*out = append(*out, e)
	}
	return rows.Err()
}

// rankMemory scores the entries found, drops those below threshold and
// duplicates (same source and target: the best stays), and orders them
// as the reference does: exact matches first, then by quality; ties by
// id, so that answers are stable.
func rankMemory(found []index.MemoryEntry, sims map[string]int, q index.MemoryQuery, threshold int) []index.MemoryMatch {
	best := map[[2]string]int{}
	var out []index.MemoryMatch
	for _, e := range found {
		if q.Exclude != 0 && !e.Imported && e.ID == index.MemoryUnitID(q.Exclude) {
			continue
		}
		e.SourceLanguage = q.SourceLanguage
		ctx := e.Context
		if q.NoContext {
			ctx = ""
		}
		mm := index.MemoryMatch{MemoryEntry: e, Exact: e.Source == q.Text,
			Quality: index.MemoryQuality(sims[e.Source], e.Status, ctx, q.Context)}
		if mm.Quality < threshold {
			continue
		}
		k := [2]string{e.Source, e.Target}
		if i, ok := best[k]; ok {
			if better(mm, out[i]) {
				out[i] = mm
			}
			continue
		}
		best[k] = len(out)
		out = append(out, mm)
	}
	sort.Slice(out, func(i, j int) bool { return better(out[i], out[j]) })
	if len(out) > index.MemoryLookupLimit {
		out = out[:index.MemoryLookupLimit]
	}
	return out
}

func better(a, b index.MemoryMatch) bool {
	if a.Exact != b.Exact {
		return a.Exact
	}
	if a.Quality != b.Quality {
		return a.Quality > b.Quality
	}
	return a.ID < b.ID
}

// FindMemory returns one page of the entries f selects, imported ones
// first, then units', each kind in id order, and how many there are. A
// unit is an entry when it is translated or needs editing, has a target,
// and is not of its component's source translation. Without a source
// substring both kinds are counted lists (migrations 0063 and 0071,
// keyset.go): their counts and deep pages cost no pass over the entries.
// A source substring is matched against the candidates of a trigram
// index (memorySourceList): its count and pages cost what its
// candidates do, not what every entry does. EachMemory (exports) walks
// by key.
func (db *DB) FindMemory(ctx context.Context, f index.MemoryFilter, pg index.Page) ([]index.MemoryEntry, int, error) {
	snap, err := db.memorySnapshot(ctx)
	if err != nil {
		return nil, 0, err
	}
	tx, err := db.beginRead(ctx)
	if err != nil {
		return nil, 0, err
	}
	defer tx.Rollback()
	iw, iargs := memoryWhere(f, snap, memoryImportedFilter)
	uw, uargs := memoryWhere(f, snap, memoryUnitFilter)
	kinds := []memoryKind{
		{list: memoryImportedList(f, snap), columns: memoryColumns, from: "FROM memory m", scan: scanMemoryRows,
			where: iw, args: iargs, id: "m.id"},
		{list: memoryUnitList(f, snap), columns: memoryUnitColumns, from: memoryUnitFrom, scan: scanMemoryUnits,
			where: uw, args: uargs, id: "u.id"},
	}
	if f.Source != "" {
		if err := db.memorySourceKinds(ctx, tx, snap, f, kinds); err != nil {
			return nil, 0, err
		}
	}
	var out []index.MemoryEntry
	total := 0
	offset, size := pg.Offset(), pg.Size
	if pg.Size <= 0 {
		offset, size = 0, math.MaxInt32
	}
	for _, k := range kinds {
		n, page, err := k.read(ctx, tx, snap, max(0, offset-total), size-len(out))
		if err != nil {
			return nil, 0, err
		}
		out = append(out, page...)
		total += n
	}
	return out, total, nil
}

// memorySourceKinds narrows FindMemory's kinds (imported entries, then
// units) to f.Source, a case-insensitive substring no counter can count:
// each kind then reads either the entries its trigram index gives as
// candidates for the needle (trigram.go; imported entries: migration
// 0079), or every entry of the other filters, matching the substring
// exactly either way, so both give the same entries.
//
// Which is cheaper depends on the needle: a candidate is read by its id,
// a scan reads in order, so a needle that a large share of the entries
// hold ("string number 4": 22,222 of 100,000 units) cost 1.35x the scan
// through its candidates. A kind reads its candidates only when they are
// fewer than 1/memoryCandidateShare of the entries its counted list
// holds (list_counts: a few counter rows), found by counting them up to
// that cap, which stops early for a common needle. A needle of fewer than
// three characters has no trigram and scans.
func (db *DB) memorySourceKinds(ctx context.Context, q queryer, snap *memSnapshot, f index.MemoryFilter,
	kinds []memoryKind) error {
	need := literalNeed(strings.ToLower(f.Source))
	pg := db.dialect.name == "postgres"
	// The counted lists of f's other filters, which hold what a scan reads.
	other := f
	other.Source = ""
	lists := []keyList{memoryImportedList(other, snap), memoryUnitList(other, snap)}
	for i := range kinds {
		k := &kinds[i]
		list := lists[i]
		k.list.list = ""
		if need == nil {
			continue
		}
		var cand sqlFrag
		var where string
		if i == 0 {
			// Imported entries' source trigrams (migration 0079).
			if pg {
				cand = frag(`SELECT id FROM memory WHERE tolk_trigram_codes(source) @> tolk_trigram_codes(?)`, need.lit)
				where = "tolk_trigram_codes(m.source) @> tolk_trigram_codes(?)"
			} else {
				cand = frag(`SELECT rowid FROM memory_trigrams WHERE memory_trigrams MATCH ?`,
					ftsMatch(need)+` OR "`+longUnitMark+`"`)
				where = `m.id IN (SELECT rowid FROM memory_trigrams WHERE memory_trigrams MATCH ?)`
			}
		} else {
			cand = searchCompiler{postgres: pg}.trigramCandidates(need, trigramAny)
			// PostgreSQL reads the candidates once, as an array (an
			// InitPlan), and each from units by its key. As an IN
			// (subquery) its planner, misled by the LIKE's estimate,
			// scanned units and re-read the candidates for each match:
			// 7 s for 1,528 of 7,700 units.
			where = "u.id IN (" + cand.sql + ")"
			if pg {
				where = "u.id = ANY(ARRAY(" + cand.sql + "))"
			}
		}
		if memoryCandidateShare > 0 {
			entries, err := list.total(ctx, q)
			if err != nil {
				return err
			}
			limit := entries / memoryCandidateShare
			var n int
			if err := q.QueryRowContext(ctx, `SELECT count(*) FROM (`+cand.sql+` LIMIT ?) AS c`,
				withArgs(cand.args, limit)...).Scan(&n); err != nil {
				return err
			}
			if n >= limit {
				continue // as many candidates as the cap: scan
			}
		}
		k.where = where + " AND " + k.where
		k.args = append(slices.Clone(cand.args), k.args...)
	}
	return nil
}

// memoryCandidateShare: FindMemory's source= reads a kind's trigram
// candidates when they are fewer than 1/memoryCandidateShare of its
// entries, else scans them. Measured on BenchmarkMemoryPages (SQLite),
// a candidate read by id cost about as much as ten to fifteen entries
// read in order by the scan. 0 always reads the candidates (tests hold
// both ways to the same answers).
var memoryCandidateShare = 10

// memoryKind is one kind of entry as FindMemory reads it: a counted
// list, or, when list.list is "", the rows of from that where selects,
// counted and paged by a scan (a source substring, which no counter
// can count).
type memoryKind struct {
	list    keyList
	columns string
	from    string // FROM and joins
	where   string
	args    []any
	id      string
	scan    func(*sql.Rows, *memSnapshot, *[]index.MemoryEntry) error
}

// read returns how many entries the kind has and, when want > 0, at
// most want of them from offset on.
func (k memoryKind) read(ctx context.Context, q queryer, snap *memSnapshot, offset, want int) (int, []index.MemoryEntry, error) {
	var n int
	var rows *sql.Rows
	var err error
	switch {
	case k.list.list == "":
		if err := q.QueryRowContext(ctx, `SELECT count(*) `+k.from+` WHERE `+k.where, k.args...).Scan(&n); err != nil {
			return 0, nil, err
		}
		if want <= 0 || offset >= n {
			return n, nil, nil
		}
		rows, err = q.QueryContext(ctx, `SELECT `+k.columns+` `+k.from+` WHERE `+k.where+` ORDER BY `+k.id+
			` LIMIT ? OFFSET ?`, withArgs(k.args, want, offset)...)
	case want <= 0:
		n, err = k.list.total(ctx, q)
		return n, nil, err
	default:
		var first int64
		var ok bool
		if n, first, ok, err = k.list.locate(ctx, q, offset); err != nil || !ok {
			return n, nil, err
		}
		cond, args, order := k.list.page(first)
		rows, err = q.QueryContext(ctx, `SELECT `+k.columns+` `+k.from+cond+order+` LIMIT ?`, withArgs(args, want)...)
	}
	if err != nil {
		return 0, nil, err
	}
	var out []index.MemoryEntry
	err = k.scan(rows, snap, &out)
	return n, out, err
}

// memoryUnitList is the counted list of the units that are f's entries
// (f without a source filter): the 'mu' rows of the translations f
// selects, which are not source translations. The translation test is
// written +u.translation_id so that SQLite reads the list in id order
// rather than through the translations' index.
func memoryUnitList(f index.MemoryFilter, snap *memSnapshot) keyList {
	tw, targs := memoryWhere(f, snap, memoryTranslationFilter)
	scopes := `SELECT t.id FROM translations t JOIN components c ON c.id = t.component_id WHERE ` + tw
	return keyList{list: "mu", allScopes: true, scopeIn: scopes, scopeArgs: targs, from: "units u", id: "u.id",
		where: " WHERE u.state >= 10 AND u.target != '' AND +u.translation_id IN (" + scopes + ")", args: targs,
		hi: noBound}
}

// memoryImportedList is the counted list of the imported entries f
// selects (f without a source filter): the 'mi' rows of the memory
// lists (project and language pair, migration 0071) f selects. The row
// conditions are those of memoryImportedKeyed, which SQLite reads in id
// order.
func memoryImportedList(f index.MemoryFilter, snap *memSnapshot) keyList {
	lw, largs := memoryWhere(f, snap, memoryListFilter)
	iw, iargs := memoryWhere(f, snap, memoryImportedKeyed)
	return keyList{list: "mi", allScopes: true, scopeIn: `SELECT id FROM memory_lists WHERE ` + lw, scopeArgs: largs,
		from: "memory m", id: "m.id", where: " WHERE " + iw, args: iargs, hi: noBound}
}

// memoryExportChunk is how many entries EachMemory reads at a time.
const memoryExportChunk = 1000

// EachMemory calls fn with every entry f selects, in FindMemory's order,
// reading them a chunk at a time by key (so that an export of millions
// holds one chunk in memory). An error from fn
// stops the walk and is returned.
func (db *DB) EachMemory(ctx context.Context, f index.MemoryFilter, fn func(index.MemoryEntry) error) error {
	snap, err := db.memorySnapshot(ctx)
	if err != nil {
		return err
	}
	walk := func(query string, args []any, scan func(*sql.Rows, *memSnapshot, *[]index.MemoryEntry) error,
		key func(index.MemoryEntry) int64) error {
		var after int64
		for {
			var chunk []index.MemoryEntry
			rows, err := db.r.QueryContext(ctx, query, append(append([]any{}, args...), after, memoryExportChunk)...)
			if err != nil {
				return err
			}
			if err := scan(rows, snap, &chunk); err != nil {
				return err
			}
			for _, e := range chunk {
				if err := fn(e); err != nil {
					return err
				}
			}
			if len(chunk) < memoryExportChunk {
				return nil
			}
			after = key(chunk[len(chunk)-1])
		}
	}
	iw, iargs := memoryWhere(f, snap, memoryImportedFilter)
	err = walk(`SELECT `+memoryColumns+` FROM memory m WHERE `+iw+` AND m.id > ? ORDER BY m.id LIMIT ?`, iargs,
		scanMemoryRows, func(e index.MemoryEntry) int64 { row, _ := index.SplitMemoryID(e.ID); return row })
	if err != nil {
		return err
	}
	uw, uargs := memoryWhere(f, snap, memoryUnitFilter)
	return walk(`SELECT `+memoryUnitColumns+` `+memoryUnitFrom+` WHERE `+uw+` AND u.id > ? ORDER BY u.id LIMIT ?`,
		uargs, scanMemoryUnits, func(e index.MemoryEntry) int64 { row, _ := index.SplitMemoryID(e.ID); return row })
}

// The units that are entries, with their language pair.
const (
	memoryUnitColumns = `u.id, u.source, u.target, u.context, u.state, t.component_id, c.source_language,
		t.language_code`
	memoryUnitFrom = `FROM units u JOIN translations t ON t.id = u.translation_id
		JOIN components c ON c.id = t.component_id`
)

func scanMemoryUnits(rows *sql.Rows, snap *memSnapshot, out *[]index.MemoryEntry) error {
	defer rows.Close()
	for rows.Next() {
		var e index.MemoryEntry
		var id, comp int64
		var state index.State
		if err := rows.Scan(&id, &e.Source, &e.Target, &e.Context, &state, &comp, &e.SourceLanguage,
			&e.TargetLanguage); err != nil {
			return err
		}
		snap.unitEntry(&e, id, comp, state, e.TargetLanguage)
		*out = append(*out, e)
	}
	return rows.Err()
}

// memoryFilterCols name what a filter reads in one kind of entry.
type memoryFilterCols struct {
	always                                  []string // conditions every entry of the kind needs
	source, sourceLang, targetLang, project string
	hiddenProject                           string // the project as NOT IN compares it
}

var (
	// memoryUnitFilter are those of units u (of translation t and
	// component c).
	memoryUnitFilter = memoryFilterCols{always: []string{`u.state >= 10`, `u.target != ''`, `t.is_source = 0`},
		source: "u.source", sourceLang: "c.source_language", targetLang: "t.language_code",
		project: "c.project_id", hiddenProject: "c.project_id"}
	// memoryTranslationFilter are those of the translations t (of
	// component c) whose units may be entries: memoryUnitFilter's
	// without the unit's own conditions (state, target, source text).
	memoryTranslationFilter = memoryFilterCols{always: []string{`t.is_source = 0`},
		sourceLang: "c.source_language", targetLang: "t.language_code",
		project: "c.project_id", hiddenProject: "c.project_id"}
	// memoryImportedFilter are those of imported entries m; a
	// site-wide entry has no project.
	memoryImportedFilter = memoryFilterCols{always: []string{`1 = 1`},
		source: "m.source", sourceLang: "m.source_language", targetLang: "m.target_language",
		project: "m.project_id", hiddenProject: "coalesce(m.project_id, 0)"}
	// memoryImportedKeyed are memoryImportedFilter's written so that no
	// index serves them (`|| ''`, `+ 0`, on both engines): a keyed page
	// is then read along the primary key from the id locate found, where
	// the language pairs' index would have SQLite read every entry of
	// the pair after it and sort them.
	memoryImportedKeyed = memoryFilterCols{always: []string{`1 = 1`},
		source: "m.source", sourceLang: "m.source_language || ''", targetLang: "m.target_language || ''",
		project: "m.project_id + 0", hiddenProject: "coalesce(m.project_id, 0)"}
	// memoryListFilter are those of memory_lists (migration 0071): one
	// project (0 site-wide) and language pair of imported entries.
	memoryListFilter = memoryFilterCols{always: []string{`1 = 1`},
		sourceLang: "source_language", targetLang: "target_language", project: "project", hiddenProject: "project"}
)

// memoryWhere is the condition of a filter on one kind of entry.
func memoryWhere(f index.MemoryFilter, snap *memSnapshot, col memoryFilterCols) (string, []any) {
	where := slices.Clone(col.always)
	var args []any
	if f.Source != "" {
		where, args = append(where, `lower(`+col.source+`) LIKE ? ESCAPE '\'`), append(args, likePattern(f.Source))
	}
	if f.SourceLanguage != "" {
		l, a := idList(snap.codesOf(f.SourceLanguage))
		where, args = append(where, col.sourceLang+` IN `+l), append(args, a...)
	}
	if f.TargetLanguage != "" {
		l, a := idList(snap.codesOf(f.TargetLanguage))
		where, args = append(where, col.targetLang+` IN `+l), append(args, a...)
	}
	if f.ProjectID != 0 {
		where, args = append(where, col.project+` = ?`), append(args, f.ProjectID)
	}
	if len(f.Hidden) > 0 {
		w, a := notIn(col.hiddenProject, f.Hidden)
		where, args = append(where, w), append(args, a...)
	}
	return strings.Join(where, " AND "), args
}

// likePattern is a LIKE pattern for a case-insensitive substring:
// lower-cased, its wildcards escaped.
func likePattern(s string) string {
	return "%" + likeEscaper.Replace(strings.ToLower(s)) + "%"
}

// FindMemoryEntry returns one entry by its memory id, or ErrNotFound.
func (db *DB) FindMemoryEntry(ctx context.Context, id int64) (index.MemoryEntry, error) {
	snap, err := db.memorySnapshot(ctx)
	if err != nil {
		return index.MemoryEntry{}, err
	}
	row, imported := index.SplitMemoryID(id)
	var out []index.MemoryEntry
	if imported {
		rows, err := db.r.QueryContext(ctx, `SELECT `+memoryColumns+` FROM memory m WHERE m.id = ?`, row)
		if err != nil {
			return index.MemoryEntry{}, err
		}
		if err := scanMemoryRows(rows, snap, &out); err != nil {
			return index.MemoryEntry{}, err
		}
	} else {
		w, args := memoryWhere(index.MemoryFilter{}, snap, memoryUnitFilter)
		rows, err := db.r.QueryContext(ctx, `SELECT `+memoryUnitColumns+` `+memoryUnitFrom+` WHERE `+w+
			` AND u.id = ?`, append(args, row)...)
		if err != nil {
			return index.MemoryEntry{}, err
		}
		if err := scanMemoryUnits(rows, snap, &out); err != nil {
			return index.MemoryEntry{}, err
		}
	}
	if len(out) == 0 {
		return index.MemoryEntry{}, index.Errorf(index.ErrNotFound, "Not found.")
	}
	return out[0], nil
}

// DeleteMemoryEntry deletes an imported entry by memory id. A unit's
// entry is its current translation and is not deleted here
// (ErrInvalid): it leaves the memory when the unit's translation is
// cleared or the unit removed. ErrNotFound for no such entry.
func (db *DB) DeleteMemoryEntry(ctx context.Context, id int64) error {
	row, imported := index.SplitMemoryID(id)
	if !imported {
		return index.Errorf(index.ErrInvalid,
			"This entry is the current translation of a string; edit the string instead.")
	}
	return db.write(ctx, func(tx *Tx) error {
		res, err := tx.Exec(`DELETE FROM memory WHERE id = ?`, row)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return index.Errorf(index.ErrNotFound, "Not found.")
		}
		return nil
	})
}

// ImportMemory stores entries as imported ones of project projectID (0:
// site-wide) by user userID (0: none), all or none, and returns how many
// it stored; an entry identical to one already stored in the same scope
// is skipped, as the reference reuses identical entries.
func (db *DB) ImportMemory(ctx context.Context, projectID, userID int64, entries []index.MemoryImportEntry) (int, error) {
	n := 0
	err := db.write(ctx, func(tx *Tx) error {
		n = 0
		var project, user any
		if projectID != 0 {
			project = projectID
		}
		if userID != 0 {
			user = userID
		}
		// An entry identical to a stored one of the scope is skipped by
		// memory_identity, the unique index of migration 0087: each
		// insert checks it with one descent of the index, which a probe
		// statement per entry did before, read by plans that PostgreSQL
		// made from the pair's statistics while it was small and that
		// read the whole pair (TestImportMemoryLinear). An entry equal
		// to one earlier in the same import, in the same statement or
		// an earlier one, is skipped by the index as well: ON CONFLICT
		// DO NOTHING sees the rows its own statement inserted
		// (TestImportMemoryDuplicates).
		now := formatTime(tx.now)
		var rows []any
		// The new entries are inserted memoryImportChunk to a statement:
		// PostgreSQL's statement trigger that counts them (migration
		// 0071) then runs once a chunk, not once an entry, which
		// updated the same list_counts row thousands of times in one
		// transaction, each update slower than the last.
		flush := func() error {
			if len(rows) == 0 {
				return nil
			}
			k := len(rows) / 9
			res, err := tx.Exec(`INSERT INTO memory (source_language, target_language, source, target,
				context, origin, project_id, user_id, timestamp) VALUES `+
				strings.TrimSuffix(strings.Repeat("(?, ?, ?, ?, ?, ?, ?, ?, ?), ", k), ", ")+
				` ON CONFLICT DO NOTHING`, rows...)
			rows = rows[:0]
			if err != nil {
				return err
			}
			stored, err := res.RowsAffected()
			n += int(stored)
			return err
		}
		for _, e := range entries {
			rows = append(rows, e.SourceLanguage, e.TargetLanguage, e.Source, e.Target, e.Context, e.Origin,
				project, user, now)
			if len(rows) == 9*memoryImportChunk {
				if err := flush(); err != nil {
					return err
				}
			}
		}
		return flush()
	})
	return n, err
}

// memoryImportChunk is how many entries one statement of ImportMemory
// inserts (9 parameters each, under both engines' limits).
const memoryImportChunk = 500

// SetProjectMemorySharing sets whether a project's lookups read the
// shared pool and whether its strings feed it, or ErrNotFound.
func (db *DB) SetProjectMemorySharing(ctx context.Context, projectID int64, use, contribute bool) error {
	return db.write(ctx, func(tx *Tx) error {
		res, err := tx.Exec(`UPDATE projects SET use_shared_tm = ?, contribute_shared_tm = ? WHERE id = ?`,
			boolInt(use), boolInt(contribute), projectID)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return index.Errorf(index.ErrNotFound, "Not found.")
		}
		return nil
	})
}

// ProjectMemorySharing reads what SetProjectMemorySharing sets.
func (db *DB) ProjectMemorySharing(ctx context.Context, projectID int64) (use, contribute bool, err error) {
	err = db.r.QueryRowContext(ctx, `SELECT use_shared_tm, contribute_shared_tm FROM projects WHERE id = ?`,
		projectID).Scan(&use, &contribute)
	return use, contribute, formatError(err)
}
