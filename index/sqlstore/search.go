package sqlstore

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5/pgconn"
	"modernc.org/sqlite"

	"github.com/tolk-project/tolk/index"
)

// The unit search: index.Query (the reference's search language, parsed
// in package index) compiled to a WHERE condition over the units table,
// the same text on both engines but for text matching:
//
//   - case-insensitive substrings are LIKE on SQLite, which folds ASCII
//     letters only, and ILIKE on PostgreSQL. A SQLite search whose value
//     holds a non-ASCII letter (Straße, ÉTÉ) calls tolk_icontains, a Go
//     function folding every letter with strings.ToLower: right where it
//     matters, while the common ASCII search keeps the engine's own LIKE
//     and its speed. PostgreSQL's ILIKE folds by the database's locale
//     (a C locale folds ASCII only).
//   - regular expressions are Go's RE2 on SQLite (tolk_regexp). On
//     PostgreSQL they are the engine's ~ over patterns that parsed as RE2:
//     filtering in Go after the query would break the count and the
//     pages, and PostgreSQL's engine backtracks, so every search runs
//     under searchTimeout (the context ends the statement on both
//     engines). The common syntax (classes, anchors, \d \w \s, {n,m},
//     alternation, (?i) at the start) means the same on both engines;
//     RE2's \b \B \z are rewritten (postgresRegex), and a pattern only
//     RE2 takes is a 400 on q (searchError).
//
// Every part of a search is bounded: the parser's term count, depth and
// regex size, and the timeout here.

// searchTimeout ends a search that runs longer: a query over the whole
// index that no index serves (a regex over every unit) takes a fraction
// of it on the full benchmark corpus.
const searchTimeout = 10 * time.Second

// contentActions is contentActionList (commit.go) in parentheses: the
// change actions the reference's changed: and changed_by: consider
// (Change.ACTIONS_CONTENT).
var contentActions = "(" + contentActionList + ")"

func init() {
	// Registered for every SQLite connection the driver opens.
	sqlite.MustRegisterDeterministicScalarFunction("tolk_regexp", 2, sqliteRegexp)
	sqlite.MustRegisterDeterministicScalarFunction("tolk_icontains", 2, sqliteIContains)
}

// regexCache holds compiled patterns; the parser has validated them.
var regexCache struct {
	mu sync.Mutex // guards m
	m  map[string]*regexp.Regexp
}

func cachedRegexp(pattern string) (*regexp.Regexp, error) {
	regexCache.mu.Lock()
	defer regexCache.mu.Unlock()
	if re, ok := regexCache.m[pattern]; ok {
		return re, nil
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, err
	}
	if regexCache.m == nil || len(regexCache.m) >= 256 {
		regexCache.m = map[string]*regexp.Regexp{}
	}
	regexCache.m[pattern] = re
	return re, nil
}

// sqliteRegexp is tolk_regexp(pattern, text): 1 when RE2 pattern
// matches text.
func sqliteRegexp(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
	pattern, _ := args[0].(string)
	re, err := cachedRegexp(pattern)
	if err != nil {
		return nil, err
	}
	switch s := args[1].(type) {
	case string:
		return int64(boolInt(re.MatchString(s))), nil
	case []byte:
		return int64(boolInt(re.Match(s))), nil
	}
	return int64(0), nil
}

// sqliteIContains is tolk_icontains(text, needle): 1 when text holds
// needle, which the caller has lower-cased, ignoring the case of every
// letter.
func sqliteIContains(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
	needle, _ := args[1].(string)
	s, _ := args[0].(string)
	return int64(boolInt(strings.Contains(strings.ToLower(s), needle))), nil
}

// postgresRegex writes RE2's escapes that PostgreSQL spells otherwise:
// the word boundaries \b and \B are \y and \Y there (its \b is a
// backspace), and the end of text \z is \Z.
func postgresRegex(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if p[i] != '\\' || i+1 == len(p) {
			b.WriteByte(p[i])
			continue
		}
		i++
		switch p[i] {
		case 'b':
			b.WriteString(`\y`)
		case 'B':
			b.WriteString(`\Y`)
		case 'z':
			b.WriteString(`\Z`)
		default:
			b.WriteByte('\\')
			b.WriteByte(p[i])
		}
	}
	return b.String()
}

