package servertest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// Response is a finished request.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// NoRedirects shows tests the redirect itself rather than its target.
var NoRedirects = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error {
	return http.ErrUseLastResponse
}}

func Do(tb testing.TB, method, url string, header http.Header) Response {
	tb.Helper()
	return DoBody(tb, method, url, header, nil)
}

// DoBody is do with a request body.
func DoBody(tb testing.TB, method, url string, header http.Header, body io.Reader) Response {
	tb.Helper()
	req, err := http.NewRequest(method, url, body)
	if err != nil {
		tb.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := NoRedirects.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatal(err)
	}
	return Response{Status: resp.StatusCode, Header: resp.Header, Body: data}
}

// GetObject GETs url, requires a 200 and decodes the body keeping
// numbers exact.
func GetObject(tb testing.TB, url string) map[string]any {
	tb.Helper()
	return GetObjectAs(tb, url, "")
}

// GetObjectAs is getObject with the given Authorization header ("" for
// none).
func GetObjectAs(tb testing.TB, url, auth string) map[string]any {
	tb.Helper()
	var h http.Header
	if auth != "" {
		h = http.Header{"Authorization": {auth}}
	}
	r := Do(tb, http.MethodGet, url, h)
	if r.Status != http.StatusOK {
		tb.Fatalf("GET %s: status %d, body %s", url, r.Status, r.Body)
	}
	return Decode(tb, r.Body)
}

func Decode(tb testing.TB, body []byte) map[string]any {
	tb.Helper()
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var out map[string]any
	if err := dec.Decode(&out); err != nil {
		tb.Fatalf("decode %s: %v", body, err)
	}
	return out
}

var TimestampRE = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$`)

// KindOf names a decoded JSON value's type in the vocabulary of shapes.
func KindOf(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return "bool"
	case json.Number:
		if strings.ContainsAny(string(v), ".eE") {
			return "number"
		}
		return "int"
	case string:
		switch {
		case strings.HasPrefix(v, "http://") || strings.HasPrefix(v, "https://"):
			return "url"
		case TimestampRE.MatchString(v):
			return "timestamp"
		}
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

// Shape maps every field an object must have (and no other) to the kinds
// its value may have: "int", "number" (any JSON number), "string", "url",
// "timestamp", "bool", "array", "strings", "object", "null", joined by
// "|" when several are allowed. A "string" field accepts any string.
type Shape map[string]string

func CheckShape(tb testing.TB, what string, obj map[string]any, want Shape) {
	tb.Helper()
	for k, kinds := range want {
		v, ok := obj[k]
		if !ok {
			tb.Errorf("%s: field %q missing", what, k)
			continue
		}
		if !kindMatches(v, kinds) {
			tb.Errorf("%s: field %q = %#v (%s), want %s", what, k, v, KindOf(v), kinds)
		}
	}
	var extra []string
	for k := range obj {
		if _, ok := want[k]; !ok {
			extra = append(extra, k)
		}
	}
	sort.Strings(extra)
	if len(extra) > 0 {
		tb.Errorf("%s: unexpected fields %v", what, extra)
	}
}

func kindMatches(v any, kinds string) bool {
	got := KindOf(v)
	for _, k := range strings.Split(kinds, "|") {
		switch {
		case k == got:
			return true
		case k == "number" && got == "int":
			return true
		case k == "string" && (got == "url" || got == "timestamp"):
			return true
		case k == "strings" && got == "array":
			for _, e := range v.([]any) {
				if _, ok := e.(string); !ok {
					return false
				}
			}
			return true
		}
	}
	return false
}

// Strs collects every string in a decoded JSON value.
func Strs(v any, out *[]string) {
	switch v := v.(type) {
	case string:
		*out = append(*out, v)
	case []any:
		for _, e := range v {
			Strs(e, out)
		}
	case map[string]any:
		for _, e := range v {
			Strs(e, out)
		}
	}
}

func Obj(tb testing.TB, v any) map[string]any {
	tb.Helper()
	m, ok := v.(map[string]any)
	if !ok {
		tb.Fatalf("%#v is not an object", v)
	}
	return m
}

func Results(tb testing.TB, list map[string]any) []map[string]any {
	tb.Helper()
	arr, ok := list["results"].([]any)
	if !ok {
		tb.Fatalf("results = %#v, want an array", list["results"])
	}
	out := make([]map[string]any, len(arr))
	for i, e := range arr {
		out[i] = Obj(tb, e)
	}
	return out
}

// Num returns a decoded JSON number's text.
func Num(v any) string {
	if n, ok := v.(json.Number); ok {
		return string(n)
	}
	return fmt.Sprintf("<%T %v>", v, v)
}

// DoJSON sends body (marshalled unless it is already []byte) as JSON with
// the given Authorization header ("" for none).
func DoJSON(tb testing.TB, method, url, auth string, body any) Response {
	tb.Helper()
	data, ok := body.([]byte)
	if !ok && body != nil {
		var err error
		if data, err = json.Marshal(body); err != nil {
			tb.Fatal(err)
		}
	}
	h := http.Header{}
	if body != nil {
		h.Set("Content-Type", "application/json")
	}
	if auth != "" {
		h.Set("Authorization", auth)
	}
	return DoBody(tb, method, url, h, bytes.NewReader(data))
}

const HTMLType = "text/html; charset=utf-8"

// GetPage GETs a human page and checks it is an HTML page with status.
func GetPage(tb testing.TB, url string, status int) string {
	tb.Helper()
	r := Do(tb, http.MethodGet, url, nil)
	if r.Status != status || r.Header.Get("Content-Type") != HTMLType {
		tb.Errorf("GET %s = %d %q, want %d %s; body %s", url, r.Status, r.Header.Get("Content-Type"),
			status, HTMLType, r.Body)
	}
	if !strings.HasPrefix(string(r.Body), "<!DOCTYPE html>") {
		tb.Errorf("GET %s: not an HTML page: %.80s", url, r.Body)
	}
	return string(r.Body)
}
