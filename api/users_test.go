package api_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/indextest"
	"github.com/tolk-project/tolk/index/sqlstore"
	"github.com/tolk-project/tolk/internal/servertest"
)

// userShape is the reference's basic user serializer: what any signed-in
// reader sees of a user (and an anonymous one of a user in a change it
// can see).
var userShape = servertest.Shape{"id": "int", "full_name": "string", "username": "string"}

// fullUserShape is what those who manage users see.
var fullUserShape = servertest.Shape{
	"id": "int", "email": "string|null", "full_name": "string", "username": "string", "groups": "array",
	"is_superuser": "bool", "is_active": "bool", "is_bot": "bool", "date_joined": "timestamp", "url": "url",
	"statistics_url": "url", "contributions_url": "url", "secondary_languages": "array",
}

// usersEnv is an index with users saved out of name order, so id order
// and name order differ, served by a real server, with tokens for a plain
// user (anna) and a superuser (root).
type usersEnv struct {
	srv        *servertest.Running
	db         *sqlstore.DB
	path       string // the index's location, for what no store method writes yet
	anna, root string // Authorization headers
}

func mustUsersEnv(tb testing.TB) usersEnv {
	tb.Helper()
	ctx := context.Background()
	path := indextest.Location(tb)
	db, err := indextest.Reopen(tb, path)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	joined := time.Date(2025, 3, 4, 5, 6, 7, 890123000, time.UTC)
	for i, name := range []string{"zoe", "anna", "annabel", "Anna2", "bot-1", "ann.b"} {
		email := name + "@example.com"
		if name == "bot-1" {
			email = ""
		}
		if _, err := db.SaveUser(ctx, index.User{Username: name, FullName: "Name " + name,
			Email: email, IsActive: i != 2, IsBot: name == "bot-1", Joined: joined}); err != nil {
			tb.Fatal(err)
		}
	}
	e := usersEnv{db: db, path: path, anna: mustToken(tb, db, "anna", index.Token{Scope: index.ScopeAdmin})}
	e.root = servertest.MustUser(tb, db, "root", true)
	e.srv = servertest.Serve(tb, db, servertest.Options{})
	return e
}

// mustToken creates a token for an existing user and returns the
// Authorization header carrying it; tok gives its scope and project.
func mustToken(tb testing.TB, db *sqlstore.DB, username string, tok index.Token) string {
	tb.Helper()
	u, err := db.FindUser(context.Background(), username)
	if err != nil {
		tb.Fatal(err)
	}
	secret := index.NewToken(index.UserTokenPrefix)
	tok.UserID, tok.Hash, tok.Prefix = u.ID, index.HashToken(secret), index.UserTokenPrefix
	if _, err := db.CreateToken(context.Background(), tok); err != nil {
		tb.Fatal(err)
	}
	return "Token " + secret
}

// usernames lists the usernames of a user list's results.
func usernames(tb testing.TB, list map[string]any) string {
	tb.Helper()
	var names []string
	for _, u := range servertest.Results(tb, list) {
		names = append(names, u["username"].(string))
	}
	return strings.Join(names, ",")
}

// checkUserList GETs a user list as auth and checks that it holds the
// users named in want (comma-separated, in order), counted alike, each of
// the given shape.
func checkUserList(tb testing.TB, url, auth, want string, each servertest.Shape) {
	tb.Helper()
	list := servertest.GetObjectAs(tb, url, auth)
	servertest.CheckShape(tb, url, list, listShape)
	for _, u := range servertest.Results(tb, list) {
		servertest.CheckShape(tb, url, u, each)
	}
	count := 0
	if want != "" {
		count = len(strings.Split(want, ","))
	}
	if got := usernames(tb, list); got != want || servertest.Num(list["count"]) != fmt.Sprint(count) {
		tb.Errorf("%s: %v (count %v), want %s", url, got, list["count"], want)
	}
}

