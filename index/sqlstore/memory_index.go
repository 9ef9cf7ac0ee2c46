package sqlstore

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"sync"
	"unicode/utf8"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/langdata"
)

// The translation memory's fuzzy index (see docs/memory.md for why it
// is shaped so). Entries are not copied out of units: a lookup finds the
// source texts like the query here, in memory, then reads the units and
// imported entries that carry those texts, in the asked target
// language, with two indexed queries (memory.go). What this index holds
// is the distinct source texts of every component (the units of source
// translations) and of imported entries, by source language, each with
// where it occurs: enough to choose the texts and to know which
// projects they belong to, nothing that an edit of a translation
// changes. Only a write that touches everything (an import, a source
// edit, a configuration change: the write clock's global, which on
// PostgreSQL other processes' writes advance too, replay.go) can change
// it, and the next lookup after one rebuilds it.

// memRef is one occurrence of a source text: a source unit (component
// and the id_hash that links it to the unit of every translation) or an
// imported entry (row id, and its project: 0 for a site-wide one).
type memRef struct {
	component int64
	idHash    int64
	entry     int64
	project   int64
}

// memText is one distinct source text.
type memText struct {
	s    string
	n    int // code points
	hist index.MemoryHistogram
	refs []memRef
}

// memLang is the source texts of one source language, ordered by length
// so that a lookup scans only the lengths that can reach its threshold.
type memLang struct {
	texts  []memText
	byText map[string]int
}

// memProject is what visibility needs of a project.
type memProject struct {
	slug                    string
	private, review         bool
	useShared, contributeTo bool
}

// memComponent is a component's project and slug (a unit entry's
// origin is "project/component").
type memComponent struct {
	project int64
	slug    string
	// bilingual components key units by source and context: a
	// translation may hold strings its source translation lacks (a
	// glossary's terms differ by language), so every translation's
	// source texts are indexed, not only the source translation's.
	bilingual bool
}

// memSnapshot is one build of the index; it is never changed once
// published, so lookups read it without locks.
type memSnapshot struct {
	tag        uint64              // the write clock's reading before the build
	langs      map[string]*memLang // by source language, its code normalized (langdata.NormalizeCode)
	projects   map[int64]memProject
	components map[int64]memComponent
	// codes are the language codes translations and components are
	// stored under, by normalized code: files and settings write "en-us" and "en_US"
	// alike, and a lookup asks for either.
	codes map[string][]string
}

// codesOf returns the stored codes of a language (the normalized code
// itself among them, as imported entries are stored under it).
func (s *memSnapshot) codesOf(code string) []string {
	norm := langdata.NormalizeCode(code)
	out := []string{norm}
	for _, c := range s.codes[norm] {
		if c != norm {
			out = append(out, c)
		}
	}
	return out
}

// memIndex holds the current snapshot; mu serializes rebuilds, so that
// lookups arriving together after a write wait for one build.
type memIndex struct {
	mu   sync.Mutex
	snap *memSnapshot // guarded by mu for writes; read through current
}

// memorySnapshot returns a snapshot built after every write that touched
// everything and committed before the call.
func (db *DB) memorySnapshot(ctx context.Context) (*memSnapshot, error) {
	db.catchUp(ctx)
	db.memory.mu.Lock()
	defer db.memory.mu.Unlock()
	if s := db.memory.snap; s != nil && db.clock.global.Load() <= s.tag {
		return s, nil
	}
	s, err := db.buildMemory(ctx)
	if err != nil {
		return nil, err
	}
	db.memory.snap = s
	return s, nil
}