// searchError turns what a search's statement may fail with into an
// answer on q: a pattern PostgreSQL's engine refuses though RE2 took it
// (SQLSTATE 2201B, e.g. (?i) past the start) and a search that ran out
// of its time. ctx is the search's own context.
func searchError(ctx context.Context, err error) error {
	var pe *pgconn.PgError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &pe) && pe.Code == "2201B":
		return &index.FieldError{Fields: map[string]index.FieldProblem{"q": {Code: "invalid",
			Detail: "Could not parse query string: invalid regular expression (" + pe.Message + ")."}}}
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return &index.FieldError{Fields: map[string]index.FieldProblem{"q": {Code: "invalid",
			Detail: fmt.Sprintf("The search took longer than %s; narrow it down.", searchTimeout)}}}
	}
	return err
}

// cachedSearch reports whether a search's pages may be kept until a
// write touches the units of its translation (unitsDep). Not so when a
// term reads rows that other writes change without touching them:
// comments, suggestions and labels (their own writes), the source unit's
// fields (an edit of the source string touches the source translation),
// and relative dates, which move at midnight without any write.
func cachedSearch(q *index.Query) bool {
	switch q.Kind {
	case index.QueryAll:
		return true
	case index.QueryTermNode:
		t := q.Term
		if t.Relative {
			return false
		}
		switch t.Field {
		case "comment", "resolved_comment", "source_comment", "resolved_source_comment", "comment_author",
			"source_comment_author", "suggestion", "suggestion_author", "label", "labels_count",
			"explanation", "source_state", "source_changed":
			return false
		case "has":
			switch t.Text {
			case "suggestion", "comment", "resolved-comment", "source-comment", "resolved-source-comment",
				"label", "flags", "explanation", "glossary":
				return false
			}
		}
		return true
	}
	for _, k := range q.Kids {
		if !cachedSearch(k) {
			return false
		}
	}
	return true
}

// sqlFrag is a condition and its arguments, in order.
type sqlFrag struct {
	sql  string
	args []any
}

func frag(sql string, args ...any) sqlFrag { return sqlFrag{sql, args} }

var (
	fragTrue  = frag("1 = 1")
	fragFalse = frag("1 = 0")
)

func joinFrags(op string, fs []sqlFrag) sqlFrag {
	if len(fs) == 1 {
		return fs[0]
	}
	parts := make([]string, len(fs))
	var args []any
	for i, f := range fs {
		parts[i] = "(" + f.sql + ")"
		args = append(args, f.args...)
	}
	return sqlFrag{strings.Join(parts, " "+op+" "), args}
}

// searchClause is one alternative of a compiled query: a condition on
// the unit and conditions that must hold for one and the same change of
// it (the reference's ParsedQueryClause).
type searchClause struct {
	unit   []sqlFrag
	change []sqlFrag
}

// maxSearchClauses bounds the alternatives an AND of ORs over change
// fields multiplies into, as the reference's MAX_PARSED_QUERY_CLAUSES.
const maxSearchClauses = 64

// searchCompiler compiles a query for one engine.
type searchCompiler struct {
	postgres bool
	// scan leaves the trigram index out: every unit is matched (the
	// tests' reference answer).
	scan bool
	// scoped says the units searched are those of a few translations (a
	// translation's list, project:/language: terms ANDed): SQLite then
	// reads them rather than the trigram index's candidates over the
	// whole index (narrowed).
	scoped bool
	// ordered, on PostgreSQL, gives the trigram index's candidates as an
	// array the units' primary key is searched with (trigramFilter),
	// which only a term that every match must meet may use: not one
	// under NOT or in one of several alternatives, where the array
	// would be searched element by element for every unit.
	ordered bool
}

// srcID is the unit's source unit: a source unit is its own.
const srcID = "coalesce(units.source_unit_id, units.id)"

// compileSearch turns a parsed query into a condition on units, of one
// translation when scoped.
func compileSearch(q *index.Query, postgres, scoped bool) (sqlFrag, error) {
	c := searchCompiler{postgres: postgres, scoped: scoped, ordered: postgres}
	clauses, err := c.node(q)
	if err == nil && c.ordered && len(clauses) > 1 {
		// An AND over change fields multiplied into alternatives: its
		// terms are in an OR after all.
		c.ordered = false
		clauses, err = c.node(q)
	}
	if err != nil {
		return sqlFrag{}, err
	}
	return materialize(clauses), nil
}