// TestUsersManager: who may manage users lists everyone with every field
// and uses every filter.
func TestUsersManager(t *testing.T) {
	e := mustUsersEnv(t)
	base := e.srv.URL + "/api/users/"
	list := servertest.GetObjectAs(t, base, e.root)
	servertest.CheckShape(t, "users", list, listShape)
	checkValues(t, "users", list, map[string]any{"count": "7", "next": nil, "previous": nil})
	for _, u := range servertest.Results(t, list) {
		servertest.CheckShape(t, "user", u, fullUserShape)
		if got := servertest.GetObjectAs(t, u["url"].(string), e.root); fmt.Sprint(got) != fmt.Sprint(u) {
			t.Errorf("GET %v = %v, want the list's %v", u["url"], got, u)
		}
	}
	if got := usernames(t, list); got != "zoe,anna,annabel,Anna2,bot-1,ann.b,root" {
		t.Errorf("order = %v, want ascending id", got)
	}
	checkValues(t, "annabel", servertest.GetObjectAs(t, base+"annabel/", e.root), map[string]any{
		"id": "3", "email": "annabel@example.com", "full_name": "Name annabel", "username": "annabel",
		"is_superuser": false, "is_active": false, "is_bot": false,
		"date_joined": "2025-03-04T05:06:07.890123Z", "url": base + "annabel/",
	})
	checkValues(t, "bot-1", servertest.GetObjectAs(t, base+"bot-1/?format=api", e.root), map[string]any{
		"is_bot": true, "is_active": true, "email": nil, "url": base + "bot-1/?format=api"})

	// Filters: username is a case-sensitive prefix, id exact, is_active
	// a boolean, email exact ignoring case.
	for query, want := range map[string]string{
		"username=ann":                "anna,annabel,ann.b",
		"username=anna":               "anna,annabel",
		"username=Ann":                "Anna2",
		"username=ann.":               "ann.b",
		"username=a":                  "anna,annabel,ann.b",
		"username=nobody":             "",
		"id=2":                        "anna",
		"id=2&username=z":             "",
		"id=0":                        "",
		"id=999":                      "",
		"is_active=false":             "annabel",
		"is_active=0&username=ann":    "annabel",
		"is_active=maybe&username=zo": "zoe",
		"email=ZOE@example.COM":       "zoe",
		"email=nobody@example.com":    "",
		"username=&id=":               "zoe,anna,annabel,Anna2,bot-1,ann.b,root",
	} {
		checkUserList(t, base+"?"+query, e.root, want, fullUserShape)
	}
	// Paging keeps the filter.
	p2 := servertest.GetObjectAs(t, base+"?username=a&page_size=2&page=2", e.root)
	checkValues(t, "page 2", p2, map[string]any{"count": "3", "next": nil, "previous": base + "?page_size=2&username=a"})
	if got := usernames(t, p2); got != "ann.b" {
		t.Errorf("page 2 = %v", got)
	}

	r := servertest.DoJSON(t, "GET", base+"?id=abc", e.root, nil)
	const badID = `{"type":"validation_error","errors":[{"code":"invalid","detail":"Enter a number.","attr":"id"}]}`
	if r.Status != 400 || string(r.Body) != badID {
		t.Errorf("?id=abc = %d %s, want 400 %s", r.Status, r.Body, badID)
	}
	const notFound = `{"type":"client_error","errors":[{"code":"not_found","detail":"Not found.","attr":null}]}`
	for _, path := range []string{"nobody/", "ANNA/", "?page=2"} {
		if r := servertest.DoJSON(t, "GET", base+path, e.root, nil); r.Status != 404 || !strings.Contains(string(r.Body), `"not_found"`) ||
			(path != "?page=2" && string(r.Body) != notFound) {
			t.Errorf("GET %s = %d %s, want 404", path, r.Status, r.Body)
		}
	}

	// Reading is not a write: a read-only token of a superuser sees the
	// full view too; a token narrowed to one project does not, since
	// users are not in projects.
	ro := mustToken(t, e.db, "root", index.Token{Scope: index.ScopeRead})
	servertest.CheckShape(t, "read-only token", servertest.GetObjectAs(t, base+"zoe/", ro), fullUserShape)
	p := servertest.MustProject(t, e.db, index.Project{Name: "P", Slug: "p"})
	scoped := mustToken(t, e.db, "root", index.Token{Scope: index.ScopeAdmin, ProjectID: p.ID})
	servertest.CheckShape(t, "project token", servertest.GetObjectAs(t, base+"zoe/", scoped), userShape)
}

