package msgtemplate

import (
	"html"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file renders parsed templates. Values are Go strings, ints,
// float64s, bools, nil (a variable that does not exist), []any and
// *Object. Rendering follows Django with autoescaping off, as the
// reference renders messages: a missing variable is "", and a filter or
// comparison that does not apply gives "" or false rather than an error.

// Render limits: a template that passes them on a sample (Check) passes
// them on real values unless a list grows by orders of magnitude.
const (
	maxRenderSteps  = 100_000
	maxRenderOutput = 1 << 20
)

// renderer renders nodes into out; scopes are the variables, innermost
// last.
type renderer struct {
	out    strings.Builder
	scopes []map[string]any
	steps  int
}

func (r *renderer) render(nodes []node) error {
	for _, n := range nodes {
		r.steps++
		if r.steps > maxRenderSteps || r.out.Len() > maxRenderOutput {
			return ErrRenderLimit
		}
		switch n := n.(type) {
		case textNode:
			r.out.WriteString(n.text)
		case varNode:
			r.out.WriteString(str(r.eval(n.expr)))
		case ifNode:
			if err := r.renderIf(n); err != nil {
				return err
			}
		case forNode:
			if err := r.renderFor(n); err != nil {
				return err
			}
		}
	}
	return nil
}

func (r *renderer) renderIf(n ifNode) error {
	for i, c := range n.conds {
		if truthy(r.cond(c)) {
			return r.render(n.bodies[i])
		}
	}
	return r.render(n.els)
}

func (r *renderer) renderFor(n forNode) error {
	items := iterate(r.eval(n.seq))
	if len(items) == 0 {
		return r.render(n.empty)
	}
	if n.reversed {
		items = slices.Clone(items)
		slices.Reverse(items)
	}
	var parent any
	if len(r.scopes) > 0 {
		parent = r.scopes[len(r.scopes)-1]["forloop"]
	}
	scope := map[string]any{}
	r.scopes = append(r.scopes, scope)
	defer func() { r.scopes = r.scopes[:len(r.scopes)-1] }()
	for i, item := range items {
		// Each iteration counts, so that loops over long literals with
		// empty bodies are bounded too.
		if r.steps++; r.steps > maxRenderSteps {
			return ErrRenderLimit
		}
		scope[n.name] = item
		scope["forloop"] = &Object{Attrs: map[string]any{
			"counter": i + 1, "counter0": i, "revcounter": len(items) - i, "revcounter0": len(items) - i - 1,
			"first": i == 0, "last": i == len(items)-1, "parentloop": parent,
		}}
		if err := r.render(n.body); err != nil {
			return err
		}
	}
	return nil
}

// iterate returns what {% for %} walks over in v: a list's items, a
// string's characters; nothing for anything else (Django raises on a
// number; this package renders nothing rather than fail at commit time).
func iterate(v any) []any {
	switch v := v.(type) {
	case []any:
		return v
	case string:
		items := make([]any, 0, len(v))
		for _, c := range v {
			items = append(items, string(c))
		}
		return items
	}
	return nil
}

func (r *renderer) lookup(path []string) any {
	var v any
	for i := len(r.scopes) - 1; i >= 0; i-- {
		if found, ok := r.scopes[i][path[0]]; ok {
			v = found
			break
		}
	}
	for _, part := range path[1:] {
		v = attr(v, part)
	}
	return v
}

// attr is v.name: an object's attribute or a list's item by index; nil
// when there is none.
func attr(v any, name string) any {
	switch v := v.(type) {
	case *Object:
		if v != nil {
			return v.Attrs[name]
		}
	case []any:
		if i, err := strconv.Atoi(name); err == nil && i >= 0 && i < len(v) {
			return v[i]
		}
	}
	return nil
}

func (r *renderer) value(o *operand) any {
	if o.isLit {
		return o.lit
	}
	return r.lookup(o.path)
}

func (r *renderer) eval(e *filterExpr) any {
	v := r.value(&e.base)
	for _, f := range e.filters {
		var arg any
		if f.arg != nil {
			arg = r.value(f.arg)
		}
		v = f.fn(v, arg)
	}
	return v
}

func (r *renderer) cond(c *condExpr) any {
	switch c.op {
	case "":
		return r.eval(c.leaf)
	case "or":
		if a := r.cond(c.a); truthy(a) {
			return a
		}
		return r.cond(c.b)
	case "and":
		if a := r.cond(c.a); !truthy(a) {
			return a
		}
		return r.cond(c.b)
	case "not":
		return !truthy(r.cond(c.a))
	}
	a, b := r.cond(c.a), r.cond(c.b)
	switch c.op {
	case "==":
		return equal(a, b)
	case "!=":
		return !equal(a, b)
	case "in":
		return contains(b, a)
	case "not in":
		return !contains(b, a)
	case "is":
		return identical(a, b)
	case "is not":
		return !identical(a, b)
	}
	cmp, ok := compare(a, b)
	if !ok {
		return false // Python's TypeError, which Django's {% if %} reads as false
	}
	switch c.op {
	case "<":
		return cmp < 0
	case "<=":
		return cmp <= 0
	case ">":
		return cmp > 0
	}
	return cmp >= 0
}

// truthy is Python's truth: "", 0, empty lists, false and nil are false.
func truthy(v any) bool {
	switch v := v.(type) {
	case nil:
		return false
	case bool:
		return v
	case string:
		return v != ""
	case int:
		return v != 0
	case float64:
		return v != 0
	case []any:
		return len(v) > 0
	}
	return true
}

func number(v any) (float64, bool) {
	switch v := v.(type) {
	case int:
		return float64(v), true
	case float64:
		return v, true
	}
	return 0, false
}

// equal is Python's ==: numbers by value whatever their type, strings,
// bools and lists by content.
func equal(a, b any) bool {
	if x, ok := number(a); ok {
		y, ok := number(b)
		return ok && x == y
	}
	switch a := a.(type) {
	case []any:
		b, ok := b.([]any)
		return ok && slices.EqualFunc(a, b, equal)
	case *Object:
		return a == b
	}
	return a == b
}

// identical approximates Python's "is" for the values templates compare
// with it: None, True and False.
func identical(a, b any) bool {
	switch a.(type) {
	case nil, bool:
		return a == b
	}
	return false
}

// contains is Python's "needle in haystack" for strings and lists.
func contains(haystack, needle any) bool {
	switch h := haystack.(type) {
	case string:
		n, ok := needle.(string)
		return ok && strings.Contains(h, n)
	case []any:
		return slices.ContainsFunc(h, func(v any) bool { return equal(v, needle) })
	}
	return false
}

// compare orders two numbers or two strings; false for anything else.
func compare(a, b any) (int, bool) {
	if x, ok := number(a); ok {
		y, ok := number(b)
		if !ok {
			return 0, false
		}
		switch {
		case x < y:
			return -1, true
		case x > y:
			return 1, true
		}
		return 0, true
	}
	if x, ok := a.(string); ok {
		if y, ok := b.(string); ok {
			return strings.Compare(x, y), true
		}
	}
	return 0, false
}

// str is the text Django renders for v: Python's str().
func str(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	case int:
		return strconv.Itoa(v)
	case float64:
		return pyFloat(v)
	case bool:
		if v {
			return "True"
		}
		return "False"
	case *Object:
		if v != nil {
			return v.Text
		}
	case []any:
		parts := make([]string, len(v))
		for i, e := range v {
			parts[i] = repr(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return ""
}

// repr is Python's repr() of a list item.
func repr(v any) string {
	switch v := v.(type) {
	case nil:
		return "None"
	case string:
		return "'" + strings.ReplaceAll(strings.ReplaceAll(v, `\`, `\\`), "'", `\'`) + "'"
	}
	return str(v)
}

// pyFloat formats f as Python's repr does: the shortest digits that read
// back, always with a decimal point (100.0), in exponent form outside
// 1e-4 ≤ |f| < 1e16.
func pyFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	if a := math.Abs(f); a != 0 && (a < 1e-4 || a >= 1e16) {
		return strconv.FormatFloat(f, 'e', -1, 64)
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}

// filterFunc applies a filter to v with its argument (nil when none).
type filterFunc func(v, arg any) any

// How a filter takes its argument.
const (
	argNone = iota
	argOptional
	argRequired
)

type filter struct {
	fn  filterFunc
	arg int
}

// filters are the filters of Django's that make sense in a commit
// message. Others are refused by Parse.
var filters = map[string]filter{
	"default": {func(v, arg any) any {
		if truthy(v) {
			return v
		}
		return arg
	}, argRequired},
	"default_if_none": {func(v, arg any) any {
		if v == nil {
			return arg
		}
		return v
	}, argRequired},
	"lower":    {func(v, _ any) any { return strings.ToLower(str(v)) }, argNone},
	"upper":    {func(v, _ any) any { return strings.ToUpper(str(v)) }, argNone},
	"title":    {func(v, _ any) any { return title(str(v)) }, argNone},
	"capfirst": {func(v, _ any) any { return capfirst(str(v)) }, argNone},
	"safe":     {func(v, _ any) any { return v }, argNone},
	"escape":   {func(v, _ any) any { return html.EscapeString(str(v)) }, argNone},
	"length":   {func(v, _ any) any { return length(v) }, argNone},
	"first":    {func(v, _ any) any { return nth(v, 0) }, argNone},
	"last":     {func(v, _ any) any { return nth(v, -1) }, argNone},
	"join": {func(v, arg any) any {
		items, ok := v.([]any)
		if !ok {
			return v
		}
		parts := make([]string, len(items))
		for i, e := range items {
			parts[i] = str(e)
		}
		return strings.Join(parts, str(arg))
	}, argRequired},
	"cut":         {func(v, arg any) any { return strings.ReplaceAll(str(v), str(arg), "") }, argRequired},
	"add":         {add, argRequired},
	"yesno":       {yesno, argOptional},
	"floatformat": {floatformat, argOptional},
}

func filterNames() string {
	names := make([]string, 0, len(filters))
	for n := range filters {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// title is Django's title filter: each word's first letter upper case,
// the rest lower case; a letter after an apostrophe inside a word or
// after a digit stays lower case ("they're", "1st").
func title(s string) string {
	var b strings.Builder
	prev, prev2 := ' ', ' '
	for _, c := range s {
		inWord := unicode.IsLetter(prev) || unicode.IsDigit(prev) || (prev == '\'' && unicode.IsLetter(prev2))
		if inWord {
			b.WriteRune(unicode.ToLower(c))
		} else {
			b.WriteRune(unicode.ToUpper(c))
		}
		prev, prev2 = c, prev
	}
	return b.String()
}

func capfirst(s string) string {
	c, n := utf8.DecodeRuneInString(s)
	if n == 0 {
		return s
	}
	return string(unicode.ToUpper(c)) + s[n:]
}

func length(v any) int {
	switch v := v.(type) {
	case string:
		return utf8.RuneCountInString(v)
	case []any:
		return len(v)
	}
	return 0
}

// nth is a list's or string's item i (-1: the last), "" when empty.
func nth(v any, i int) any {
	items := iterate(v)
	if len(items) == 0 {
		return ""
	}
	if i < 0 {
		i += len(items)
	}
	return items[i]
}

// add is Django's add: integers add, otherwise lists or strings join,
// otherwise "".
func add(v, arg any) any {
	if x, ok := toInt(v); ok {
		if y, ok := toInt(arg); ok {
			return x + y
		}
	}
	switch v := v.(type) {
	case string:
		if a, ok := arg.(string); ok {
			return v + a
		}
	case []any:
		if a, ok := arg.([]any); ok {
			return append(slices.Clone(v), a...)
		}
	}
	return ""
}

// toInt reads an int or a string of one, as Python's int() does.
func toInt(v any) (int, bool) {
	switch v := v.(type) {
	case int:
		return v, true
	case string:
		n, err := strconv.Atoi(strings.TrimSpace(v))
		return n, err == nil
	}
	return 0, false
}

// yesno maps true, false and None to the words of its argument ("yes,no,maybe").
func yesno(v, arg any) any {
	words := "yes,no,maybe"
	if arg != nil {
		words = str(arg)
	}
	w := strings.Split(words, ",")
	if len(w) < 2 {
		return v // Django's answer to an invalid argument
	}
	switch {
	case v == nil && len(w) > 2:
		return w[2]
	case truthy(v):
		return w[0]
	}
	return w[1]
}

// floatformat is Django's floatformat for an integer argument p (default
// -1): |p| decimals, rounded half up, but none when p < 0 and the value
// is whole. A value that is not a number gives "".
func floatformat(v, arg any) any {
	var f float64
	switch v := v.(type) {
	case int:
		f = float64(v)
	case float64:
		f = v
	case string:
		var err error
		if f, err = strconv.ParseFloat(strings.TrimSpace(v), 64); err != nil {
			return ""
		}
	default:
		return ""
	}
	p := -1
	if arg != nil {
		n, ok := toInt(arg)
		if !ok {
			return v // Django returns the value for an argument it cannot read
		}
		p = n
	}
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return pyFloat(f)
	}
	if p < 0 && f == math.Trunc(f) {
		p = 0
	}
	return roundHalfUp(f, min(abs(p), 30))
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// roundHalfUp formats f with p decimals, rounding its shortest decimal
// form half away from zero as Python's Decimal ROUND_HALF_UP does
// (strconv rounds the binary value, which turns 0.125 into 0.12).
func roundHalfUp(f float64, p int) string {
	neg := f < 0
	digits := strconv.FormatFloat(math.Abs(f), 'f', -1, 64)
	whole, frac, _ := strings.Cut(digits, ".")
	for len(frac) <= p {
		frac += "0"
	}
	keep := []byte(whole + frac[:p])
	if frac[p] >= '5' {
		i := len(keep) - 1
		for ; i >= 0 && keep[i] == '9'; i-- {
			keep[i] = '0'
		}
		if i < 0 {
			keep = append([]byte{'1'}, keep...)
		} else {
			keep[i]++
		}
	}
	n := len(keep) - p
	s := string(keep[:n])
	if p > 0 {
		s += "." + string(keep[n:])
	}
	if neg && strings.Trim(s, "0.") != "" {
		s = "-" + s
	}
	return s
}
