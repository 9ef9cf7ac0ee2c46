package sqlstore

import (
	"context"
	"database/sql/driver"
	"regexp/syntax"
	"strings"
	"unicode"
	"unicode/utf8"

	"modernc.org/sqlite"
)

// The trigram index (migration 0033) narrows the text searches on
// source, target and context: a unit can only hold a needle if its text
// holds every trigram (three characters) of it, so a search reads the
// units the index lists for those trigrams and matches them exactly as
// it always did (search.go). The index gives candidates, never answers:
// a term matches the same units with it as without it. One exception,
// PostgreSQL's site-wide search of source and key text
// (search_shared.go): a unit linked to its source unit is counted and
// listed by its link alone, its text not read, so that answer relies on
// the links being current (countVerifier.trigramLinks checks them;
// pgIndexTrigrams keeps them so across processes).
//
//   - A substring (a bare word, key:Play) and an exact value (source:=…)
//     need their own trigrams.
//   - A regular expression needs the literals every match must contain,
//     read from its syntax tree (Go's regexp/syntax, the RE2 that
//     validated it): "^Play" needs "Play", "[0-9]+ (files|Dateien)"
//     needs " files" or " Dateien". Where no literal of three characters
//     is required (".*", "[a-z]{4}", "a|b.*"), the search reads every
//     unit, as before.
//
// The index folds the text as the matching does: Go's strings.ToLower on
// SQLite (tolk_unit_text; LIKE folds ASCII only, tolk_icontains every
// letter by the same function), PostgreSQL's lower() there (its ILIKE is
// lower() on both sides). Folding is per character, so a folded needle
// inside a folded text is what a case-insensitive match means, and a
// case-sensitive match (a regex, an exact value) is inside it too.
//
// Why an index of their own on each engine (issue 27's question): SQLite
// has FTS5's trigram tokenizer built in (modernc.org/sqlite includes
// FTS5); PostgreSQL's pg_trgm needs a superuser to install, so there a
// table of each unit's distinct trigrams (an array) under a GIN index,
// which needs no extension. Neither is written by the write that changes
// a unit: triggers note the unit (migration 0044) and a background step
// on the writer indexes the noted units in batches (trigram_pending.go);
// searches read the noted units beside the candidates.

func init() {
	sqlite.MustRegisterDeterministicScalarFunction("tolk_unit_text", 3, sqliteUnitText)
}

// sqliteUnitText is tolk_unit_text(context, source, target): what
// unit_trigrams indexes of a unit.
func sqliteUnitText(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
	parts := make([]string, 3)
	for i, a := range args {
		switch v := a.(type) {
		case string:
			parts[i] = v
		case []byte:
			parts[i] = string(v)
		}
	}
	if len(parts[0])+len(parts[1])+len(parts[2]) > maxIndexedText {
		return longUnitMark, nil
	}
	return strings.ToLower(strings.Join(parts, "\n")), nil
}

// maxIndexedText bounds the text (bytes of context, source and target)
// the index holds of one unit: indexing costs about a microsecond a
// character in the writer, so a hostile 256 KiB string would hold every
// other write for a good part of a second. A longer unit is indexed as
// longUnitMark only, and every lookup asks for it too (trigramFilter):
// long units are always candidates, matched exactly like the others.
// Translation strings are far shorter (the corpus's longest is a few
// KiB). pgIndexTrigrams applies the same bound on PostgreSQL.
const maxIndexedText = 16384

// longUnitMark is the text indexed for a unit longer than
// maxIndexedText: one trigram of a control character no search needs.
const longUnitMark = "\x01\x01\x01"

// trigramNeed is what a unit's folded text must hold for a term to
// match: a literal (folded, three characters or more), or all or any of
// its kids. A nil *trigramNeed is "nothing known": every unit may match.
type trigramNeed struct {
	lit  string
	and  bool // kids: all of them (else any)
	kids []*trigramNeed
}

// minTrigramRunes is the shortest literal the index can look up.
const minTrigramRunes = 3

// maxNeedTrigrams bounds the trigrams one literal asks the SQLite index
// for: a long needle's first few already leave few units, and each
// further one is a posting list to read.
const maxNeedTrigrams = 12