// TestUsersReader: any other signed-in reader lists itself, or a
// username search of two characters or more, and reads anyone's basic
// fields by name.
func TestUsersReader(t *testing.T) {
	e := mustUsersEnv(t)
	base := e.srv.URL + "/api/users/"
	for query, want := range map[string]string{
		"":                          "anna",
		"id=2":                      "anna",
		"id=1":                      "",
		"email=zoe@example.com":     "anna", // not a filter for readers: it would tell whose an address is
		"username=":                 "",
		"username=a":                "",
		"username=an":               "anna,annabel,ann.b",
		"username=an&is_active=1":   "anna,ann.b",
		"username=zo":               "zoe",
		"username=ro&page_size=1":   "root",
		"username=Anna2&id=4":       "Anna2",
		"username=Anna2&id=5":       "",
		"username=zz&page_size=100": "",
	} {
		checkUserList(t, base+"?"+query, e.anna, want, userShape)
	}
	zoe := servertest.GetObjectAs(t, base+"zoe/", e.anna)
	servertest.CheckShape(t, "zoe", zoe, userShape)
	checkValues(t, "zoe", zoe, map[string]any{"id": "1", "full_name": "Name zoe", "username": "zoe"})
	servertest.CheckShape(t, "self", servertest.GetObjectAs(t, base+"anna/", e.anna), userShape)
	if r := servertest.DoJSON(t, "GET", base+"nobody/", e.anna, nil); r.Status != 404 {
		t.Errorf("GET nobody/ = %d %s, want 404", r.Status, r.Body)
	}
}

// TestUsersAnonymous: anonymous readers list nobody and see a user only
// when it acted in a change they can see, so that the user and author
// links of those changes resolve.
func TestUsersAnonymous(t *testing.T) {
	e := mustUsersEnv(t)
	base := e.srv.URL + "/api/users/"
	for _, query := range []string{"", "?username=zoe", "?id=1", "?page_size=1000"} {
		list := servertest.GetObject(t, base+query)
		checkValues(t, "anonymous list"+query, list, map[string]any{"count": "0", "next": nil, "previous": nil})
		if n := len(servertest.Results(t, list)); n != 0 {
			t.Errorf("anonymous list%s: %d results", query, n)
		}
	}
	public := servertest.MustProject(t, e.db, index.Project{Name: "Public", Slug: "public"})
	secret := servertest.MustProject(t, e.db, index.Project{Name: "Secret", Slug: "secret", AccessControl: index.AccessPrivate})
	// No store method records a user's change yet outside the write
	// paths, so these rows are written as the edit path writes them.
	raw := indextest.OpenRaw(t, e.path)
	for _, ch := range []struct {
		project      int64
		user, author int
	}{{public.ID, 1, 1}, {public.ID, 0, 4}, {secret.ID, 2, 2}} {
		raw.Exec(t, `INSERT INTO changes (action, timestamp, project_id, user_id, author_id, target, details)
			VALUES (2, '2026-01-01T00:00:00.000000Z', ?, nullif(?, 0), ?, '', '')`, ch.project, ch.user, ch.author)
	}
	for name, status := range map[string]int{
		"zoe":   200, // acted in the public project
		"Anna2": 200, // credited as author there
		"anna":  404, // acted only in the private project
		"root":  404, // never acted
		"ghost": 404,
	} {
		r := servertest.DoJSON(t, "GET", base+name+"/", "", nil)
		if r.Status != status {
			t.Errorf("anonymous GET %s/ = %d %s, want %d", name, r.Status, r.Body, status)
			continue
		}
		if status == 200 {
			servertest.CheckShape(t, name, servertest.Decode(t, r.Body), userShape)
		}
	}
	// A member of the private project reads anna anyway: every signed-in
	// reader does.
	servertest.CheckShape(t, "anna", servertest.GetObjectAs(t, base+"anna/", e.anna), userShape)
}