// buildMemory reads the source texts, projects and components.
func (db *DB) buildMemory(ctx context.Context) (*memSnapshot, error) {
	tag := db.clock.now()
	s := &memSnapshot{tag: tag, langs: map[string]*memLang{}, projects: map[int64]memProject{},
		components: map[int64]memComponent{}, codes: map[string][]string{}}
	tx, err := db.beginRead(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, `SELECT id, slug, access_control, translation_review, use_shared_tm,
		contribute_shared_tm FROM projects`)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var id int64
		var access int
		var p memProject
		if err := rows.Scan(&id, &p.slug, &access, &p.review, &p.useShared, &p.contributeTo); err != nil {
			rows.Close()
			return nil, err
		}
		p.private = access == index.AccessPrivate
		s.projects[id] = p
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows, err = tx.QueryContext(ctx, `SELECT id, project_id, slug, settings FROM components`)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var id int64
		var c memComponent
		var settings string
		if err := rows.Scan(&id, &c.project, &c.slug, &settings); err != nil {
			rows.Close()
			return nil, err
		}
		decoded, err := decodeSettings(settings)
		if err != nil {
			rows.Close()
			return nil, fmt.Errorf("component %d settings: %w", id, err)
		}
		c.bilingual = !decoded.IsMonolingual()
		s.components[id] = c
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows, err = tx.QueryContext(ctx, `SELECT language_code FROM translations UNION SELECT source_language FROM components`)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var code string
		if err := rows.Scan(&code); err != nil {
			rows.Close()
			return nil, err
		}
		norm := langdata.NormalizeCode(code)
		s.codes[norm] = append(s.codes[norm], code)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	// The source translation's units hold every source text once per
	// component; translations' units repeat them per language. (Its
	// language code may be written otherwise than the component's source
	// language, "en-us" beside "en_US": is_source says which it is.) They
	// are read a translation at a time, through the index every unit list
	// uses: one join over units let SQLite scan all of them.
	type source struct {
		translation, component int64
		lang                   string
	}
	var sources []source
	rows, err = tx.QueryContext(ctx, `SELECT t.id, c.id, c.source_language, t.is_source FROM components c
		JOIN translations t ON t.component_id = c.id ORDER BY t.id`)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var src source
		var isSource bool
		if err := rows.Scan(&src.translation, &src.component, &src.lang, &isSource); err != nil {
			rows.Close()
			return nil, err
		}
		if isSource || s.components[src.component].bilingual {
			sources = append(sources, src)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	add := func(lang, text string, ref memRef) {
		lang = langdata.NormalizeCode(lang)
		l := s.langs[lang]
		if l == nil {
			l = &memLang{byText: map[string]int{}}
			s.langs[lang] = l
		}
		i, ok := l.byText[text]
		if !ok {
			i = len(l.texts)
			l.byText[text] = i
			l.texts = append(l.texts, memText{s: text, n: utf8.RuneCountInString(text), hist: index.NewMemoryHistogram(text)})
		}
		l.texts[i].refs = append(l.texts[i].refs, ref)
	}
	// A bilingual component's strings, once each: by occurrence and text,
	// since translations may spell the source of one id_hash apart (a
	// glossary file keeps a trailing space another trims).
	type occurrence struct {
		ref  memRef
		text string
	}
	seen := map[occurrence]bool{}
	for _, src := range sources {
		rows, err := tx.QueryContext(ctx, `SELECT source, id_hash FROM units WHERE translation_id = ? AND source != ''`,
			src.translation)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var text string
			ref := memRef{component: src.component}
			if err := rows.Scan(&text, &ref.idHash); err != nil {
				rows.Close()
				return nil, err
			}
			if o := (occurrence{ref, text}); !seen[o] {
				seen[o] = true
				add(src.lang, text, ref)
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	rows, err = tx.QueryContext(ctx, `SELECT id, source_language, source, coalesce(project_id, 0) FROM memory`)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var lang, text string
		var ref memRef
		if err := rows.Scan(&ref.entry, &lang, &text, &ref.project); err != nil {
			rows.Close()
			return nil, err
		}
		add(lang, text, ref)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for _, l := range s.langs {
		sort.SliceStable(l.texts, func(i, j int) bool { return l.texts[i].n < l.texts[j].n })
		for i := range l.texts {
			l.byText[l.texts[i].s] = i
		}
	}
	return s, nil
}

// memScope is what one lookup may see: the asking project, and whether
// it reads the shared pool.
type memScope struct {
	snap    *memSnapshot
	project int64
	shared  bool
	// personal are the strings (component and id_hash) whose translation
	// in the query's target language the asking user made, in projects
	// the user may read (MemoryQuery.UserID); nil without a user.
	personal map[[2]int64]bool
}

func (s *memSnapshot) scope(projectID int64) memScope {
	sc := memScope{snap: s, project: projectID, shared: true}
	if p, ok := s.projects[projectID]; ok {
		sc.shared = p.useShared
	}
	return sc
}

// ownOnly reports whether the scope sees ref only through the user's
// personal scope.
func (sc memScope) ownOnly(ref memRef) bool {
	if ref.entry != 0 || sc.personal == nil {
		return false
	}
	c := sc.snap.components[ref.component]
	if c.project == sc.project || sc.shared && sc.snap.projects[c.project].inPool() {
		return false
	}
	return sc.personal[[2]int64{ref.component, ref.idHash}]
}

// inPool reports whether a project's strings are in the shared pool: it
// contributes, and it is not private (the reference lets a private
// project contribute; its strings would then reach every project).
func (p memProject) inPool() bool { return p.contributeTo && !p.private }

// sees reports whether the scope sees ref.
func (sc memScope) sees(ref memRef) bool {
	if ref.entry != 0 {
		return ref.project == 0 || ref.project == sc.project
	}
	c, ok := sc.snap.components[ref.component]
	if !ok {
		return false
	}
	if c.project == sc.project {
		return true
	}
	if sc.shared && sc.snap.projects[c.project].inPool() {
		return true
	}
	return sc.personal[[2]int64{ref.component, ref.idHash}]
}

// memCandidate is a source text whose similarity reaches the threshold.
type memCandidate struct {
	text *memText
	sim  int
}

// candidates returns the texts of lang at a similarity of threshold or
// more with the query that the scope sees, best first, at most limit.
// Only lengths that can reach the threshold are compared: with LCS at
// most the shorter length n, 200·n/(n+m) ≥ T bounds m to
// [n·T/(200−T), n·(200−T)/T].
func (sc memScope) candidates(l *memLang, m *index.MemoryMatcher, text string, threshold, limit int) []memCandidate {
	var out []memCandidate
	visible := func(t *memText) bool {
		return slices.ContainsFunc(t.refs, sc.sees)
	}
	if i, ok := l.byText[text]; ok && visible(&l.texts[i]) {
		out = append(out, memCandidate{&l.texts[i], 100})
	}
	if threshold >= 100 {
		return out
	}
	n := m.Len()
	lo := n * threshold / (200 - threshold)
	hi := n * (200 - threshold) / threshold
	start := sort.Search(len(l.texts), func(i int) bool { return l.texts[i].n >= lo })
	for i := start; i < len(l.texts) && l.texts[i].n <= hi; i++ {
		t := &l.texts[i]
		if t.s == text || m.Bound(&t.hist, t.n) < threshold {
			continue
		}
		sim := m.Similarity(t.s, t.n)
		if sim >= threshold && visible(t) {
			out = append(out, memCandidate{t, sim})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].sim > out[j].sim })
	if len(out) > limit {
		out = out[:limit]
	}
	return out
}
