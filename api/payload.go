package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/gin-gonic/gin"
	"github.com/tolk-project/tolk/edge"
	"github.com/tolk-project/tolk/index"
)

// maxPayload bounds the body of a JSON or form write: settings and
// names, never files.
const maxPayload = 1 << 20

// payload is the body of a write request, read field by field the way
// the reference's serializers read theirs: a JSON object, or form values
// (the reference parses both; wlc sends JSON). Each reader records the
// first problem of its field, in the reference's words, and err returns
// them all, so that one answer lists every field at fault.
type payload struct {
	fields map[string]json.RawMessage // a JSON body
	form   url.Values                 // a form body, when fields is nil
	prefix string                     // of nested fields' attributes: "plural."
	errs   *index.FieldError
}

// readPayload reads the request's body. An empty body is an empty
// object, so that required fields are reported as such.
func readPayload(c *gin.Context) (*payload, error) {
	p := &payload{errs: &index.FieldError{}}
	body, err := io.ReadAll(http.MaxBytesReader(c.Writer, c.Request.Body, maxPayload))
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		return nil, &edge.RequestError{Status: http.StatusRequestEntityTooLarge, Code: "request_too_large", Detail: fmt.Sprintf("The request body is larger than %d bytes.", maxPayload)}
	case err != nil:
		return nil, err
	}
	ctype := c.ContentType()
	switch {
	case len(bytes.TrimSpace(body)) == 0:
		p.fields = map[string]json.RawMessage{}
	case ctype == "application/json" || ctype == "":
		if detail := utf8Error(body); detail != "" {
			return nil, &edge.RequestError{Status: http.StatusBadRequest, Code: "parse_error", Detail: "JSON parse error - " + detail}
		}
		body = markSurrogates(body)
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			return nil, &edge.RequestError{Status: http.StatusBadRequest, Code: "parse_error", Detail: "JSON parse error - " + err.Error()}
		}
		if detail := extraData(body, dec.InputOffset()); detail != "" {
			return nil, &edge.RequestError{Status: http.StatusBadRequest, Code: "parse_error", Detail: "JSON parse error - " + detail}
		}
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, index.FieldErr("non_field_errors", "invalid",
				fmt.Sprintf("Invalid data. Expected a dictionary, but got %s.", jsonKind(v)))
		}
		p.fields = make(map[string]json.RawMessage, len(obj))
		for k, v := range obj {
			raw, _ := json.Marshal(v)
			p.fields[k] = raw
		}
	case ctype == "application/x-www-form-urlencoded":
		if p.form, err = url.ParseQuery(string(body)); err != nil {
			return nil, &edge.RequestError{Status: http.StatusBadRequest, Code: "parse_error", Detail: "Form parse error - " + err.Error()}
		}
	case ctype == "multipart/form-data":
		c.Request.Body = io.NopCloser(bytes.NewReader(body))
		closing := edge.WatchClosing(c.Request)
		err := c.Request.ParseMultipartForm(maxPayload)
		if err == nil {
			err = closing.Check()
		}
		if err != nil {
			return nil, &edge.RequestError{Status: http.StatusBadRequest, Code: "parse_error", Detail: "Multipart form parse error - " + err.Error()}
		}
		p.form = url.Values(c.Request.MultipartForm.Value)
	default:
		return nil, &edge.RequestError{Status: http.StatusUnsupportedMediaType, Code: "unsupported_media_type", Detail: fmt.Sprintf("Unsupported media type %q in request.", c.GetHeader("Content-Type"))}
	}
	return p, nil
}

// extraData describes what follows the JSON value that ends at offset,
// in the words of Python's json module, which the reference's parser
// uses: a body is one value, and "{…}{…}" is not half accepted. It is ""
// when only white space follows.
func extraData(body []byte, offset int64) string {
	rest := body[offset:]
	char := len(body) - len(bytes.TrimLeft(rest, " \t\r\n"))
	if char == len(body) {
		return ""
	}
	line := 1 + bytes.Count(body[:char], []byte("\n"))
	column := char - bytes.LastIndexByte(body[:char], '\n')
	return fmt.Sprintf("Extra data: line %d column %d (char %d)", line, column, char)
}