// TestUserHeaders covers what the shared endpoint table cannot: the
// demo index has no users.
func TestUserHeaders(t *testing.T) {
	e := mustUsersEnv(t)
	for path, allow := range map[string]string{
		"/api/users/":      "GET, POST, HEAD, OPTIONS",
		"/api/users/anna/": "GET, PUT, PATCH, DELETE, HEAD, OPTIONS",
	} {
		for _, method := range []string{"GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH", "DELETE"} {
			r := servertest.Do(t, method, e.srv.URL+path, http.Header{"Authorization": {e.anna}})
			if method != "GET" && method != "HEAD" && method != "OPTIONS" {
				r = servertest.Do(t, method, e.srv.URL+path, nil)
			}
			want := http.StatusOK
			if method != "GET" && method != "HEAD" && method != "OPTIONS" {
				want = http.StatusUnauthorized // advertised: anonymous writes are refused
				if !strings.Contains(allow, method) {
					want = http.StatusMethodNotAllowed
				}
			}
			if r.Status != want || r.Header.Get("Allow") != allow || r.Header.Get("Vary") != "Accept" ||
				r.Header.Get("Content-Type") != "application/json" {
				t.Errorf("%s %s = %d %v, want %d with Allow %q", method, path, r.Status, r.Header, want, allow)
			}
		}
		for _, withFormat := range []bool{false, true} {
			url := e.srv.URL + path
			if withFormat {
				url += "?format=api"
			}
			var all []string
			servertest.Strs(servertest.GetObjectAs(t, url, e.root), &all)
			for _, s := range all {
				if strings.HasPrefix(s, "http") && strings.HasSuffix(s, "format=api") != withFormat {
					t.Errorf("GET %s: URL %q", url, s)
				}
			}
		}
	}
}

// TestUserCreate: POST /api/users/ needs user.edit, validates every field
// before storing anything, and answers 201 with the full user.
func TestUserCreate(t *testing.T) {
	e := mustUsersEnv(t)
	base := e.srv.URL + "/api/users/"
	count := func() string { return servertest.Num(servertest.GetObjectAs(t, base, e.root)["count"]) }
	body := map[string]any{"username": "neo", "full_name": "Thomas Anderson", "email": "neo@example.com"}

	if r := servertest.DoJSON(t, "POST", base, "", body); r.Status != 401 {
		t.Errorf("anonymous POST = %d %s", r.Status, r.Body)
	}
	const denied = `{"type":"client_error","errors":[{"code":"permission_denied","detail":"Can not manage Users","attr":null}]}`
	if r := servertest.DoJSON(t, "POST", base, e.anna, body); r.Status != 403 || string(r.Body) != denied {
		t.Errorf("POST without user.edit = %d %s, want 403 %s", r.Status, r.Body, denied)
	}
	ro := mustToken(t, e.db, "root", index.Token{Scope: index.ScopeRead})
	if r := servertest.DoJSON(t, "POST", base, ro, body); r.Status != 403 || string(r.Body) != denied {
		t.Errorf("POST with a read-only token = %d %s, want 403", r.Status, r.Body)
	}

	for _, tc := range []struct {
		name string
		body any
		want string // the error entries, as "attr code detail;"...
	}{
		{"nothing", map[string]any{}, "full_name required This field is required.;username required This field is required.;"},
		{"blank", map[string]any{"username": "", "full_name": " "},
			"full_name blank This field may not be blank.;username blank This field may not be blank.;"},
		{"full stop", map[string]any{"username": ".neo", "full_name": "N"},
			"username invalid Username can not start with a full stop.;"},
		{"space", map[string]any{"username": "neo one", "full_name": "N"},
			"username invalid Username may only contain letters, numbers or the following characters: @ . + - _;"},
		{"too long", map[string]any{"username": strings.Repeat("n", 151), "full_name": "N"},
			"username max_length Ensure this field has no more than 150 characters.;"},
		{"control", map[string]any{"username": "neo", "full_name": "N\x07"},
			"full_name invalid Please avoid using special characters in the full name.;"},
		{"types", map[string]any{"username": []string{"neo"}, "full_name": "N", "is_active": "maybe", "is_bot": nil},
			"is_active invalid Must be a valid boolean.;is_bot null This field may not be null.;username invalid Not a valid string.;"},
		{"email", map[string]any{"username": "neo", "full_name": "N", "email": "neo@localhost"},
			"email invalid Enter a valid email address.;"},
		{"taken", map[string]any{"username": "zoe", "full_name": "N", "email": "ZOE@example.com"},
			"email unique User with this E-mail already exists.;username unique A user with that username already exists.;"},
		{"expiry", map[string]any{"username": "neo", "full_name": "N", "date_expires": "2030-01-01T00:00:00Z"},
			"date_expires invalid Tolk accounts do not expire; give the expiry to a token instead.;"},
	} {
		r := servertest.DoJSON(t, "POST", base, e.root, tc.body)
		var got string
		if r.Status == 400 {
			for _, entry := range servertest.Decode(t, r.Body)["errors"].([]any) {
				m := entry.(map[string]any)
				got += fmt.Sprintf("%v %v %v;", m["attr"], m["code"], m["detail"])
			}
		}
		if r.Status != 400 || got != tc.want || servertest.Decode(t, r.Body)["type"] != "validation_error" {
			t.Errorf("%s: POST = %d %s, want 400 %s", tc.name, r.Status, r.Body, tc.want)
		}
	}
	for _, tc := range []struct {
		name, ctype, body string
		status            int
		want              string
	}{
		{"malformed", "application/json", `{"username":`, 400, `"code":"parse_error"`},
		{"not an object", "application/json", `["neo"]`, 400,
			`{"code":"invalid","detail":"Invalid data. Expected a dictionary, but got list.","attr":"non_field_errors"}`},
		{"plain text", "text/plain", `username=neo`, 415,
			`{"code":"unsupported_media_type","detail":"Unsupported media type \"text/plain\" in request.","attr":null}`},
	} {
		r := servertest.DoBody(t, "POST", base, http.Header{"Authorization": {e.root}, "Content-Type": {tc.ctype}},
			strings.NewReader(tc.body))
		if r.Status != tc.status || !strings.Contains(string(r.Body), tc.want) {
			t.Errorf("%s: POST = %d %s, want %d with %s", tc.name, r.Status, r.Body, tc.status, tc.want)
		}
	}
	if got := count(); got != "7" {
		t.Fatalf("after refused creations: %s users, want 7", got)
	}

	r := servertest.DoJSON(t, "POST", base, e.root, body)
	if r.Status != 201 {
		t.Fatalf("POST = %d %s, want 201", r.Status, r.Body)
	}
	created := servertest.Decode(t, r.Body)
	servertest.CheckShape(t, "created", created, fullUserShape)
	checkValues(t, "created", created, map[string]any{"id": "8", "username": "neo", "full_name": "Thomas Anderson",
		"email": "neo@example.com", "is_active": true, "is_superuser": false, "is_bot": false, "url": base + "neo/"})
	if loc := r.Header.Get("Location"); loc != base+"neo/" {
		t.Errorf("Location = %q", loc)
	}
	if got := servertest.GetObjectAs(t, base+"neo/", e.root); fmt.Sprint(got) != fmt.Sprint(created) {
		t.Errorf("GET neo/ = %v, want %v", got, created)
	}

	// Forms are read as the reference reads them.
	r = servertest.DoBody(t, "POST", base, http.Header{"Authorization": {e.root},
		"Content-Type": {"application/x-www-form-urlencoded"}},
		strings.NewReader("username=trinity&full_name=Trinity&is_bot=true&is_active=0"))
	if r.Status != 201 {
		t.Fatalf("form POST = %d %s", r.Status, r.Body)
	}
	checkValues(t, "form", servertest.Decode(t, r.Body), map[string]any{"username": "trinity", "email": nil,
		"is_bot": true, "is_active": false})
}

