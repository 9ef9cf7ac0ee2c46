package api_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/gin-gonic/gin"
	"github.com/tolk-project/tolk/edge"
	"github.com/tolk-project/tolk/internal/servertest"
)

// Hostile input on every write route (issue 9, item 9): whatever a
// client sends, the answer is never a 5xx, a refusal is the reference's
// envelope, nothing reaches the log as an error or a panic, and a
// refused write stores nothing. The routes come from the router, so a
// new one is covered as soon as the permission matrix has a row for it;
// each route's well-formed body is the matrix row's, sent by a
// superuser so that permissions never hide a validation path.

// hostileCaller sends every hostile request: the matrix's superuser, so
// that no permission hides a validation path.
var hostileCaller = corePrincipals[slices.IndexFunc(corePrincipals, func(p matrixPrincipal) bool { return p.name == "superuser" })]

// hostileSeed fixes the generated values, so that a failure reproduces.
const hostileSeed = 9

// hostileRequest is one request of a battery. mustRefuse is set where
// no reading of the body could accept it (a body that is not JSON, not
// an object, too large or of a media type the route does not read).
type hostileRequest struct {
	name        string
	contentType string
	body        []byte
	mustRefuse  bool
}

// field is the dotted name of the field holding the request's hostile
// value, which a validation error must name: what its name says before
// " = "; "" for a request that is hostile as a whole.
func (req hostileRequest) field() string {
	field, _, ok := strings.Cut(req.name, " = ")
	if !ok {
		return ""
	}
	return field
}

// hostileRoute is a write route with what its requests are made from.
type hostileRoute struct {
	row  *matrixRow
	base map[string]any // the row's JSON body as a superuser sends it; nil for none
}

// hostileRoutes lists the router's write routes, each with the first
// matrix row that sends it.
func hostileRoutes(tb testing.TB) []hostileRoute {
	tb.Helper()
	engine, ok := servertest.Handler(servertest.MustOpenDB(tb), servertest.Options{}).(interface{ Routes() gin.RoutesInfo })
	if !ok {
		tb.Fatal("the handler does not list its routes")
	}
	var out []hostileRoute
	for _, ri := range engine.Routes() {
		if ri.Method == "GET" || ri.Method == "HEAD" || ri.Method == "OPTIONS" || !strings.HasPrefix(ri.Path, "/api/") {
			continue
		}
		i := slices.IndexFunc(matrixRows, func(r matrixRow) bool { return r.method == ri.Method && r.route == ri.Path })
		if i < 0 {
			tb.Fatalf("%s %s: no permission matrix row to build hostile bodies from", ri.Method, ri.Path)
		}
		out = append(out, hostileRoute{row: &matrixRows[i]})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].row.name() < out[j].row.name() })
	return out
}

// hostileEnv is a matrix environment a battery runs in, rebuilt when a
// request that was accepted removed or moved the route's object.
type hostileEnv struct {
	*matrixEnv
	root string // the superuser's Authorization header
	logs int    // how much of the server's log has been checked
}

func mustHostileEnv(t testing.TB) *hostileEnv {
	t.Helper()
	e := mustMatrixEnv(t, false)
	return &hostileEnv{matrixEnv: e, root: e.auth["root"]}
}