// utf8Error describes the first byte of body that is not UTF-8 as
// Python's codec does, which the reference's parser decodes JSON with;
// "" when body is UTF-8. Go's decoder would take such bytes for U+FFFD
// and store that in place of what the client meant.
func utf8Error(body []byte) string {
	for i := 0; i < len(body); {
		r, size := utf8.DecodeRune(body[i:])
		if r != utf8.RuneError || size > 1 {
			i += size
			continue
		}
		reason := "invalid start byte"
		if b := body[i]; b >= 0xc2 && b <= 0xf4 {
			reason = "invalid continuation byte"
			if !utf8.FullRune(body[i:]) {
				reason = "unexpected end of data"
			}
		}
		return fmt.Sprintf("'utf-8' codec can't decode byte 0x%02x in position %d: %s", body[i], i, reason)
	}
	return ""
}

// readBody reads the request's body onto a copy of v, so that it is
// validated before any store write: the fields named in required must be
// given (all of a resource's required fields for a create or PUT, none
// for PATCH). It returns the body, for reading again onto the stored
// object inside the write's transaction, and the copy.
func readBody[T any](c *gin.Context, v T, required []string, read func(*payload, *T)) (*payload, T, error) {
	pl, err := readPayload(c)
	if err != nil {
		return nil, v, err
	}
	pl.require(required...)
	read(pl, &v)
	return pl, v, pl.err()
}

// requiredUnless is fields, or none when partial (a PATCH).
func requiredUnless(partial bool, fields ...string) []string {
	if partial {
		return nil
	}
	return fields
}

// jsonKind names a decoded JSON value's type as the reference's messages
// name Python's.
func jsonKind(v any) string {
	switch v.(type) {
	case []any:
		return "list"
	case string:
		return "str"
	case json.Number:
		return "int"
	case bool:
		return "bool"
	}
	return "NoneType"
}

// err returns the problems found, or nil.
func (p *payload) err() error { return p.errs.Err() }

// fail records a problem with the field name.
func (p *payload) fail(name, code, detail string) { p.errs.Add(p.prefix+name, code, detail) }

// fieldError adds the problems of an index.FieldError (nil: none) to
// the payload's.
func (p *payload) fieldError(err error) {
	var fe *index.FieldError
	if !errors.As(err, &fe) {
		return
	}
	for name, prob := range fe.Fields {
		p.fail(name, prob.Code, prob.Detail)
	}
}

// has reports whether the body names the field.
func (p *payload) has(name string) bool {
	if p.fields != nil {
		_, ok := p.fields[name]
		return ok
	}
	return p.form.Has(name)
}

// require records "This field is required." for each name the body
// lacks.
func (p *payload) require(names ...string) {
	for _, n := range names {
		if !p.has(n) {
			p.fail(n, "required", "This field is required.")
		}
	}
}