// TestUserUpdate: PUT and PATCH by who manages users, or by a user on its
// own name.
func TestUserUpdate(t *testing.T) {
	e := mustUsersEnv(t)
	base := e.srv.URL + "/api/users/"

	// A user on its own account: the name changes, the address only to
	// the one it has, and the rest is not its to change.
	r := servertest.DoJSON(t, "PATCH", base+"anna/", e.anna, map[string]any{"full_name": "Anna Karenina",
		"email": "ANNA@example.com", "is_superuser": true, "username": "queen"})
	if r.Status != 200 {
		t.Fatalf("self PATCH = %d %s", r.Status, r.Body)
	}
	self := servertest.Decode(t, r.Body)
	servertest.CheckShape(t, "self", self, servertest.Shape{"id": "int", "email": "string|null", "full_name": "string", "username": "string",
		"secondary_languages": "array"})
	checkValues(t, "self", self, map[string]any{"full_name": "Anna Karenina", "username": "anna",
		"email": "ANNA@example.com"})
	checkValues(t, "anna", servertest.GetObjectAs(t, base+"anna/", e.root), map[string]any{"is_superuser": false})
	r = servertest.DoJSON(t, "PATCH", base+"anna/", e.anna, map[string]any{"email": "anna@elsewhere.example"})
	if r.Status != 400 || !strings.Contains(string(r.Body), `"detail":"This e-mail address has not been verified.","attr":"email"`) {
		t.Errorf("self PATCH of a new address = %d %s, want 400", r.Status, r.Body)
	}
	if r := servertest.DoJSON(t, "PUT", base+"anna/", e.anna, map[string]any{"email": "anna@example.com"}); r.Status != 400 ||
		!strings.Contains(string(r.Body), `"attr":"full_name"`) {
		t.Errorf("self PUT without full_name = %d %s, want 400", r.Status, r.Body)
	}
	const denied = `{"type":"client_error","errors":[{"code":"permission_denied","detail":"Can not manage Users","attr":null}]}`
	for name, auth := range map[string]string{
		"another user":    e.anna,
		"read-only token": mustToken(t, e.db, "zoe", index.Token{Scope: index.ScopeRead}),
	} {
		if r := servertest.DoJSON(t, "PATCH", base+"zoe/", auth, map[string]any{"full_name": "Z"}); r.Status != 403 || string(r.Body) != denied {
			t.Errorf("%s: PATCH zoe = %d %s, want 403", name, r.Status, r.Body)
		}
	}
	if r := servertest.DoJSON(t, "PATCH", base+"ghost/", e.root, map[string]any{"full_name": "G"}); r.Status != 404 {
		t.Errorf("PATCH ghost = %d %s, want 404", r.Status, r.Body)
	}

	// A manager: PUT needs the required fields, and may rename.
	if r := servertest.DoJSON(t, "PUT", base+"zoe/", e.root, map[string]any{"full_name": "Zoe"}); r.Status != 400 ||
		!strings.Contains(string(r.Body), `"code":"required","detail":"This field is required.","attr":"username"`) {
		t.Errorf("PUT without username = %d %s, want 400", r.Status, r.Body)
	}
	if r := servertest.DoJSON(t, "PATCH", base+"zoe/", e.root, map[string]any{"username": "anna"}); r.Status != 400 ||
		!strings.Contains(string(r.Body), `"code":"unique"`) {
		t.Errorf("PATCH to a taken username = %d %s, want 400", r.Status, r.Body)
	}
	r = servertest.DoJSON(t, "PUT", base+"zoe/", e.root, map[string]any{"username": "zoe2", "full_name": "Zoe Two",
		"email": nil, "is_superuser": true, "is_bot": false, "is_active": true})
	if r.Status != 200 {
		t.Fatalf("PUT = %d %s", r.Status, r.Body)
	}
	checkValues(t, "renamed", servertest.Decode(t, r.Body), map[string]any{"id": "1", "username": "zoe2", "email": nil,
		"is_superuser": true, "url": base + "zoe2/"})
	if r := servertest.DoJSON(t, "GET", base+"zoe/", e.root, nil); r.Status != 404 {
		t.Errorf("GET old name = %d, want 404", r.Status)
	}
}

