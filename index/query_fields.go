package index

import (
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// fieldKind says how a search field reads its value.
type fieldKind uint8

const (
	fieldText   fieldKind = iota // substring, exact, regex
	fieldName                    // a name or identifier: exact by default (see nameContains)
	fieldNum                     // numbers: comparisons and ranges
	fieldState                   // states by name or number
	fieldDate                    // dates and periods
	fieldBool                    // pending
	fieldIs                      // is:
	fieldHas                     // has:
	fieldPath                    // path:
	fieldAction                  // change_action:
)

// queryFields are the unit fields of the reference (weblate-workspace.md
// §8.2), by the name written in a query.
var queryFields = map[string]fieldKind{
	"source": fieldText, "target": fieldText, "context": fieldText, "key": fieldText,
	"note": fieldText, "location": fieldText, "explanation": fieldText,
	"comment": fieldText, "resolved_comment": fieldText, "source_comment": fieldText,
	"resolved_source_comment": fieldText, "suggestion": fieldText,
	"id": fieldNum, "position": fieldNum, "priority": fieldNum, "labels_count": fieldNum,
	"state": fieldState, "source_state": fieldState,
	"added": fieldDate, "changed": fieldDate, "change_time": fieldDate,
	"source_changed": fieldDate, "last_changed": fieldDate,
	"pending": fieldBool,
	"is":      fieldIs, "has": fieldHas, "path": fieldPath, "change_action": fieldAction,
	"language": fieldName, "component": fieldName, "project": fieldName,
	"changed_by": fieldName, "comment_author": fieldName, "source_comment_author": fieldName,
	"suggestion_author": fieldName, "label": fieldName, "check": fieldName,
	"dismissed_check": fieldName, "screenshot": fieldName,
}

// NameContains reports whether field:value (without "=") on a name field
// matches a part of the name, as the reference's component, label,
// check, dismissed_check and screenshot do; the other name fields
// (language, project, the user names) match the whole name ignoring case.
func NameContains(field string) bool {
	switch field {
	case "component", "label", "check", "dismissed_check", "screenshot":
		return true
	}
	return false
}

// IsChangeField reports whether a field tests the history: terms on
// these fields that are ANDed must hold for the same change (the
// reference's ParsedQuery).
func IsChangeField(field string) bool {
	switch field {
	case "changed", "changed_by", "change_time", "change_action":
		return true
	}
	return false
}

// The conditions of is: and has:, with the reference's aliases mapped to
// one name. has:screenshot, has:variant and has:glossary are answered
// (no unit has any: Tolk has no screenshots, variants or glossary terms
// yet) rather than refused, so the reference's saved queries keep working.
var (
	isValues = map[string]string{
		"read-only": "read-only", "readonly": "read-only", "approved": "approved",
		"fuzzy": "needs-editing", "needs-editing": "needs-editing",
		"translated": "translated", "untranslated": "untranslated", "pending": "pending",
		"automatically-translated": "automatically-translated",
		// Tolk's own, kept from before the whole language: state:empty.
		"empty": "empty",
	}
	hasValues = map[string]string{
		"plural": "plural", "context": "context", "suggestion": "suggestion",
		"comment": "comment", "resolved-comment": "resolved-comment",
		"source-comment": "source-comment", "resolved-source-comment": "resolved-source-comment",
		"check": "check", "failing-check": "check",
		"dismissed-check": "dismissed-check", "ignored-check": "dismissed-check",
		"translation": "translation", "variant": "variant", "shaping": "variant",
		"screenshot": "screenshot", "flags": "flags", "explanation": "explanation",
		"glossary": "glossary", "note": "note", "label": "label", "location": "location",
	}
)

// buildTerm checks a term token and converts its value.
func buildTerm(t token, now time.Time) (*QueryTerm, error) {
	term := &QueryTerm{Pos: t.pos, Op: OpContains}
	if t.field == "" {
		term.Text = t.value
		if t.regex {
			return regexTerm(term, t)
		}
		return term, nil
	}
	field := strings.ToLower(t.field)
	if field == "key" {
		field = "context"
	}
	kind, ok := queryFields[field]
	if !ok {
		return nil, queryErrorAt(t.pos, "unknown search field %q", t.field)
	}
	term.Field = field
	op := t.op
	if kind == fieldText && op != ":" && op != ":=" {
		// The reference reads source:>x as a search for ">x".
		t.value = op[1:] + t.value
		op = ":"
	}
	bad := func(what string) error {
		return queryErrorAt(t.pos, "%s is not supported for %q", what, t.field)
	}
	if t.rng && kind != fieldNum && kind != fieldState && kind != fieldDate {
		return nil, bad("a range")
	}
	if t.regex && kind != fieldText && kind != fieldName {
		return nil, bad("a regular expression")
	}
	if op != ":" && op != ":=" && kind != fieldNum && kind != fieldState && kind != fieldDate {
		return nil, bad("the operator " + strconv.Quote(op))
	}
	if t.regex {
		return regexTerm(term, t)
	}
	switch op {
	case ":=":
		term.Op = OpExact
	case ":<":
		term.Op = OpLT
	case ":<=":
		term.Op = OpLE
	case ":>":
		term.Op = OpGT
	case ":>=":
		term.Op = OpGE
	}
	v := t.value
	switch kind {
	case fieldText, fieldName:
		term.Text = v
	case fieldIs, fieldHas:
		names := isValues
		if kind == fieldHas {
			names = hasValues
		}
		c, ok := names[strings.ReplaceAll(strings.ToLower(v), "_", "-")]
		if !ok {
			return nil, queryErrorAt(t.pos, "unsupported condition %s:%s", field, v)
		}
		term.Text = c
	case fieldPath:
		term.Text = strings.Trim(v, "/")
	case fieldAction:
		a, ok := parseAction(v)
		if !ok {
			return nil, queryErrorAt(t.pos, "unknown change action %q", v)
		}
		term.Op, term.Num = OpEq, int64(a)
	case fieldBool:
		b, ok := parseQueryBool(v)
		if !ok {
			return nil, queryErrorAt(t.pos, "invalid boolean %q for %q", v, t.field)
		}
		term.Op, term.Bool = OpEq, b
	case fieldNum, fieldState:
		conv := func(s string) (int64, bool) {
			if kind == fieldState {
				st, ok := parseQueryState(s)
				return int64(st), ok
			}
			n, err := strconv.ParseInt(s, 10, 64)
			return n, err == nil
		}
		if term.Op == OpContains || term.Op == OpExact {
			term.Op = OpEq
		}
		switch {
		case t.rng:
			lo, ok1 := conv(t.lo)
			hi, ok2 := conv(t.hi)
			if !ok1 || !ok2 {
				return nil, queryErrorAt(t.pos, "invalid range %s", t.text)
			}
			term.Op, term.Num, term.NumHi = OpRange, lo, hi
		case field == "id" && strings.Contains(v, ",") && term.Op == OpEq:
			for _, part := range strings.Split(v, ",") {
				n, err := strconv.ParseInt(part, 10, 64)
				if err != nil {
					return nil, queryErrorAt(t.pos, "invalid id %q", part)
				}
				term.Nums = append(term.Nums, n)
			}
			term.Op = OpIn
		default:
			n, ok := conv(v)
			if !ok {
				if kind == fieldState {
					return nil, queryErrorAt(t.pos, "unknown state %q", v)
				}
				return nil, queryErrorAt(t.pos, "invalid number %q for %q", v, t.field)
			}
			term.Num = n
		}
	case fieldDate:
		if term.Op == OpContains || term.Op == OpExact {
			term.Op = OpEq
		}
		if t.rng {
			from, _, ok1 := parseQueryDate(t.lo, now)
			_, to, ok2 := parseQueryDate(t.hi, now)
			if !ok1 || !ok2 {
				return nil, queryErrorAt(t.pos, "invalid date range %s", t.text)
			}
			term.Op, term.From, term.To = OpRange, from, to
			term.Relative = isRelativeDate(t.lo) || isRelativeDate(t.hi)
			break
		}
		from, to, ok := parseQueryDate(v, now)
		if !ok {
			return nil, queryErrorAt(t.pos, "invalid date %q", v)
		}
		term.From, term.To, term.Relative = from, to, isRelativeDate(v)
	}
	return term, nil
}

// regexTerm validates a regular expression as RE2 (Go's regexp): what
// the stores run, in time linear in the text.
func regexTerm(term *QueryTerm, t token) (*QueryTerm, error) {
	if n := utf8.RuneCountInString(t.value); n > MaxQueryRegex {
		return nil, queryErrorAt(t.pos, "the regular expression has %d characters; at most %d are allowed", n, MaxQueryRegex)
	}
	if _, err := regexp.Compile(t.value); err != nil {
		return nil, queryErrorAt(t.pos, "invalid regular expression %q (%v)", t.value, err)
	}
	term.Op, term.Text = OpRegex, t.value
	return term, nil
}

// parseQueryState reads a state name of the reference's STATE_NAMES or a
// number. Unlike is:needs-editing (10 to 19), state:needs-editing is 10.
func parseQueryState(s string) (State, bool) {
	if n, err := strconv.Atoi(s); err == nil {
		return State(n), n >= 0 && n <= 100
	}
	switch strings.ToLower(s) {
	case "empty", "untranslated":
		return StateEmpty, true
	case "needs-editing", "fuzzy":
		return StateFuzzy, true
	case "needs-rewriting":
		return 11, true
	case "needs-checking":
		return 12, true
	case "translated":
		return StateTranslated, true
	case "approved":
		return StateApproved, true
	case "read-only", "readonly":
		return StateReadOnly, true
	}
	return 0, false
}

func parseQueryBool(s string) (bool, bool) {
	switch strings.ToLower(s) {
	case "yes", "true", "on", "1":
		return true, true
	case "no", "false", "off", "0":
		return false, true
	}
	return false, false
}

// parseAction reads a change action by code, name ("Marked for edit",
// any case) or slug ("marked-for-edit").
func parseAction(s string) (Action, bool) {
	if n, err := strconv.Atoi(s); err == nil {
		return Action(n), Action(n).Valid()
	}
	want := strings.ToLower(strings.TrimSpace(s))
	for a, name := range actionNames {
		n := strings.ToLower(name)
		if n == want || strings.ReplaceAll(n, " ", "-") == want {
			return a, true
		}
	}
	return 0, false
}

// isRelativeDate reports a date parseQueryDate reads against now: one
// that does not start with a digit, or ends in "ago".
func isRelativeDate(s string) bool {
	s = strings.TrimSpace(s)
	return s == "" || s[0] < '0' || s[0] > '9' || strings.HasSuffix(strings.ToLower(s), "ago")
}

// parseQueryDate reads a date as the period it names, [from, to): a year
// (2019), a month (2019-03), a day (2019-03-01, today, yesterday, "2 days
// ago", 2_weeks_ago), or a point in time (2019-03-01T10:00:00, RFC 3339;
// "3 hours ago"), one microsecond long since timestamps are stored to the
// microsecond. Relative days count back from now's midnight, as the
// reference's dateparser with RELATIVE_BASE at midnight. All in UTC.
func parseQueryDate(s string, now time.Time) (from, to time.Time, ok bool) {
	s = strings.TrimSpace(s)
	now = now.UTC()
	midnight := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	day := func(t time.Time) (time.Time, time.Time, bool) { return t, t.AddDate(0, 0, 1), true }
	point := func(t time.Time) (time.Time, time.Time, bool) {
		t = t.UTC()
		return t, t.Add(time.Microsecond), true
	}
	if len(s) == 4 {
		if y, err := strconv.Atoi(s); err == nil && y > 0 {
			t := time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC)
			return t, t.AddDate(1, 0, 0), true
		}
	}
	if t, err := time.Parse("2006-01", s); err == nil {
		return t, t.AddDate(0, 1, 0), true
	}
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return day(t)
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02 15:04:05", "2006-01-02 15:04"} {
		if t, err := time.Parse(layout, s); err == nil {
			return point(t)
		}
	}
	words := strings.Fields(strings.ToLower(strings.ReplaceAll(s, "_", " ")))
	switch {
	case len(words) == 1 && words[0] == "today":
		return day(midnight)
	case len(words) == 1 && words[0] == "yesterday":
		return day(midnight.AddDate(0, 0, -1))
	case len(words) == 1 && words[0] == "now":
		return point(now)
	case len(words) == 3 && words[2] == "ago":
		n, err := strconv.Atoi(words[0])
		if err != nil || n < 0 || n > 100000 {
			return time.Time{}, time.Time{}, false
		}
		switch strings.TrimSuffix(words[1], "s") {
		case "second":
			return point(now.Add(-time.Duration(n) * time.Second))
		case "minute":
			return point(now.Add(-time.Duration(n) * time.Minute))
		case "hour":
			return point(now.Add(-time.Duration(n) * time.Hour))
		case "day":
			return day(midnight.AddDate(0, 0, -n))
		case "week":
			return day(midnight.AddDate(0, 0, -7*n))
		case "month":
			return day(midnight.AddDate(0, -n, 0))
		case "year":
			return day(midnight.AddDate(-n, 0, 0))
		}
	}
	return time.Time{}, time.Time{}, false
}