// value returns the field's JSON value, decoded; a form field is its
// first value as a string. ok is false when the field is absent or null
// (null is recorded as a problem).
func (p *payload) value(name string) (any, bool) {
	if p.fields == nil {
		if !p.form.Has(name) {
			return nil, false
		}
		return p.form.Get(name), true
	}
	raw, ok := p.fields[name]
	if !ok {
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	dec.Decode(&v) // raw was encoded from a decoded value
	if v == nil {
		p.fail(name, "null", "This field may not be null.")
		return nil, false
	}
	return v, true
}

// str reads a text field into dst when present. Numbers become their
// text, as the reference's text fields accept them; surrounding white
// space is trimmed. Unless blank is true, an empty text is a problem.
func (p *payload) str(name string, dst *string, blank bool) {
	v, ok := p.value(name)
	if !ok {
		return
	}
	var s string
	switch v := v.(type) {
	case string:
		s = strings.TrimSpace(v)
	case json.Number:
		s = v.String()
	default:
		p.fail(name, "invalid", "Not a valid string.")
		return
	}
	if s == "" && !blank {
		p.fail(name, "blank", "This field may not be blank.")
		return
	}
	if !p.noNull(name, s) {
		return
	}
	*dst = s
}

// markSurrogates rewrites each escaped UTF-16 surrogate of body that is
// not half of a pair ("\ud800" alone) as the text NUL "U+D800" NUL. Go's
// decoder would read it as U+FFFD; the reference's reads it as the
// surrogate and refuses it in whichever text field holds it, so the mark
// lets noNull do the same. body is returned as it is when it holds none.
func markSurrogates(body []byte) []byte {
	var out []byte
	last, inString := 0, false
	for i := 0; i < len(body); i++ {
		switch c := body[i]; {
		case c == '"':
			inString = !inString
		case c == '\\' && inString:
			r, ok := escapedRune(body, i)
			switch {
			case !ok:
				i++ // an escape of one character, or one that will not parse
			case utf16.IsSurrogate(r) && r < 0xdc00 && isLowSurrogate(body, i+6):
				i += 11 // a pair
			case utf16.IsSurrogate(r):
				out = append(append(out, body[last:i]...), fmt.Sprintf(`\u0000U+%04X\u0000`, r)...)
				last = i + 6
				i += 5
			default:
				i += 5
			}
		}
	}
	if out == nil {
		return body
	}
	return append(out, body[last:]...)
}

// escapedRune reads the \uXXXX escape at body[i:].
func escapedRune(body []byte, i int) (rune, bool) {
	if i+6 > len(body) || body[i+1] != 'u' {
		return 0, false
	}
	n, err := strconv.ParseUint(string(body[i+2:i+6]), 16, 16)
	return rune(n), err == nil
}

// isLowSurrogate reports whether body[i:] starts with the escape of a
// low surrogate.
func isLowSurrogate(body []byte, i int) bool {
	r, ok := escapedRune(body, i)
	return ok && r >= 0xdc00 && r <= 0xdfff
}

// surrogateMark finds a mark of markSurrogates in s.
var surrogateMark = regexp.MustCompile("\x00(U\\+D[89A-F][0-9A-F]{2})\x00")

// noNull records index.NullCharacters on attr (a field, or a list's item) and
// reports false when s holds a NUL character.
//
// A NUL that marks a lone surrogate (markSurrogates) is refused as the
// reference refuses the surrogate: "Surrogate characters are not
// allowed: U+D800." (DRF's ProhibitSurrogateCharactersValidator).
func (p *payload) noNull(attr, s string) bool {
	if !strings.ContainsRune(s, 0) {
		return true
	}
	if m := surrogateMark.FindStringSubmatch(s); m != nil {
		p.fail(attr, "surrogate_characters_not_allowed", "Surrogate characters are not allowed: "+m[1]+".")
		return false
	}
	p.fail(attr, index.NullCharacters.Code, index.NullCharacters.Detail)
	return false
}

// maxLength records a problem when the field, already read into s, is
// longer than n characters.
func (p *payload) maxLength(name, s string, n int) {
	if len([]rune(s)) > n {
		p.fail(name, "max_length", fmt.Sprintf("Ensure this field has no more than %d characters.", n))
	}
}

// choice reads a text field that must be one of choices.
func (p *payload) choice(name string, dst *string, choices []string) {
	var s string
	p.str(name, &s, slices.Contains(choices, ""))
	if !p.has(name) || p.errs.Has(p.prefix+name) {
		return
	}
	if !slices.Contains(choices, s) {
		p.fail(name, "invalid_choice", fmt.Sprintf("%q is not a valid choice.", s))
		return
	}
	*dst = s
}

// boolean reads a boolean field, accepting the spellings the reference
// accepts ("true", "1", "yes", 1, …).
func (p *payload) boolean(name string, dst *bool) {
	v, ok := p.value(name)
	if !ok {
		return
	}
	switch v := v.(type) {
	case bool:
		*dst = v
		return
	case json.Number:
		switch v.String() {
		case "1":
			*dst = true
			return
		case "0":
			*dst = false
			return
		}
	case string:
		switch strings.ToLower(v) {
		case "true", "t", "yes", "y", "on", "1":
			*dst = true
			return
		case "false", "f", "no", "n", "off", "0":
			*dst = false
			return
		}
	}
	p.fail(name, "invalid", "Must be a valid boolean.")
}

// integer reads an integer field, accepting integral numbers and their
// text, within [lo, hi].
func (p *payload) integer(name string, dst *int, lo, hi int) {
	v, ok := p.value(name)
	if !ok {
		return
	}
	text := numberText(v)
	n, err := strconv.Atoi(text)
	if err != nil {
		if f, ferr := strconv.ParseFloat(text, 64); ferr == nil && f == float64(int(f)) {
			n, err = int(f), nil
		}
	}
	switch {
	case err != nil:
		p.fail(name, "invalid", "A valid integer is required.")
	case n < lo:
		p.fail(name, "min_value", fmt.Sprintf("Ensure this value is greater than or equal to %d.", lo))
	case n > hi:
		p.fail(name, "max_value", fmt.Sprintf("Ensure this value is less than or equal to %d.", hi))
	default:
		*dst = n
	}
}

// numberText is a number field's value as text: a JSON number's, or a
// text's trimmed (forms send numbers as texts); "" for anything else.
func numberText(v any) string {
	switch v := v.(type) {
	case json.Number:
		return v.String()
	case string:
		return strings.TrimSpace(v)
	}
	return ""
}

// strList reads a list of texts.
func (p *payload) strList(name string, dst *[]string) {
	v, ok := p.value(name)
	if !ok {
		return
	}
	if p.fields == nil {
		for _, s := range p.form[name] {
			if !p.noNull(name, s) {
				return
			}
		}
		*dst = p.form[name]
		return
	}
	list, ok := v.([]any)
	if !ok {
		p.fail(name, "not_a_list", fmt.Sprintf("Expected a list of items but got type %q.", jsonKind(v)))
		return
	}
	out := make([]string, 0, len(list))
	for _, e := range list {
		s, ok := e.(string)
		if !ok {
			p.fail(name, "invalid", "Not a valid string.")
			return
		}
		if !p.noNull(name, s) {
			return
		}
		out = append(out, s)
	}
	*dst = out
}

// object returns the nested object field name as a payload whose
// problems are recorded under "name.<field>"; ok is false (with the
// problem recorded) when the field is absent, null or not an object.
func (p *payload) object(name string) (*payload, bool) {
	v, ok := p.value(name)
	if !ok {
		return nil, false
	}
	obj, isObj := v.(map[string]any)
	if !isObj || p.fields == nil {
		p.fail(name, "invalid", fmt.Sprintf("Invalid data. Expected a dictionary, but got %s.", jsonKind(v)))
		return nil, false
	}
	sub := &payload{fields: make(map[string]json.RawMessage, len(obj)), prefix: p.prefix + name + ".", errs: p.errs}
	for k, v := range obj {
		raw, _ := json.Marshal(v)
		sub.fields[k] = raw
	}
	return sub, true
}

// noContent answers 204, the reference's answer to a removal.
func noContent(c *gin.Context) {
	c.Status(http.StatusNoContent)
	c.Writer.WriteHeaderNow()
}

// The readers below return what they read instead of storing it: the
// unit, lock, user and repository writes use them.

// lookup returns a field's JSON value, or for a form its values as a JSON
// string (one value) or list (several).
func (p *payload) lookup(name string) (json.RawMessage, bool) {
	if p.fields == nil {
		vs, ok := p.form[name]
		if !ok {
			return nil, false
		}
		var v any = vs
		if len(vs) == 1 {
			v = vs[0]
		}
		b, _ := json.Marshal(v)
		return b, true
	}
	v, ok := p.fields[name]
	return v, ok
}

// present reports a field's value, noting "required" for a required
// field not sent and "null" for a null.
func (p *payload) present(name string, required bool) (json.RawMessage, bool) {
	v, ok := p.lookup(name)
	switch {
	case !ok:
		if required {
			p.fail(name, "required", "This field is required.")
		}
		return nil, false
	case rawKind(v) == "NoneType":
		p.fail(name, "null", "This field may not be null.")
		return nil, false
	}
	return v, true
}

// text reads a string field. Numbers are taken as their text, as the
// reference's CharField does; a blank value is refused unless allowBlank.
func (p *payload) text(name string, required, allowBlank bool) (string, bool) {
	v, ok := p.present(name, required)
	if !ok {
		return "", false
	}
	s, ok := scalarText(v)
	if !ok || rawKind(v) == "bool" {
		p.fail(name, "invalid", "Not a valid string.")
		return "", false
	}
	if s == "" && !allowBlank {
		p.fail(name, "blank", "This field may not be blank.")
		return "", false
	}
	return s, p.noNull(name, s)
}

// scalarText is a JSON string's value or a number's or bool's text.
func scalarText(v json.RawMessage) (string, bool) {
	switch rawKind(v) {
	case "str":
		var s string
		return s, json.Unmarshal(v, &s) == nil
	case "int", "float", "bool":
		return string(bytes.TrimSpace(v)), true
	}
	return "", false
}

// texts reads a list of strings, such as a unit's plural forms. A bare
// string is taken as a list of one, which the reference refuses in JSON
// (not_a_list) and accepts in a form: a client that sends "target": "x"
// means one form. Blank items are the caller's to judge (blankItems).
func (p *payload) texts(name string, required bool) ([]string, bool) {
	v, ok := p.present(name, required)
	if !ok {
		return nil, false
	}
	if kind := rawKind(v); kind == "str" {
		var s string
		if json.Unmarshal(v, &s) != nil {
			p.fail(name, "invalid", "Not a valid string.")
			return nil, false
		}
		return []string{s}, p.noNull(name, s)
	} else if kind != "list" {
		p.fail(name, "not_a_list", `Expected a list of items but got type "`+kind+`".`)
		return nil, false
	}
	var items []json.RawMessage
	if err := json.Unmarshal(v, &items); err != nil {
		p.fail(name, "not_a_list", "Expected a list of items but got type \"list\".")
		return nil, false
	}
	out := make([]string, len(items))
	good := true
	for i, it := range items {
		attr := name + "." + strconv.Itoa(i)
		s, ok := scalarText(it)
		switch {
		case rawKind(it) == "NoneType":
			p.fail(attr, "null", "This field may not be null.")
		case !ok || rawKind(it) == "bool":
			p.fail(attr, "invalid", "Not a valid string.")
		case !p.noNull(attr, s):
		default:
			out[i] = s
			continue
		}
		good = false
	}
	return out, good
}

// blankItems notes each blank item of a list read by texts.
func (p *payload) blankItems(name string, items []string) {
	for i, s := range items {
		if s == "" {
			p.fail(name+"."+strconv.Itoa(i), "blank", "This field may not be blank.")
		}
	}
}

// intChoice reads an integer that must be one of choices; numbers and
// numeric strings are both accepted, as the reference's ChoiceField does.
func (p *payload) intChoice(name string, choices []int) (int, bool) {
	v, ok := p.present(name, false)
	if !ok {
		return 0, false
	}
	s, _ := scalarText(v)
	if rawKind(v) == "bool" {
		s = strings.ToUpper(s[:1]) + s[1:] // the reference prints Python's True
	}
	if n, err := strconv.Atoi(s); err == nil && rawKind(v) != "bool" && rawKind(v) != "float" {
		for _, c := range choices {
			if n == c {
				return n, true
			}
		}
	}
	if s == "" {
		s = string(bytes.TrimSpace(v))
	}
	p.fail(name, "invalid_choice", `"`+s+`" is not a valid choice.`)
	return 0, false
}

// flag is boolean returning the value: it reads a boolean given as JSON
// true/false, the integers 1/0 (what wlc sends) or the strings the
// reference's BooleanField takes, and reports whether one was read.
func (p *payload) flag(name string, required bool) (bool, bool) {
	if required {
		p.require(name)
	}
	if !p.has(name) || p.errs.Has(p.prefix+name) {
		return false, false
	}
	var v bool
	p.boolean(name, &v)
	return v, !p.errs.Has(p.prefix + name)
}

// isNull reports whether the field is given as JSON null (which only the
// nullable fields accept; forms have no null).
func (p *payload) isNull(name string) bool {
	v, ok := p.lookup(name)
	return ok && p.fields != nil && rawKind(v) == "NoneType"
}

// rawKind names a raw JSON value's type as the reference (Python) does in
// its messages.
func rawKind(v json.RawMessage) string {
	switch b := bytes.TrimSpace(v); {
	case len(b) == 0:
		return "NoneType"
	case b[0] == '{':
		return "dict"
	case b[0] == '[':
		return "list"
	case b[0] == '"':
		return "str"
	case b[0] == 't' || b[0] == 'f':
		return "bool"
	case b[0] == 'n':
		return "NoneType"
	case bytes.ContainsAny(b, ".eE"):
		return "float"
	}
	return "int"
}