// TestUserDelete: DELETE anonymises and deactivates the user, keeps its
// row, and revokes its tokens.
func TestUserDelete(t *testing.T) {
	e := mustUsersEnv(t)
	base := e.srv.URL + "/api/users/"
	const denied = `{"type":"client_error","errors":[{"code":"permission_denied","detail":"Can not manage Users","attr":null}]}`
	if r := servertest.DoJSON(t, "DELETE", base+"zoe/", e.anna, nil); r.Status != 403 || string(r.Body) != denied {
		t.Errorf("DELETE without user.edit = %d %s", r.Status, r.Body)
	}
	if r := servertest.DoJSON(t, "DELETE", base+"ghost/", e.root, nil); r.Status != 404 {
		t.Errorf("DELETE ghost = %d %s", r.Status, r.Body)
	}
	if r := servertest.DoJSON(t, "DELETE", base+"anna/", e.root, nil); r.Status != 204 || len(r.Body) != 0 {
		t.Fatalf("DELETE = %d %s, want 204", r.Status, r.Body)
	}
	list := servertest.GetObjectAs(t, base, e.root)
	checkValues(t, "after", list, map[string]any{"count": "7"})
	checkValues(t, "removed", servertest.GetObjectAs(t, base+"deleted-2/", e.root), map[string]any{"id": "2",
		"full_name": "Deleted User", "email": nil, "is_active": false, "is_superuser": false})
	if r := servertest.DoJSON(t, "GET", base, e.anna, nil); r.Status != 401 {
		t.Errorf("the removed user's token = %d, want 401", r.Status)
	}
}