// baseBody is the row's body for the superuser, with the environment's
// placeholders filled.
func (e *hostileEnv) baseBody(t *testing.T, r *matrixRow) map[string]any {
	t.Helper()
	if r.body == nil {
		return nil
	}
	b, err := json.Marshal(r.body(hostileCaller))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(e.vars.Replace(string(b))), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func (e *hostileEnv) url(r *matrixRow) string {
	return e.srv.URL + e.vars.Replace(strings.ReplaceAll(r.path(), "{self}", "root"))
}

// snapshot is what a refused write must leave as it was: the number of
// changes, every statistic of the demo project, and what a GET of the
// route's own path answers.
func (e *hostileEnv) snapshot(t *testing.T, r *matrixRow) string {
	t.Helper()
	h := http.Header{"Authorization": {e.root}}
	var b strings.Builder
	for _, path := range []string{"/api/changes/?page_size=1", "/api/projects/demo/statistics/",
		"/api/components/demo/app/statistics/", "/api/components/demo/app/"} {
		got := servertest.Do(t, "GET", e.srv.URL+path, h)
		fmt.Fprintf(&b, "GET %s: %d %s\n", path, got.Status, got.Body)
	}
	got := servertest.Do(t, "GET", e.url(r), h)
	fmt.Fprintf(&b, "GET %s: %d %s\n", r.path(), got.Status, got.Body)
	return b.String()
}

// checkLog fails on any error or panic logged since the last check.
func (e *hostileEnv) checkLog(t *testing.T, what string) {
	t.Helper()
	logs := e.srv.Logs.String()
	fresh := logs[e.logs:]
	e.logs = len(logs)
	for _, line := range strings.Split(fresh, "\n") {
		if strings.Contains(line, `"level":"ERROR"`) || strings.Contains(line, "panic") {
			t.Errorf("%s: log: %.2000s", what, line)
		}
	}
}

// send makes one hostile request as the superuser.
func (e *hostileEnv) send(t *testing.T, r *matrixRow, req hostileRequest) servertest.Response {
	t.Helper()
	h := http.Header{"Authorization": {e.root}}
	if req.contentType != "" {
		h.Set("Content-Type", req.contentType)
	}
	return servertest.DoBody(t, r.method, e.url(r), h, bytes.NewReader(req.body))
}

// checkHostile asserts what every answer to a hostile request must be,
// and reports whether the request was refused.
func checkHostile(t *testing.T, what string, req hostileRequest, got servertest.Response) bool {
	t.Helper()
	switch {
	case got.Status >= 500:
		t.Errorf("%s = %d %.500s", what, got.Status, got.Body)
		return true
	case got.Status < 400:
		if req.mustRefuse {
			t.Errorf("%s = %d %.500s, want a 4xx", what, got.Status, got.Body)
		}
		return false
	}
	checkEnvelope(t, what, got)
	checkAttr(t, what, req.field(), got)
	return true
}

// checkAttr fails when a validation error of a request whose hostile
// value is in field names neither that field, nor one within it, nor
// the object as a whole: a nested field's problem is reported on its
// dotted name ("plural.number"), not on its parent or a sibling.
func checkAttr(t *testing.T, what, field string, got servertest.Response) {
	t.Helper()
	var body struct {
		Type   string `json:"type"`
		Errors []struct {
			Attr *string `json:"attr"`
		} `json:"errors"`
	}
	if field == "" || json.Unmarshal(got.Body, &body) != nil || body.Type != "validation_error" {
		return
	}
	for _, e := range body.Errors {
		// The reference reports some problems of a whole object, such
		// as a string that already exists, as non_field_errors.
		if e.Attr != nil && (*e.Attr == field || strings.HasPrefix(*e.Attr, field+".") || *e.Attr == "non_field_errors") {
			return
		}
	}
	t.Errorf("%s = %d %.500s: no error names %s", what, got.Status, got.Body, field)
}

// checkEnvelope requires the reference's error envelope: a type and
// errors each with a code, a detail and an attr (null or a name).
func checkEnvelope(tb testing.TB, what string, r servertest.Response) {
	tb.Helper()
	if ct := r.Header.Get("Content-Type"); ct != "application/json" {
		tb.Errorf("%s: Content-Type %q", what, ct)
	}
	var body struct {
		Type   string                       `json:"type"`
		Errors []map[string]json.RawMessage `json:"errors"`
	}
	dec := json.NewDecoder(bytes.NewReader(r.Body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&body); err != nil {
		tb.Errorf("%s: body %.500q: %v", what, r.Body, err)
		return
	}
	if body.Type != "client_error" && body.Type != "validation_error" {
		tb.Errorf("%s: type %q in %.500s", what, body.Type, r.Body)
	}
	if len(body.Errors) == 0 {
		tb.Errorf("%s: no errors in %.500s", what, r.Body)
	}
	for _, e := range body.Errors {
		var code, detail string
		var attr *string
		if len(e) != 3 || json.Unmarshal(e["code"], &code) != nil || json.Unmarshal(e["detail"], &detail) != nil ||
			json.Unmarshal(e["attr"], &attr) != nil || code == "" || detail == "" || (attr != nil && *attr == "") {
			tb.Errorf("%s: error entry %v in %.500s", what, e, r.Body)
		}
	}
}

// hostileValue is a raw JSON value to put in place of a field.
type hostileValue struct{ name, raw string }

// refusedByEvery names the hostile values every field must refuse.
var refusedByEvery = map[string]bool{"escaped NUL": true, "raw NUL": true, "NUL in a list": true,
	"string beyond the body limit": true, "invalid UTF-8": true, "invalid UTF-8 in a list": true,
	"lone surrogate": true}

// hostileValues are the values to put in place of a field: every JSON
// type, strings with NUL bytes and invalid UTF-8, huge numbers and
// strings, deep nesting; then a few drawn from rng. No field takes a
// NUL character, which the reference's CharField refuses.
func hostileValues(rng *rand.Rand) []hostileValue {
	deep := strings.Repeat("[", 10000) + strings.Repeat("]", 10000)
	deepObj := strings.Repeat(`{"a":`, 10000) + "1" + strings.Repeat("}", 10000)
	vals := []hostileValue{
		{"string", `"hostile"`}, {"empty string", `""`}, {"spaces", `"   "`},
		{"zero", `0`}, {"negative", `-1`}, {"integer", `42`}, {"float", `1.5`},
		{"min int64 - 1", `-9223372036854775809`}, {"huge integer", `99999999999999999999999`},
		{"1e308", `1e308`}, {"-1e400", `-1e400`}, {"true", `true`}, {"false", `false`}, {"null", `null`},
		{"empty list", `[]`}, {"list", `["x"]`}, {"list of null", `[null]`}, {"list of numbers", `[1, 2]`},
		{"list of lists", `[["x"]]`}, {"empty object", `{}`}, {"object", `{"a": 1}`},
		{"escaped NUL", `"a\u0000b"`}, {"raw NUL", "\"a\x00b\""}, {"invalid UTF-8", "\"\xff\xfe\xfd\""},
		{"lone surrogate", `"\ud800"`}, {"invalid UTF-8 in a list", "[\"\xc3\x28\"]"},
		{"NUL in a list", `["\u0000"]`},
		{"string within the body limit", `"` + strings.Repeat("x", 1<<20-4096) + `"`},
		{"string beyond the body limit", `"` + strings.Repeat("y", 2<<20) + `"`},
		{"list nested 10000 deep", deep}, {"object nested 10000 deep", deepObj},
	}
	for i := range 4 {
		b := make([]byte, 1+rng.IntN(40))
		for j := range b {
			b[j] = byte(rng.IntN(256))
		}
		s, _ := json.Marshal(string(b)) // valid JSON; invalid UTF-8 becomes U+FFFD
		vals = append(vals, hostileValue{"random text " + strconv.Itoa(i), string(s)},
			hostileValue{"random integer " + strconv.Itoa(i), strconv.FormatInt(rng.Int64()-rng.Int64(), 10)})
	}
	return vals
}

// hostilePlaceholder marks where a hostile value goes in a marshalled
// body.
const hostilePlaceholder = "\x01hostile\x01"

// fieldPaths lists the base body's fields, nested ones dotted.
func fieldPaths(m map[string]any, prefix string) []string {
	var out []string
	for k, v := range m {
		out = append(out, prefix+k)
		if sub, ok := v.(map[string]any); ok {
			out = append(out, fieldPaths(sub, prefix+k+".")...)
		}
	}
	sort.Strings(out)
	return out
}

// withField is a JSON body: base with the field at the dotted path
// replaced by raw (which need not be valid JSON).
func withField(base map[string]any, path, raw string) []byte {
	var set func(m map[string]any, keys []string) map[string]any
	set = func(m map[string]any, keys []string) map[string]any {
		out := make(map[string]any, len(m))
		for k, v := range m {
			out[k] = v
		}
		if len(keys) == 1 {
			out[keys[0]] = hostilePlaceholder
		} else {
			sub, _ := m[keys[0]].(map[string]any)
			out[keys[0]] = set(sub, keys[1:])
		}
		return out
	}
	b, err := json.Marshal(set(base, strings.Split(path, ".")))
	if err != nil {
		panic(err)
	}
	quoted, _ := json.Marshal(hostilePlaceholder)
	return bytes.Replace(b, quoted, []byte(raw), 1)
}

// jsonBattery is the hostile requests of a route that reads JSON.
func jsonBattery(rng *rand.Rand, base map[string]any) []hostileRequest {
	const ct = "application/json"
	baseJSON, _ := json.Marshal(base)
	reqs := []hostileRequest{
		{"invalid JSON", ct, []byte(`{"name": `), true},
		{"trailing garbage", ct, append(slices.Clone(baseJSON), "}{"...), true},
		{"a list", ct, []byte(`[]`), true},
		{"a list of the body", ct, []byte("[" + string(baseJSON) + "]"), true},
		{"a string", ct, []byte(`"hostile"`), true},
		{"a number", ct, []byte(`42`), true},
		{"null", ct, []byte(`null`), true},
		{"true", ct, []byte(`true`), true},
		{"list nested 10000 deep", ct, []byte(strings.Repeat("[", 10000) + strings.Repeat("]", 10000)), true},
		// An unknown field, however deep, is ignored; beyond the
		// decoder's depth the body does not parse.
		{"object nested 10000 deep", ct, []byte(strings.Repeat(`{"a":`, 10000) + "1" + strings.Repeat("}", 10000)), false},
		{"object nested 100000 deep", ct, []byte(strings.Repeat(`{"a":`, 100000) + "1" + strings.Repeat("}", 100000)), true},
		{"body beyond the limit", ct, []byte(`{"x": "` + strings.Repeat("z", 2<<20) + `"}`), true},
		{"NUL bytes", ct, []byte("\x00\x00\x00"), true},
		{"invalid UTF-8", ct, []byte("\xff\xfe{}"), true},
		{"unknown content type", "application/x-hostile", baseJSON, true},
		{"XML", "application/xml", []byte(`<name>x</name>`), true},
		{"broken content type", "application/json; charset", baseJSON, false},
		{"empty body", ct, nil, false},
		{"empty body, no content type", "", nil, false},
		{"unknown field", ct, withField(base, "\x02unknown", `{"a": [1, null]}`), false},
		{"repeated key", ct, append([]byte(`{"x": 1, "x": [2],`), baseJSON[1:]...), false},
	}
	for _, path := range fieldPaths(base, "") {
		for _, v := range hostileValues(rng) {
			reqs = append(reqs, hostileRequest{name: path + " = " + v.name, contentType: ct, body: withField(base, path, v.raw),
				mustRefuse: refusedByEvery[v.name]})
		}
	}
	reqs = append(reqs, formBattery(base)...)
	return reqs
}

// formBattery sends the base body as forms, every field twice with
// different values, once URL-encoded and once as multipart.
func formBattery(base map[string]any) []hostileRequest {
	var urlForm []string
	var mp bytes.Buffer
	mw := multipart.NewWriter(&mp)
	for _, k := range fieldPaths(base, "") {
		v := fmt.Sprint(base[k])
		for _, val := range []string{v, v + "\x00", "\xff"} {
			urlForm = append(urlForm, k+"="+val)
			mw.WriteField(k, val)
		}
	}
	mw.Close()
	return []hostileRequest{
		{"form with repeated fields", "application/x-www-form-urlencoded", []byte(strings.Join(urlForm, "&")), false},
		{"form with a broken escape", "application/x-www-form-urlencoded", []byte("name=%zz&slug=%"), false},
		{"multipart with repeated fields", mw.FormDataContentType(), mp.Bytes(), false},
		{"multipart without a boundary", "multipart/form-data", mp.Bytes(), false},
		{"truncated multipart", mw.FormDataContentType(), mp.Bytes()[:mp.Len()/2], true},
		cut("multipart cut inside the headers of a field", hostileRequest{contentType: mw.FormDataContentType(),
			body: mp.Bytes()}, "Content-Disposition"),
	}
}

// multipartBody builds an upload: fields in order (name, value), then
// files (field name, file name, content).
func multipartBody(fields []string, files ...[3]string) hostileRequest {
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	for i := 0; i+1 < len(fields); i += 2 {
		mw.WriteField(fields[i], fields[i+1])
	}
	for _, f := range files {
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", fmt.Sprintf(`form-data; name=%q; filename=%q`, f[0], f[1]))
		h.Set("Content-Type", "application/octet-stream")
		w, _ := mw.CreatePart(h)
		w.Write([]byte(f[2]))
	}
	mw.Close()
	return hostileRequest{contentType: mw.FormDataContentType(), body: b.Bytes()}
}

// cut is req's body cut where the last occurrence of at begins, or in
// half when at does not occur; it must be refused.
func cut(name string, req hostileRequest, at string) hostileRequest {
	req.name, req.mustRefuse = name, true
	i := bytes.LastIndex(req.body, []byte(at))
	if i < 0 {
		i = len(req.body) / 2
	}
	req.body = req.body[:i]
	return req
}

// uploadBattery is the hostile requests of a file upload.
func uploadBattery(rng *rand.Rand, file string) []hostileRequest {
	named := func(name string, req hostileRequest, refuse bool) hostileRequest {
		req.name, req.mustRefuse = name, refuse
		return req
	}
	good := [3]string{"file", "de.json", file}
	reqs := []hostileRequest{
		named("no file", multipartBody([]string{"method", "translate"}), true),
		named("file as a plain field", multipartBody([]string{"method", "translate", "file", file}), true),
		named("empty file", multipartBody([]string{"method", "translate"}, [3]string{"file", "de.json", ""}), true),
		named("two files", multipartBody([]string{"method", "translate"}, good, [3]string{"file", "other.json", "{"}), false),
		named("two file fields", multipartBody([]string{"method", "translate"}, good, [3]string{"file2", "x.json", file}), false),
		named("huge file name", multipartBody(nil, [3]string{"file", strings.Repeat("n", 200<<10) + ".json", file}), false),
		named("file name with NUL and invalid UTF-8", multipartBody(nil, [3]string{"file", "a\x00\xff.json", file}), false),
		named("file of NUL bytes", multipartBody(nil, [3]string{"file", "de.json", "\x00\x00\x00"}), true),
		named("file of invalid UTF-8", multipartBody(nil, [3]string{"file", "de.json", "{\"quit\": \"\xff\xfe\"}"}), false),
		named("file nested 10000 deep", multipartBody(nil, [3]string{"file", "de.json",
			`{"a":` + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + "}"}), true),
		named("file beyond the limit", multipartBody(nil, [3]string{"file", "de.json",
			`{"quit": "` + strings.Repeat("q", edge.DefaultMaxUploadBytes) + `"}`}), true),
		named("file not JSON", multipartBody(nil, [3]string{"file", "de.json", "<xml/>"}), true),
		named("repeated fields", multipartBody([]string{"method", "translate", "method", "replace", "conflicts", "ignore",
			"conflicts", "replace-approved", "fuzzy", "", "fuzzy", "approve"}, good), false),
		{"JSON body", "application/json", []byte(`{"method": "translate", "file": "x"}`), true},
		{"URL-encoded body", "application/x-www-form-urlencoded", []byte("method=translate&file=x"), true},
		{"empty body", "", nil, true},
		{"multipart without a boundary", "multipart/form-data", multipartBody(nil, good).body, true},
		{"truncated multipart", multipartBody(nil, good).contentType, multipartBody(nil, good).body[:40], true},
		cut("cut before its closing boundary", multipartBody([]string{"method", "translate"}, good), "--\r\n"),
		// Cut inside the headers of the part after the file, which Go's
		// multipart reader takes for the end of the form.
		cut("cut inside the headers of a field", multipartBody([]string{"method", "translate"}, good,
			[3]string{"conflicts", "c.txt", "replace-translated"}), `filename="c.txt"`),
		{"unknown content type", "application/x-hostile", []byte(file), true},
	}
	values := []string{"", "\x00", "\xff\xfe", "-1", "99999999999999999999", "1e308", "true", "null", "[]", "{}",
		strings.Repeat("v", 60<<10), strings.Repeat("w", 70<<10), strconv.Itoa(rng.IntN(1 << 30))}
	for _, field := range []string{"method", "conflicts", "fuzzy", "author_name", "author_email", "overwrite"} {
		for i, v := range values {
			reqs = append(reqs, named(fmt.Sprintf("%s = value %d", field, i),
				multipartBody([]string{"method", "translate", field, v}, good), false))
		}
	}
	return reqs
}

// battery is the hostile requests of route r.
func (r hostileRoute) battery(rng *rand.Rand) []hostileRequest {
	switch {
	case r.row.upload != "":
		return uploadBattery(rng, r.row.upload)
	case r.base != nil:
		return jsonBattery(rng, r.base)
	}
	// A route that reads no body must ignore any.
	var reqs []hostileRequest
	for _, req := range jsonBattery(rng, map[string]any{})[:16] {
		req.mustRefuse = false
		reqs = append(reqs, req)
	}
	return reqs
}

// runHostile sends req on route r in e and checks the answer, the log
// and, for a refusal, that nothing was stored. It returns the snapshot
// to compare the next request with, the answer's status and whether the
// request was refused.
func (e *hostileEnv) runHostile(t *testing.T, r *matrixRow, req hostileRequest, before string) (string, int, bool) {
	t.Helper()
	what := r.name() + " with " + req.name
	got := e.send(t, r, req)
	refused := checkHostile(t, what, req, got)
	if !refused {
		// A component created imports in the background; its task
		// must be done before the next request is judged.
		var created struct {
			TaskURL string `json:"task_url"`
		}
		if json.Unmarshal(got.Body, &created) == nil && created.TaskURL != "" {
			waitTask(t, created.TaskURL)
		}
	}
	e.checkLog(t, what)
	after := e.snapshot(t, r)
	if refused && after != before {
		t.Errorf("%s = %d %.300s stored something:\nbefore:\n%.3000s\nafter:\n%.3000s", what, got.Status, got.Body, before, after)
	}
	return after, got.Status, refused
}

// TestHostileWrites sends every write route its battery of hostile
// bodies. An accepted request may create, remove or rename an object;
// the environment is then rebuilt for the next.
func TestHostileWrites(t *testing.T) {
	if testing.Short() {
		t.Skip("thousands of requests")
	}
	for _, r := range hostileRoutes(t) {
		t.Run(r.row.name(), func(t *testing.T) {
			t.Parallel()
			e := mustHostileEnv(t)
			r.base = e.baseBody(t, r.row)
			rng := rand.New(rand.NewPCG(hostileSeed, uint64(len(r.row.name()))))
			before := e.snapshot(t, r.row)
			objectOK := strings.Contains(before, "GET "+r.row.path()+": 200")
			statuses := map[int]int{}
			for _, req := range r.battery(rng) {
				var refused bool
				var status int
				before, status, refused = e.runHostile(t, r.row, req, before)
				statuses[status]++
				if !refused {
					t.Logf("accepted: %.200s = %d", req.name, status)
				}
				// An object created (POST units/ answers 200) takes its
				// name, and one removed or renamed its path, from the
				// requests after it.
				if !refused && (r.row.method == "POST" || objectOK && !strings.Contains(before, "GET "+r.row.path()+": 200")) {
					// The one replaced is closed now: a route accepting
					// dozens of bodies would otherwise hold dozens of
					// PostgreSQL connection pools at once, beside the
					// other routes' (the server allows 400 connections),
					// and its index reused by the next.
					e.release(t)
					e = mustHostileEnv(t)
					r.base = e.baseBody(t, r.row)
					before = e.snapshot(t, r.row)
				}
			}
			t.Logf("answers by status: %v", statuses)
		})
	}
}

// FuzzWriteBodies sends fuzzed JSON bodies to every write route as a
// superuser, with the assertions of TestHostileWrites. Each worker keeps
// one environment, so accepted writes accumulate; a refusal must still
// store nothing.
func FuzzWriteBodies(f *testing.F) {
	routes := hostileRoutes(f)
	for i, r := range routes {
		if r.row.body != nil {
			b, _ := json.Marshal(r.row.body(hostileCaller))
			f.Add(uint8(i), b)
		}
	}
	f.Add(uint8(0), []byte(`{"name": null, "slug": [], "web": {"a": 1e999}}`))
	f.Add(uint8(1), []byte("\xff\x00"))
	e := mustHostileEnv(f)
	f.Fuzz(func(t *testing.T, route uint8, body []byte) {
		r := routes[int(route)%len(routes)].row
		req := hostileRequest{name: fmt.Sprintf("%.100q", body), contentType: "application/json", body: body}
		var js any
		req.mustRefuse = r.body != nil && r.upload == "" && json.Unmarshal(body, &js) != nil && len(bytes.TrimSpace(body)) > 0
		e.runHostile(t, r, req, e.snapshot(t, r))
	})
}

// TestJSONExtraData: a body is one JSON value. What follows it is
// refused in the words of the reference's parser (Python's json), and
// the value before it is not applied.
func TestJSONExtraData(t *testing.T) {
	e := mustHostileEnv(t)
	url := e.srv.URL + "/api/projects/demo/"
	got := servertest.DoJSON(t, "PATCH", url, e.root, []byte("{\"instructions\": \"x\"} {}"))
	wantResponse(t, "PATCH with extra data", got, http.StatusBadRequest, `{"type":"client_error","errors":[{"code":"parse_error",`+
		`"detail":"JSON parse error - Extra data: line 1 column 23 (char 22)","attr":null}]}`)
	got = servertest.DoJSON(t, "PATCH", url, e.root, []byte("{\"instructions\": \"x\"}\n\n  1 \n"))
	wantResponse(t, "PATCH with extra data", got, http.StatusBadRequest, `{"type":"client_error","errors":[{"code":"parse_error",`+
		`"detail":"JSON parse error - Extra data: line 3 column 3 (char 25)","attr":null}]}`)
	if p := servertest.GetObjectAs(t, url, e.root); p["instructions"] != "" {
		t.Errorf("instructions = %q after refused PATCHes", p["instructions"])
	}
	wantResponse(t, "PATCH with trailing white space", servertest.DoJSON(t, "PATCH", url, e.root, []byte("{\"instructions\": \"y\"}\r\n\t ")),
		http.StatusOK, "")
}

// TestMultipartCutShort: a multipart body that ends inside a part's
// headers is refused, where Go's reader would take it for a shorter
// form and the upload would run without the fields after the cut.
func TestMultipartCutShort(t *testing.T) {
	e := mustHostileEnv(t)
	up := cut("", multipartBody([]string{"method", "translate"}, [3]string{"file", "de.json", matrixUpload},
		[3]string{"conflicts", "c.txt", "replace-translated"}), `filename="c.txt"`)
	got := e.send(t, &matrixRow{method: "POST", route: translationRoute + "file/"}, up)
	wantResponse(t, "upload cut short", got, http.StatusBadRequest, `{"type":"validation_error","errors":[{"code":"invalid",`+
		`"detail":"Multipart form parse error - the body ends before its closing boundary","attr":null}]}`)
	form := cut("", multipartBody([]string{"instructions", "Be kind.", "web", "https://example.net/"}), `name="web"`)
	got = e.send(t, &matrixRow{method: "PATCH", route: "/api/projects/:project/"}, form)
	wantResponse(t, "PATCH cut short", got, http.StatusBadRequest, `{"type":"client_error","errors":[{"code":"parse_error",`+
		`"detail":"Multipart form parse error - the body ends before its closing boundary","attr":null}]}`)
}

// TestInvalidUTF8: a JSON body that is not UTF-8 does not parse, in the
// words of the reference's parser (Python's codec), rather than reaching
// the index with U+FFFD in place of what was sent.
func TestInvalidUTF8(t *testing.T) {
	e := mustHostileEnv(t)
	url := e.srv.URL + "/api/projects/demo/"
	for body, detail := range map[string]string{
		"{\"instructions\": \"\xff\"}":         "byte 0xff in position 18: invalid start byte",
		"{\"instructions\": \"caf\xc3(\"}":     "byte 0xc3 in position 21: invalid continuation byte",
		"{\"instructions\": \"\xed\xa0\x80\"}": "byte 0xed in position 18: invalid continuation byte",
		"{\"instructions\": \"ok\"}\xe2\x82":   "byte 0xe2 in position 22: unexpected end of data",
	} {
		wantResponse(t, fmt.Sprintf("PATCH %q", body), servertest.DoJSON(t, "PATCH", url, e.root, []byte(body)), http.StatusBadRequest,
			`{"type":"client_error","errors":[{"code":"parse_error","detail":"JSON parse error - 'utf-8' codec can't decode `+
				detail+`","attr":null}]}`)
	}
	// U+FFFD itself is text like any other.
	wantResponse(t, "PATCH U+FFFD", servertest.DoJSON(t, "PATCH", url, e.root, []byte(`{"instructions": "\ufffd�"}`)), http.StatusOK, "")
}

// TestNullCharacters: no text the API stores holds a NUL character or a
// lone UTF-16 surrogate; the reference's CharField refuses them in its
// own words, per field and per item of a list.
func TestNullCharacters(t *testing.T) {
	e := mustHostileEnv(t)
	nul := func(attr string) [3]string {
		return [3]string{attr, "null_characters_not_allowed", "Null characters are not allowed."}
	}
	for _, c := range []struct {
		method, path string
		body         string
		want         string
	}{
		{"PATCH", "/api/projects/demo/", `{"name": "De\u0000mo", "instructions": "\u0000"}`, invalid(nul("instructions"), nul("name"))},
		{"PATCH", "/api/units/{save}/", `{"target": ["Alles", "spei\u0000chern"], "state": 20}`, invalid(nul("target.1"))},
		{"POST", "/api/languages/", `{"code": "xx", "name": "X", "plural": {"number": 2, "formula": "n\u0000 != 1"}}`,
			invalid(nul("plural.formula"))},
	} {
		got := servertest.DoJSON(t, c.method, e.srv.URL+e.vars.Replace(c.path), e.root, []byte(c.body))
		wantResponse(t, c.method+" "+c.path, got, http.StatusBadRequest, c.want)
	}
	// A lone UTF-16 surrogate, which the reference's JSON parser reads
	// as such and its CharField refuses; a pair is a character.
	surrogate := func(attr, cp string) [3]string {
		return [3]string{attr, "surrogate_characters_not_allowed", "Surrogate characters are not allowed: U+" + cp + "."}
	}
	for _, c := range []struct{ body, want string }{
		{`{"name": "\ud800", "instructions": "x\uDFFFy\ud83d"}`, invalid(surrogate("instructions", "DFFF"), surrogate("name", "D800"))},
		{`{"web": "https://example.org/\\ud800", "instructions": "\\\ud83d\\ude00"}`, invalid(surrogate("instructions", "D83D"))},
	} {
		got := servertest.DoJSON(t, "PATCH", e.srv.URL+"/api/projects/demo/", e.root, []byte(c.body))
		wantResponse(t, "PATCH "+c.body, got, http.StatusBadRequest, c.want)
	}
	got := servertest.DoJSON(t, "PATCH", e.srv.URL+"/api/projects/demo/", e.root, []byte(`{"instructions": "\ud83d\ude00 \\ud800"}`))
	if p := servertest.Decode(t, got.Body); got.Status != http.StatusOK || p["instructions"] != "😀 \\ud800" {
		t.Errorf("PATCH with a pair = %d %s", got.Status, got.Body)
	}

	up := multipartBody([]string{"method", "translate", "author_name", "A\x00", "author_email", "a\x00@example.com"},
		[3]string{"file", "de.json", matrixUpload})
	got = e.send(t, &matrixRow{method: "POST", route: translationRoute + "file/"}, up)
	wantResponse(t, "upload", got, http.StatusBadRequest, invalid(nul("author_email"), nul("author_name")))
}