func materialize(cs []searchClause) sqlFrag {
	alts := make([]sqlFrag, len(cs))
	for i, c := range cs {
		parts := append([]sqlFrag(nil), c.unit...)
		if len(c.change) > 0 {
			ch := joinFrags("AND", c.change)
			parts = append(parts, sqlFrag{`units.id IN (SELECT ch.unit_id FROM changes ch WHERE ch.unit_id IS NOT NULL AND ` + ch.sql + `)`, ch.args})
		}
		if len(parts) == 0 {
			parts = []sqlFrag{fragTrue}
		}
		alts[i] = joinFrags("AND", parts)
	}
	return joinFrags("OR", alts)
}

func hasChange(cs []searchClause) bool {
	for _, c := range cs {
		if len(c.change) > 0 {
			return true
		}
	}
	return false
}

func tooComplex() error {
	return &index.FieldError{Fields: map[string]index.FieldProblem{"q": {Code: "invalid",
		Detail: "Could not parse query string: Search query is too complex."}}}
}

func (c searchCompiler) node(q *index.Query) ([]searchClause, error) {
	switch q.Kind {
	case index.QueryAll:
		return []searchClause{{}}, nil
	case index.QueryTermNode:
		f, err := c.term(q.Term)
		if err != nil {
			return nil, err
		}
		if index.IsChangeField(q.Term.Field) {
			return []searchClause{{change: []sqlFrag{f}}}, nil
		}
		return []searchClause{{unit: []sqlFrag{f}}}, nil
	case index.QueryNot:
		c.ordered = false
		kid, err := c.node(q.Kids[0])
		if err != nil {
			return nil, err
		}
		m := materialize(kid)
		return []searchClause{{unit: []sqlFrag{{"NOT (" + m.sql + ")", m.args}}}}, nil
	case index.QueryAnd, index.QueryOr:
		if q.Kind == index.QueryOr {
			c.ordered = false
		}
		var acc []searchClause
		kids := q.Kids
		var scope []*index.QueryTerm
		if q.Kind == index.QueryAnd {
			// The scope terms of an AND become one list of translations:
			// SQLite drives a search from one IN list, and the
			// intersection is the smallest.
			kids = nil
			for _, k := range q.Kids {
				if k.Kind == index.QueryTermNode && isScopeField(k.Term.Field) {
					scope = append(scope, k.Term)
				} else {
					kids = append(kids, k)
				}
			}
			if len(scope) > 0 {
				acc = []searchClause{{unit: []sqlFrag{c.scope(scope)}}}
				c.scoped = true
			}
		}
		for _, k := range kids {
			kid, err := c.node(k)
			if err != nil {
				return nil, err
			}
			i := len(acc)
			if i == 0 {
				acc = kid
				continue
			}
			if !hasChange(acc) && !hasChange(kid) {
				op := "AND"
				if q.Kind == index.QueryOr {
					op = "OR"
				}
				acc = []searchClause{{unit: []sqlFrag{joinFrags(op, []sqlFrag{materialize(acc), materialize(kid)})}}}
				continue
			}
			if q.Kind == index.QueryOr {
				if len(acc)+len(kid) > maxSearchClauses {
					return nil, tooComplex()
				}
				acc = append(acc, kid...)
				continue
			}
			if len(acc)*len(kid) > maxSearchClauses {
				return nil, tooComplex()
			}
			var prod []searchClause
			for _, l := range acc {
				for _, r := range kid {
					prod = append(prod, searchClause{
						unit:   append(append([]sqlFrag(nil), l.unit...), r.unit...),
						change: append(append([]sqlFrag(nil), l.change...), r.change...),
					})
				}
			}
			acc = prod
		}
		return acc, nil
	}
	return nil, fmt.Errorf("search: unknown node kind %d", q.Kind)
}

// text matches a text column: substring ignoring case, exact, or regex.
// On the columns the trigram index holds (trigram.go) the match is made
// on the index's candidates only.
func (c searchCompiler) text(col string, t *index.QueryTerm) sqlFrag {
	m := c.textMatch(col, t)
	if !indexedText(col) {
		return m
	}
	cols := trigramOwn
	switch col {
	case "units.context":
		cols = trigramKey
	case "units.source":
		cols = trigramAny
	}
	return c.narrowed(c.textNeed(t), cols, m)
}