// literalNeed is what a substring (folded) needs.
func literalNeed(folded string) *trigramNeed {
	if utf8.RuneCountInString(folded) < minTrigramRunes {
		return nil
	}
	return &trigramNeed{lit: folded}
}

func allOf(a, b *trigramNeed) *trigramNeed {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	}
	return &trigramNeed{and: true, kids: []*trigramNeed{a, b}}
}

func anyOf(kids []*trigramNeed) *trigramNeed {
	for _, k := range kids {
		if k == nil {
			return nil
		}
	}
	if len(kids) == 1 {
		return kids[0]
	}
	return &trigramNeed{kids: kids}
}

// regexNeed is what a parsed RE2 pattern needs of the text it matches.
// It is never more than what every match contains: a pattern part that
// may match without a literal (x*, x?, x{0,n}, a class) needs nothing.
func regexNeed(re *syntax.Regexp) *trigramNeed {
	switch re.Op {
	case syntax.OpLiteral:
		var r literalRun
		return r.flush(r.add(re, nil))
	case syntax.OpCapture, syntax.OpPlus:
		return regexNeed(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return regexNeed(re.Sub[0])
		}
	case syntax.OpConcat:
		// Adjacent literals join into one run: "a(?i:bc)d" needs "abcd"
		// folded.
		var need *trigramNeed
		var r literalRun
		for _, sub := range re.Sub {
			if sub.Op == syntax.OpLiteral {
				need = r.add(sub, need)
				continue
			}
			need = allOf(r.flush(need), regexNeed(sub))
		}
		return r.flush(need)
	case syntax.OpAlternate:
		kids := make([]*trigramNeed, len(re.Sub))
		for i, sub := range re.Sub {
			kids[i] = regexNeed(sub)
		}
		return anyOf(kids)
	}
	return nil
}

// literalRun collects the folded characters of adjacent literals.
type literalRun struct{ b strings.Builder }

// add appends a literal's characters, ending the run (into need) at a
// character the index cannot stand for: NUL, and under (?i) a character
// whose case variants fold to different characters (ſ matches s and S,
// which fold to s; ſ folds to itself).
func (r *literalRun) add(lit *syntax.Regexp, acc *trigramNeed) *trigramNeed {
	fold := lit.Flags&syntax.FoldCase != 0
	for _, c := range lit.Rune {
		if c == 0 || (fold && !foldStable(c)) {
			acc = r.flush(acc)
			continue
		}
		r.b.WriteRune(unicode.ToLower(c))
	}
	return acc
}

// flush ends the run, adding what it needs to need.
func (r *literalRun) flush(need *trigramNeed) *trigramNeed {
	s := r.b.String()
	r.b.Reset()
	return allOf(need, literalNeed(s))
}

// foldStable reports whether every case variant of c (its simple folding
// orbit, what (?i) matches) lower-cases to what c does.
func foldStable(c rune) bool {
	l := unicode.ToLower(c)
	for f := unicode.SimpleFold(c); f != c; f = unicode.SimpleFold(f) {
		if unicode.ToLower(f) != l {
			return false
		}
	}
	return true
}

// regexPatternNeed is what a pattern (validated as RE2 by the parser)
// needs; nil when it needs nothing or does not parse.
func regexPatternNeed(pattern string) *trigramNeed {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil
	}
	return regexNeed(re)
}

// ftsMatch is need as an FTS5 query over unit_trigrams: each trigram a
// quoted string, joined by AND and OR.
func ftsMatch(need *trigramNeed) string {
	if need.lit != "" {
		tris := trigramsOf(need.lit)
		if len(tris) > maxNeedTrigrams {
			// Spread over the needle, first and last included.
			picked := make([]string, maxNeedTrigrams)
			for i := range picked {
				picked[i] = tris[i*(len(tris)-1)/(maxNeedTrigrams-1)]
			}
			tris = picked
		}
		for i, t := range tris {
			tris[i] = `"` + strings.ReplaceAll(t, `"`, `""`) + `"`
		}
		return "(" + strings.Join(tris, " AND ") + ")"
	}
	parts := make([]string, len(need.kids))
	for i, k := range need.kids {
		parts[i] = ftsMatch(k)
	}
	op := " OR "
	if need.and {
		op = " AND "
	}
	return "(" + strings.Join(parts, op) + ")"
}