// textNeed is what a text term needs of the trigram index.
func (c searchCompiler) textNeed(t *index.QueryTerm) *trigramNeed {
	if t.Op == index.OpRegex {
		return regexPatternNeed(t.Text)
	}
	if c.postgres {
		// tolk_trigram_codes folds it as the index does.
		return literalNeed(t.Text)
	}
	return literalNeed(strings.ToLower(t.Text))
}

func (c searchCompiler) textMatch(col string, t *index.QueryTerm) sqlFrag {
	switch t.Op {
	case index.OpExact:
		return frag(col+" = ?", t.Text)
	case index.OpRegex:
		if c.postgres {
			return frag(col+" ~ ?", postgresRegex(t.Text))
		}
		return frag("tolk_regexp(?, "+col+") != 0", t.Text)
	}
	return c.contains(col, t.Text)
}

func (c searchCompiler) contains(col, v string) sqlFrag {
	if c.postgres {
		return frag(col+` ILIKE ? ESCAPE '\'`, "%"+likeEscaper.Replace(v)+"%")
	}
	if !isASCII(v) {
		return frag("tolk_icontains("+col+", ?) != 0", strings.ToLower(v))
	}
	return frag(col+` LIKE ? ESCAPE '\'`, "%"+likeEscaper.Replace(v)+"%")
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// name matches a name column: the whole name ignoring case, a part of it
// for the fields where the reference does (index.NameContains), or a
// regex.
func (c searchCompiler) name(col string, t *index.QueryTerm) sqlFrag {
	switch {
	case t.Op == index.OpRegex:
		return c.text(col, t)
	case t.Op == index.OpContains && index.NameContains(t.Field):
		return c.contains(col, t.Text)
	}
	return frag("lower("+col+") = lower(?)", t.Text)
}

// num compares a number column.
func num(col string, t *index.QueryTerm) sqlFrag {
	switch t.Op {
	case index.OpLT:
		return frag(col+" < ?", t.Num)
	case index.OpLE:
		return frag(col+" <= ?", t.Num)
	case index.OpGT:
		return frag(col+" > ?", t.Num)
	case index.OpGE:
		return frag(col+" >= ?", t.Num)
	case index.OpRange:
		return frag(col+" >= ? AND "+col+" <= ?", t.Num, t.NumHi)
	case index.OpIn:
		list, ids := idList(t.Nums)
		return frag(col+" IN "+list, ids...)
	}
	return frag(col+" = ?", t.Num)
}

// defaultPriority is a unit's priority unless a flag sets another; the
// index of priorities holds only the others (migration 0067).
const defaultPriority = 100

// priorityFrag compares units.priority as num does; a term whose values
// leave the default out also carries the partial index's predicate word
// for word, which is what lets either engine use units_priority.
func priorityFrag(t *index.QueryTerm) sqlFrag {
	f := num("units.priority", t)
	if takesIn(t, defaultPriority) {
		return f
	}
	return and(frag("units.priority != "+strconv.Itoa(defaultPriority)), f)
}

// unitsStatePredicate is units_state's predicate (SQLite's migration
// 0093): the index holds only the states other than empty (0) and
// translated (20), which are nearly every unit (of the corpus's 277,429,
// 113,866 are empty and none needs editing or is approved) and so were
// nearly all of the index's cost on an import. A list of those states
// walks units by id and meets a match every row or two; their counts come
// from the statistics rows (countByState).
const unitsStatePredicate = "units.state NOT IN (0, 20)"

// stateFrag is f, a condition on units.state, for the units of a rare
// state when rare says f leaves both 0 and 20 out. On SQLite it carries
// units_state's predicate word for word: neither engine proves the
// predicate from a comparison with a bound value, and this is what lets a
// search for a rare state (approved, needs editing, read-only) read the
// index rather than every unit. PostgreSQL keeps those units in the side
// table unit_states (migration 0114: no index of units names state, so
// that an edit's UPDATE is heap-only) and reads them from there, f
// itself still checked on the unit's row.
func (c searchCompiler) stateFrag(f sqlFrag, rare bool) sqlFrag {
	if !rare {
		return f
	}
	if c.postgres {
		side := frag(strings.ReplaceAll(f.sql, "units.state", "us.state"), f.args...)
		return and(in("units.id", "us.unit_id FROM unit_states us", side), f)
	}
	return and(frag(unitsStatePredicate), f)
}

// pendingFrag is is:pending / pending:true, a unit edited since its last
// commit: on PostgreSQL one of the side table unit_pending (migration
// 0114; units_pending, SQLite's partial index, would keep an edit's
// UPDATE from being heap-only).
func (c searchCompiler) pendingFrag() sqlFrag {
	if c.postgres {
		// Correlated by translation, so that a scoped search seeks the
		// side table's key (translation_id, unit_id) rather than reading
		// every pending unit of the site.
		return exists("unit_pending up WHERE up.translation_id = units.translation_id AND up.unit_id = units.id", fragTrue)
	}
	return frag("units.pending != 0")
}

// takesIn says whether the numeric term t matches the value v.
func takesIn(t *index.QueryTerm, v int64) bool {
	switch t.Op {
	case index.OpLT:
		return v < t.Num
	case index.OpLE:
		return v <= t.Num
	case index.OpGT:
		return v > t.Num
	case index.OpGE:
		return v >= t.Num
	case index.OpRange:
		return v >= t.Num && v <= t.NumHi
	case index.OpIn:
		return slices.Contains(t.Nums, v)
	}
	return v == t.Num
}

// date compares a timestamp column (sortable UTC text) with the period
// the term names.
func date(col string, t *index.QueryTerm) sqlFrag {
	from, to := formatTime(t.From), formatTime(t.To)
	if t.To.Year() > 9999 {
		// Stored timestamps have four-digit years: the text compares.
		to = "9999-12-31T23:59:59.999999Z~"
	}
	switch t.Op {
	case index.OpLT:
		return frag(col+" < ?", from)
	case index.OpLE:
		return frag(col+" < ?", to)
	case index.OpGT:
		return frag(col+" >= ?", to)
	case index.OpGE:
		return frag(col+" >= ?", from)
	}
	return frag(col+" >= ? AND "+col+" < ?", from, to)
}

func exists(from string, cond sqlFrag) sqlFrag {
	return sqlFrag{"EXISTS (SELECT 1 FROM " + from + " AND " + cond.sql + ")", cond.args}
}

// in is "col IN (SELECT sel WHERE cond)": SQLite drives the search from
// the rows of a small table (comments, checks, changes) rather than
// probing it once per unit, and PostgreSQL makes it a semi-join.
func in(col, sel string, cond sqlFrag) sqlFrag {
	return sqlFrag{col + " IN (SELECT " + sel + " WHERE " + cond.sql + ")", cond.args}
}

// srcIn is "the unit's source unit is among (SELECT sel WHERE cond)":
// the units whose source unit is listed and the listed units that have
// no source unit, as one list of ids. Both engines drive the search from
// it; an OR of the two tests made PostgreSQL test every unit. The units
// linked to a listed source unit s are its id_hash in each translation
// of its component (units_translation_hash; every unit is linked by
// id_hash, machinery.go's sameSourceQuery says how): migration 0068
// dropped units_source, an index of every unit by its source unit, for
// the import's speed.
func srcIn(sel string, cond sqlFrag) sqlFrag {
	sub := " IN (SELECT " + sel + " WHERE " + cond.sql + ")"
	return sqlFrag{"units.id IN (SELECT su.id FROM units s JOIN translations st ON st.id = s.translation_id" +
		" JOIN translations sut ON sut.component_id = st.component_id" +
		" JOIN units su ON su.translation_id = sut.id AND su.id_hash = s.id_hash AND su.source_unit_id = s.id" +
		" WHERE s.id" + sub +
		" UNION ALL SELECT su.id FROM units su WHERE su.source_unit_id IS NULL AND su.id" + sub + ")",
		append(append([]any(nil), cond.args...), cond.args...)}
}

func isScopeField(f string) bool {
	switch f {
	case "project", "component", "language", "path":
		return true
	}
	return false
}

// scope is the translations that every one of terms (project:,
// component:, language:, path:) selects.
func (c searchCompiler) scope(terms []*index.QueryTerm) sqlFrag {
	conds := make([]sqlFrag, len(terms))
	for i, t := range terms {
		conds[i] = c.scopeCond(t)
	}
	cond := joinFrags("AND", conds)
	return sqlFrag{`units.translation_id IN (SELECT t.id FROM translations t JOIN components cm ON cm.id = t.component_id
		JOIN projects p ON p.id = cm.project_id WHERE ` + cond.sql + `)`, cond.args}
}

// scopeCond is a scope term's condition on a translation t of component
// cm of project p.
func (c searchCompiler) scopeCond(t *index.QueryTerm) sqlFrag {
	switch t.Field {
	case "project":
		return c.name("p.slug", t)
	case "component":
		return joinFrags("OR", []sqlFrag{c.name("cm.slug", t), c.name("cm.name", t)})
	case "language":
		if t.Op == index.OpRegex {
			return c.text("t.language_code", t)
		}
		return frag(`lower(t.language_code) = lower(?)
			OR t.language_code IN (SELECT lg.code FROM languages lg WHERE lower(lg.name) = lower(?))`, t.Text, t.Text)
	}
	return pathCond(t.Text)
}

func and(fs ...sqlFrag) sqlFrag { return joinFrags("AND", fs) }

// user matches a user id column by username: the whole name ignoring
// case, or a regex.
func (c searchCompiler) user(col string, t *index.QueryTerm) sqlFrag {
	if t.Op == index.OpRegex {
		re := c.text("us.username", t)
		return sqlFrag{col + " IN (SELECT us.id FROM users us WHERE " + re.sql + ")", re.args}
	}
	return frag(col+" IN (SELECT us.id FROM users us WHERE lower(us.username) = lower(?))", t.Text)
}

// term compiles one condition (weblate-workspace.md §8.2).
func (c searchCompiler) term(t *index.QueryTerm) (sqlFrag, error) {
	switch t.Field {
	case "":
		// One lookup in the trigram index serves the three columns: it
		// holds them together.
		return c.narrowed(c.textNeed(t), trigramAny, joinFrags("OR", []sqlFrag{c.textMatch("units.source", t),
			c.textMatch("units.target", t), c.textMatch("units.context", t)})), nil
	case "source", "target", "context", "note", "location":
		return c.text("units."+t.Field, t), nil
	case "explanation":
		return exists("units s WHERE s.id = "+srcID, c.text("s.explanation", t)), nil
	case "comment", "resolved_comment":
		return in("units.id", "m.unit_id FROM comments m", and(frag("m.resolved = "+resolvedFlag(t.Field)), c.text("m.comment", t))), nil
	case "source_comment", "resolved_source_comment":
		return srcIn("m.unit_id FROM comments m", and(frag("m.resolved = "+resolvedFlag(t.Field)), c.text("m.comment", t))), nil
	case "suggestion":
		return in("units.id", "g.unit_id FROM suggestions g", c.text("g.target", t)), nil
	case "comment_author":
		return in("units.id", "m.unit_id FROM comments m", c.user("m.user_id", t)), nil
	case "source_comment_author":
		return srcIn("m.unit_id FROM comments m", c.user("m.user_id", t)), nil
	case "suggestion_author":
		return in("units.id", "g.unit_id FROM suggestions g", c.user("g.user_id", t)), nil
	case "priority":
		return priorityFrag(t), nil
	case "state":
		return c.stateFrag(num("units.state", t), !takesIn(t, int64(index.StateEmpty)) && !takesIn(t, int64(index.StateTranslated))), nil
	case "id", "position":
		return num("units."+t.Field, t), nil
	case "source_state":
		return exists("units s WHERE s.id = "+srcID, num("s.state", t)), nil
	case "labels_count":
		return num("(SELECT count(*) FROM unit_labels ul WHERE ul.unit_id = "+srcID+")", t), nil
	case "added":
		return date("units.timestamp", t), nil
	case "last_changed":
		return date(lastChanged("units.id"), t), nil
	case "source_changed":
		return date(lastChanged(srcID), t), nil
	case "pending":
		if t.Bool {
			return c.pendingFrag(), nil
		}
		return frag("units.pending = 0"), nil
	case "check", "dismissed_check":
		dismissed := "0"
		if t.Field == "dismissed_check" {
			dismissed = "1"
		}
		return in("units.id", "k.unit_id FROM checks k", and(frag("k.dismissed = "+dismissed), c.name("k.name", t))), nil
	case "label":
		return srcIn("ul.unit_id FROM unit_labels ul JOIN labels lb ON lb.id = ul.label_id", c.name("lb.name", t)), nil
	case "screenshot":
		// Tolk has no screenshots yet: no unit has one.
		return fragFalse, nil
	case "project", "component", "language", "path":
		return c.scope([]*index.QueryTerm{t}), nil
	case "changed":
		return joinFrags("AND", []sqlFrag{date("ch.timestamp", t), frag("ch.action IN " + contentActions)}), nil
	case "change_time":
		return date("ch.timestamp", t), nil
	case "change_action":
		return frag("ch.action = ?", t.Num), nil
	case "changed_by":
		by := c.user("ch.author_id", t)
		if t.Text == "" && t.Op != index.OpRegex {
			// changed_by:"" is a content change without an author.
			by = frag("ch.author_id IS NULL")
		}
		return joinFrags("AND", []sqlFrag{by, frag("ch.action IN " + contentActions)}), nil
	case "is":
		return c.isFrag(t.Text), nil
	case "has":
		if t.Text == "glossary" {
			return c.glossary(), nil
		}
		return hasFrag(t.Text), nil
	}
	return sqlFrag{}, fmt.Errorf("search: field %q has no compiler", t.Field)
}

func resolvedFlag(field string) string {
	if strings.HasPrefix(field, "resolved_") {
		return "1"
	}
	return "0"
}

// lastChanged is when a unit last changed: its latest change, or when it
// was added if it has none.
func lastChanged(unitID string) string {
	return "coalesce((SELECT max(lc.timestamp) FROM changes lc WHERE lc.unit_id = " + unitID +
		"), (SELECT la.timestamp FROM units la WHERE la.id = " + unitID + "))"
}

// pathCond selects the translations of the object a path names, as the
// reference's paths do: project, project/component,
// project/component/language, project/-/language (a project's
// language), and with categories between the project and the component:
// project/category[/category…] (the category with its subcategories),
// project/category…/component[/language] and project/category…/-/language.
// A path may read several ways (p/a/b is component a in language b, or
// component b in category a): it selects what any reading names. A
// component is found without its categories too, since Tolk's component
// slugs are unique in their project. A path that names nothing matches
// nothing, as the reference's.
func pathCond(path string) sqlFrag {
	seg := strings.Split(path, "/")
	if seg[0] == "" || len(seg) > index.MaxCategoryDepth+3 {
		return fragFalse
	}
	project, rest := seg[0], seg[1:]
	var alts []sqlFrag
	switch len(rest) {
	case 0:
		alts = append(alts, frag("p.slug = ?", project))
	case 1:
		alts = append(alts, frag("p.slug = ? AND cm.slug = ?", project, rest[0]))
	case 2:
		if rest[0] == "-" {
			alts = append(alts, frag("p.slug = ? AND t.language_code = ?", project, rest[1]))
		} else {
			alts = append(alts, frag("p.slug = ? AND cm.slug = ? AND t.language_code = ?", project, rest[0], rest[1]))
		}
	}
	for k := 1; k <= min(len(rest), index.MaxCategoryDepth); k++ {
		if slices.Contains(rest[:k], "-") {
			break
		}
		cat := categoryChain(rest[:k])
		after := rest[k:]
		var f sqlFrag
		switch {
		case len(after) == 0:
			f = categorySubtree(cat)
		case len(after) == 1:
			f = frag("cm.category_id = "+cat.sql+" AND cm.slug = ?", append(cat.args, after[0])...)
		case len(after) == 2 && after[0] == "-":
			sub := categorySubtree(cat)
			f = frag(sub.sql+" AND t.language_code = ?", append(sub.args, after[1])...)
		case len(after) == 2:
			f = frag("cm.category_id = "+cat.sql+" AND cm.slug = ? AND t.language_code = ?",
				append(cat.args, after[0], after[1])...)
		default:
			continue
		}
		alts = append(alts, frag("p.slug = ? AND "+f.sql, append([]any{project}, f.args...)...))
	}
	if len(alts) == 0 {
		return fragFalse
	}
	or := joinFrags("OR", alts)
	return frag("("+or.sql+")", or.args...)
}

// categoryChain is a subquery for the id of the category that slugs
// name from the top level of project p down.
func categoryChain(slugs []string) sqlFrag {
	f := frag("(SELECT k0.id FROM categories k0 WHERE k0.project_id = p.id AND k0.category_id IS NULL AND k0.slug = ?)", slugs[0])
	for i, slug := range slugs[1:] {
		k := "k" + strconv.Itoa(i+1)
		f = frag("(SELECT "+k+".id FROM categories "+k+" WHERE "+k+".category_id = "+f.sql+" AND "+k+".slug = ?)",
			append(f.args, slug)...)
	}
	return f
}

// categorySubtree is the condition that component cm is in category cat
// (a subquery for its id) or below it, as deep as categories nest.
func categorySubtree(cat sqlFrag) sqlFrag {
	conds, args := []string{"cm.category_id = " + cat.sql}, append([]any(nil), cat.args...)
	below := cat.sql
	for d := 1; d < index.MaxCategoryDepth; d++ {
		k := "s" + strconv.Itoa(d)
		op := " = "
		if d > 1 {
			op = " IN "
		}
		below = "(SELECT " + k + ".id FROM categories " + k + " WHERE " + k + ".category_id" + op + below + ")"
		conds = append(conds, "cm.category_id IN "+below)
		args = append(args, cat.args...) // each level's text holds cat once
	}
	return frag("("+strings.Join(conds, " OR ")+")", args...)
}

// isFrag answers is: (weblate/utils/search.py UnitTermExpr.is_field).
func (c searchCompiler) isFrag(v string) sqlFrag {
	switch v {
	case "read-only":
		return c.stateFrag(frag("units.state = ?", index.StateReadOnly), true)
	case "approved":
		return c.stateFrag(frag("units.state = ?", index.StateApproved), true)
	case "needs-editing":
		return c.stateFrag(frag("units.state >= ? AND units.state < ?", index.StateFuzzy, index.StateTranslated), true)
	case "translated":
		return frag("units.state >= ?", index.StateTranslated)
	case "untranslated":
		return frag("units.state < ?", index.StateTranslated)
	case "pending":
		return c.pendingFrag()
	case "empty":
		return frag("units.state = ?", index.StateEmpty)
	case "automatically-translated":
		// Set by automatic translation, cleared when a person saves the
		// string (migration 0036), as the reference's flag.
		return frag("units.automatically_translated != 0")
	}
	return fragFalse
}

// hasFrag answers has: (UnitTermExpr.has_field).
func hasFrag(v string) sqlFrag {
	switch v {
	case "plural":
		return frag(`units.source LIKE ? ESCAPE '\'`, "%"+likeEscaper.Replace(index.PluralSeparator)+"%")
	case "context", "note", "location":
		return frag("units." + v + " != ''")
	case "suggestion":
		return frag("units.id IN (SELECT g.unit_id FROM suggestions g)")
	case "comment", "resolved-comment":
		return frag("units.id IN (SELECT m.unit_id FROM comments m WHERE m.resolved = " + boolDigit(v != "comment") + ")")
	case "source-comment", "resolved-source-comment":
		return srcIn("m.unit_id FROM comments m", frag("m.resolved = "+boolDigit(v != "source-comment")))
	case "check":
		// The rows rather than units.has_failing_check: SQLite drives
		// the search from the few failing checks.
		return frag("units.id IN (SELECT k.unit_id FROM checks k WHERE k.dismissed = 0)")
	case "dismissed-check":
		return frag("units.id IN (SELECT k.unit_id FROM checks k WHERE k.dismissed != 0)")
	case "translation":
		return frag("units.state >= ?", index.StateTranslated)
	case "flags":
		return frag("EXISTS (SELECT 1 FROM units s WHERE s.id = " + srcID + " AND s.extra_flags != '')")
	case "explanation":
		return frag("EXISTS (SELECT 1 FROM units s WHERE s.id = " + srcID + " AND s.explanation != '')")
	case "label":
		return srcIn("ul.unit_id FROM unit_labels ul", fragTrue)
	}
	// variant, screenshot: Tolk has none of them yet.
	return fragFalse
}

// glossary answers has:glossary: the unit's source holds a term of its
// project's glossaries, as the trigram index's upkeep last matched it
// (glossary_matches.go). It is never NULL, so that NOT has:glossary
// holds exactly where has:glossary does not (countUnits' complement).
//
// glossary_matches holds a row for every unit whose source unit
// matches, not only for the source units (migration 0070), so the test
// is of the unit's own id: testing its source unit's id counted through
// an index over every unit's source_unit_id (units_source), which the
// import dropped for its speed (migration 0068) — without it, 95 ms of
// CPU a request on SQLite over the benchmark's 277,429 units
// (BENCHMARKS.md, Session 7).
func (c searchCompiler) glossary() sqlFrag {
	return frag("units.id IN (SELECT gm.unit_id FROM glossary_matches gm)")
}

func boolDigit(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

var likeEscaper = strings.NewReplacer(`\`, `\\`, "%", `\%`, "_", `\_`)