// trigramsOf is the distinct trigrams of s, in order of first use.
func trigramsOf(s string) []string {
	r := []rune(s)
	seen := map[string]bool{}
	var out []string
	for i := 0; i+minTrigramRunes <= len(r); i++ {
		t := string(r[i : i+minTrigramRunes])
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

// trigramCols is which text of a unit a needle is looked for in: what
// the candidates must cover.
type trigramCols int

const (
	// trigramAny: the source, target or context (a bare word,
	// source:): a unit's own row, or the row of the source unit it is
	// linked to (migration 0089), which holds its source and key.
	trigramAny trigramCols = iota
	// trigramOwn: the target only, which a unit's own row always holds
	// (target:).
	trigramOwn
	// trigramKey: the key alone (key:, context:), the keys' index
	// (migration 0062): a unit's own key row, or its source unit's.
	trigramKey
)

// trigramFilter is the condition need puts on units: the candidates the
// index lists, and every unit noted since the index last took them in
// (unit_trigrams_pending, trigram_pending.go), whose rows in the index
// may be stale or missing. The text of a literal goes to PostgreSQL as
// it is, since tolk_trigram_codes folds it by the same lower() as the index.
//
// On PostgreSQL, where the search is ordered (searchCompiler.ordered),
// the candidates are an array the units' primary key is searched with:
// a page in id order then reads the candidates' units in that order
// and stops at the page's end. As an IN list PostgreSQL estimates the
// candidates at its default 200 (the GIN index's own estimates are
// 10-50x under on the corpus) and, since the trigram links made the
// candidates' query cheaper, probed the units of every candidate before
// sorting them: 25,800 probes for a page of "play" where 225 units
// were read before (EXPLAIN ANALYZE on the corpus, BENCHMARKS.md
// "Session 9: PostgreSQL reads"; `TestSearchCandidatesOrdered`).
func (c searchCompiler) trigramFilter(need *trigramNeed, cols trigramCols) sqlFrag {
	f := c.trigramCandidates(need, cols)
	if c.ordered { // only ever on PostgreSQL (compileSearch)
		return frag("units.id = ANY(ARRAY("+f.sql+"))", f.args...)
	}
	return frag("units.id IN ("+f.sql+")", f.args...)
}

// trigramCandidates is the query of trigramFilter's unit ids (a unit
// may come twice: from the index, through its source unit, and from its
// note).
//
// On PostgreSQL a unit whose source and key are its source unit's holds
// neither in its own row (migration 0089; SQLite's rows hold every
// unit's whole text, migration 0090): it is linked to the source unit, whose
// rows do. So but for the target alone the candidates are the rows that
// hold the needle's trigrams and the units linked to those rows — a
// superset, as a source unit's row holds its target too, matched
// exactly like every candidate. The needle must be inside one of the
// unit's texts to match, so the trigrams of that one text, in one row,
// hold all it needs.
func (c searchCompiler) trigramCandidates(need *trigramNeed, cols trigramCols) sqlFrag {
	const noted = " UNION ALL SELECT unit_id FROM unit_trigrams_pending"
	if !c.postgres {
		table := "unit_trigrams"
		if cols == trigramKey {
			table = "unit_key_trigrams"
		}
		// SQLite's rows hold every unit's whole text (migration 0090).
		return frag("SELECT rowid FROM "+table+" WHERE "+table+" MATCH ?"+noted,
			ftsMatch(need)+` OR "`+longUnitMark+`"`)
	}
	col := "trigrams"
	if cols == trigramKey {
		col = "key_trigrams"
	}
	// rowsOf is the condition on the rows that hold need's trigrams,
	// their column named with prefix.
	rowsOf := func(prefix string) (string, []any) {
		f := c.pgTrigramFilter(need, prefix+col)
		return f.sql + " OR " + prefix + col + " @> ARRAY[?]::integer[]", append(f.args, trigramCode(longUnitMark))
	}
	cond, args := rowsOf("")
	rows := "SELECT unit_id FROM unit_trigrams WHERE " + cond
	if cols == trigramOwn {
		return frag(rows+noted, args...)
	}
	// The linked units by a plain join, the rows' condition read twice
	// (the GIN index answers it twice): with migration 0090's index
	// PostgreSQL looks each candidate row's links up in an index-only
	// scan, and the search stays parallel as main's is. A materialized
	// CTE read once (this branch's first form) was parallel-restricted,
	// and as a join PostgreSQL hashed every row of unit_trigrams for it,
	// a sequential scan of the table per search (EXPLAIN ANALYZE over
	// the corpus, session 8: "the file" 333 ms against 57 ms).
	linked, linkedArgs := rowsOf("r.")
	return frag(rows+" UNION ALL SELECT l.unit_id FROM unit_trigrams r JOIN unit_trigrams l ON l.source_unit_id = r.unit_id WHERE "+
		linked+noted, append(args, linkedArgs...)...)
}

func (c searchCompiler) pgTrigramFilter(need *trigramNeed, col string) sqlFrag {
	if need.lit != "" {
		return frag(col+" @> tolk_trigram_codes(?)", need.lit)
	}
	parts := make([]sqlFrag, len(need.kids))
	for i, k := range need.kids {
		parts[i] = c.pgTrigramFilter(k, col)
	}
	op := "OR"
	if need.and {
		op = "AND"
	}
	return joinFrags(op, parts)
}

// narrowed is cond (a match on the text cols says) with the index's
// candidates for need, or cond alone when need is nil.
func (c searchCompiler) narrowed(need *trigramNeed, cols trigramCols, cond sqlFrag) sqlFrag {
	if need == nil || c.scan {
		return cond
	}
	if c.scoped {
		// A search of a few translations reads their units: that costs
		// at most the size of the translations, where the index's
		// candidates for a common word are those of the whole index
		// ("project:bench language:de play": 4.7 ms of CPU reading the
		// German units, 20 ms through the 25,789 candidates of "play",
		// even with the candidates read once into a list) and grow with
		// the site. PostgreSQL's planner cannot weigh the two: it
		// estimates an array containment on the index's expression at a
		// handful of rows (7 for "play", which 25,807 units hold), so
		// given both it ANDs the GIN bitmap of the whole site with the
		// translation's: a translation's search at 10x the corpus read
		// 10x the candidates (issue 31, BENCHMARKS.md "Scale").
		return cond
	}
	return joinFrags("AND", []sqlFrag{c.trigramFilter(need, cols), cond})
}

// indexedText reports whether col is a column unit_trigrams holds.
func indexedText(col string) bool {
	switch col {
	case "units.source", "units.target", "units.context":
		return true
	}
	return false
}

// trigrams checks that the trigram index has a row for each unit but
// those noted since (unit_trigrams_pending), and none other than a noted
// unit's; and that a note's indexed says whether the index holds its
// row. (The text of a row cannot be read back from SQLite's contentless
// index; TestTrigramSearch checks what rows hold through searches, on
// both engines.)
func (v *countVerifier) trigrams(ctx context.Context, q queryer) error {
	rowid := "rowid"
	if v.postgres {
		rowid = "unit_id"
	}
	var missing, stale, wrongNote int
	if err := q.QueryRowContext(ctx, `SELECT
		(SELECT count(*) FROM units u WHERE NOT EXISTS (SELECT 1 FROM unit_trigrams g WHERE g.`+rowid+` = u.id)
			AND NOT EXISTS (SELECT 1 FROM unit_trigrams_pending p WHERE p.unit_id = u.id)),
		(SELECT count(*) FROM unit_trigrams g WHERE NOT EXISTS (SELECT 1 FROM units u WHERE u.id = g.`+rowid+`)
			AND NOT EXISTS (SELECT 1 FROM unit_trigrams_pending p WHERE p.unit_id = g.`+rowid+`)),
		(SELECT count(*) FROM unit_trigrams_pending p WHERE (p.indexed != 0) !=
			EXISTS (SELECT 1 FROM unit_trigrams g WHERE g.`+rowid+` = p.unit_id))`).
		Scan(&missing, &stale, &wrongNote); err != nil {
		return err
	}
	if missing > 0 || stale > 0 || wrongNote > 0 {
		v.report("unit_trigrams: %d units neither indexed nor noted, %d rows of units that are gone, %d notes wrong about their row",
			missing, stale, wrongNote)
	}
	if err := v.trigramLinks(ctx, q); err != nil {
		return err
	}
	return v.keyTrigrams(ctx, q)
}

// trigramLinks checks the links of units indexed without their source
// (migration 0089): a unit not noted is linked only to a unit that
// holds the same source and key in its own rows (one not linked in turn), unless
// that unit is noted (its row then still holds the text the unit was
// linked on, until the step notes the unit too); and no link is left of
// a unit that is gone. The link need not be the unit's source unit of
// now: a search reaches the unit through any row holding its source.
//
// Two processes' steps once raced here (session 12's review): P1's step
// linked v to s, reading s not noted; before P1 committed, s changed and
// P2's step rewrote s's row, noting s's linked units by a statement that
// could not see P1's link yet, so v stayed linked to s's old text,
// neither noted, and the site-wide source search (search_shared.go)
// counted v for s's new text. A step now holds s's row before it reads s
// and links to it, and deletes a row before noting its links
// (pgIndexTrigrams, TestTrigramLinkRace); this check reports such a link
// all the same.
func (v *countVerifier) trigramLinks(ctx context.Context, q queryer) error {
	if !v.postgres {
		return nil // SQLite links no unit (migration 0090)
	}
	links := "(SELECT unit_id, source_unit_id FROM unit_trigrams WHERE source_unit_id IS NOT NULL)"
	var wrong, gone int
	if err := q.QueryRowContext(ctx, `SELECT
		(SELECT count(*) FROM `+links+` l JOIN units u ON u.id = l.unit_id LEFT JOIN units s ON s.id = l.source_unit_id
			WHERE (s.id IS NULL OR s.source != u.source OR s.context != u.context OR EXISTS (SELECT 1 FROM `+links+` c WHERE c.unit_id = s.id))
			AND NOT EXISTS (SELECT 1 FROM unit_trigrams_pending p WHERE p.unit_id IN (l.unit_id, l.source_unit_id))),
		(SELECT count(*) FROM `+links+` l WHERE NOT EXISTS (SELECT 1 FROM units u WHERE u.id = l.unit_id)
			AND NOT EXISTS (SELECT 1 FROM unit_trigrams_pending p WHERE p.unit_id = l.unit_id))`).
		Scan(&wrong, &gone); err != nil {
		return err
	}
	if wrong > 0 || gone > 0 {
		v.report("unit_trigrams: %d units linked to a unit whose rows do not hold their source and key, %d links of units that are gone",
			wrong, gone)
	}
	return nil
}

// keyTrigrams checks the keys' index (migration 0062): on SQLite a row
// of unit_key_trigrams exactly where unit_trigrams has one; on
// PostgreSQL a key of three characters or more indexed in the row of
// every unit neither noted nor linked (migration 0089: a linked unit's
// key is in its source unit's row).
func (v *countVerifier) keyTrigrams(ctx context.Context, q queryer) error {
	if v.postgres {
		var unkeyed int
		if err := q.QueryRowContext(ctx, `SELECT count(*) FROM unit_trigrams g JOIN units u ON u.id = g.unit_id
			WHERE char_length(u.context) >= 3 AND g.key_trigrams = '{}' AND g.source_unit_id IS NULL
			AND NOT EXISTS (SELECT 1 FROM unit_trigrams_pending p WHERE p.unit_id = g.unit_id)`).Scan(&unkeyed); err != nil {
			return err
		}
		if unkeyed > 0 {
			v.report("unit_trigrams: %d indexed units whose key is not", unkeyed)
		}
		return nil
	}
	var keyOnly, textOnly int
	if err := q.QueryRowContext(ctx, `SELECT
		(SELECT count(*) FROM unit_key_trigrams k WHERE NOT EXISTS (SELECT 1 FROM unit_trigrams g WHERE g.rowid = k.rowid)),
		(SELECT count(*) FROM unit_trigrams g WHERE NOT EXISTS (SELECT 1 FROM unit_key_trigrams k WHERE k.rowid = g.rowid))`).
		Scan(&keyOnly, &textOnly); err != nil {
		return err
	}
	if keyOnly > 0 || textOnly > 0 {
		v.report("unit_key_trigrams: %d rows unit_trigrams lacks, %d rows of unit_trigrams missing", keyOnly, textOnly)
	}
	return nil
}
