package index

import (
	"strings"
	"testing"
	"time"
)

func TestNewTokenShape(t *testing.T) {
	seen := map[string]bool{}
	for i := 0; i < 200; i++ {
		tok := NewToken(UserTokenPrefix)
		if len(tok) != 40 || !strings.HasPrefix(tok, "wlu_") || !LooksLikeToken(tok) {
			t.Fatalf("NewToken = %q, want wlu_ and 36 of [A-Za-z0-9]", tok)
		}
		if seen[tok] {
			t.Fatalf("NewToken repeated %q", tok)
		}
		seen[tok] = true
		if !TokenMatches(tok, HashToken(tok)) || TokenMatches(tok+"x", HashToken(tok)) {
			t.Fatal("TokenMatches disagrees with HashToken")
		}
	}
	for _, bad := range []string{"", "wlu_", "wlx_" + strings.Repeat("a", 36), "wlu_" + strings.Repeat("a", 35) + "!",
		"wlp_" + strings.Repeat("a", 37)} {
		if LooksLikeToken(bad) {
			t.Errorf("LooksLikeToken(%q) = true", bad)
		}
	}
}

func TestTokenExpired(t *testing.T) {
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		expires time.Time
		want    bool
	}{{time.Time{}, false}, {now.Add(time.Second), false}, {now, true}, {now.Add(-time.Hour), true}} {
		tok := Token{Expires: tc.expires}
		if got := tok.Expired(now); got != tc.want {
			t.Errorf("Expired with expiry %v = %v, want %v", tc.expires, got, tc.want)
		}
	}
}

func TestPrincipalCan(t *testing.T) {
	user := func(super bool) *User { return &User{ID: 1, Username: "u", IsActive: true, IsSuperuser: super} }
	const p1, p2 = 1, 2
	cases := []struct {
		name string
		p    Principal
		perm Permission
		proj int64
		want bool
	}{
		{"anonymous", Principal{}, PermUnitEdit, p1, false},
		{"no role", Principal{User: user(false)}, PermUnitEdit, p1, false},
		{"translator in project", Principal{User: user(false), Grants: []Grant{{UserID: 1, Role: "Translate", ProjectID: p1}}}, PermUnitEdit, p1, true},
		{"translator elsewhere", Principal{User: user(false), Grants: []Grant{{UserID: 1, Role: "Translate", ProjectID: p1}}}, PermUnitEdit, p2, false},
		{"translator cannot review", Principal{User: user(false), Grants: []Grant{{UserID: 1, Role: "Translate", ProjectID: p1}}}, PermUnitReview, p1, false},
		{"reviewer reviews", Principal{User: user(false), Grants: []Grant{{UserID: 1, Role: "Review strings", ProjectID: p1}}}, PermUnitReview, p1, true},
		{"site-wide translator", Principal{User: user(false), Grants: []Grant{{UserID: 1, Role: "Translate", ProjectID: 0}}}, PermUnitEdit, p2, true},
		{"project admin cannot add projects", Principal{User: user(false), Grants: []Grant{{UserID: 1, Role: "Administration", ProjectID: p1}}}, PermProjectAdd, 0, false},
		{"project admin edits project", Principal{User: user(false), Grants: []Grant{{UserID: 1, Role: "Administration", ProjectID: p1}}}, PermProjectEdit, p1, true},
		{"repository manager commits", Principal{User: user(false), Grants: []Grant{{UserID: 1, Role: "Manage repository", ProjectID: p1}}}, PermVCSCommit, p1, true},
		{"superuser", Principal{User: user(true)}, PermLanguageEdit, 0, true},
		{"read scope", Principal{User: user(true), Scope: ScopeRead}, PermUnitEdit, p1, false},
		{"translate scope edits", Principal{User: user(true), Scope: ScopeTranslate}, PermUnitEdit, p1, true},
		{"translate scope cannot lock", Principal{User: user(true), Scope: ScopeTranslate}, PermComponentLock, p1, false},
		{"project-scoped token elsewhere", Principal{User: user(true), ScopeProjectID: p1}, PermUnitEdit, p2, false},
		{"project-scoped token global", Principal{User: user(true), ScopeProjectID: p1}, PermProjectAdd, 0, false},
		{"inactive", Principal{User: &User{IsSuperuser: true}}, PermUnitEdit, p1, false},
	}
	for _, tc := range cases {
		if got := tc.p.Can(tc.perm, tc.proj); got != tc.want {
			t.Errorf("%s: Can(%s, %d) = %v, want %v", tc.name, tc.perm, tc.proj, got, tc.want)
		}
	}
}

func TestPrincipalCanView(t *testing.T) {
	private := &Project{ID: 7, AccessControl: AccessPrivate}
	public := &Project{ID: 8}
	member := Principal{User: &User{ID: 1, IsActive: true}, Grants: []Grant{{UserID: 1, Role: "Translate", ProjectID: 7}}}
	stranger := Principal{User: &User{ID: 2, IsActive: true}}
	super := Principal{User: &User{ID: 3, IsActive: true, IsSuperuser: true}}
	var anon Principal
	for _, tc := range []struct {
		name string
		p    Principal
		proj *Project
		want bool
	}{
		{"anonymous public", anon, public, true}, {"anonymous private", anon, private, false},
		{"member private", member, private, true}, {"stranger private", stranger, private, false},
		{"superuser private", super, private, true},
	} {
		if got := tc.p.CanView(tc.proj); got != tc.want {
			t.Errorf("%s: CanView = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestFindRole(t *testing.T) {
	for _, name := range []string{"Translate", "translator", "REVIEWER", "admin", "Manage repository", "repository"} {
		if _, ok := FindRole(name); !ok {
			t.Errorf("FindRole(%q) not found", name)
		}
	}
	if _, ok := FindRole("Emperor"); ok {
		t.Error("FindRole(Emperor) found")
	}
}

// TestReadsUnderScopes: the reads guarded by a write permission
// (repository status, full user details) follow the user's rights
// whatever kind of action the token is scoped to, but never leave the
// token's project.
func TestReadsUnderScopes(t *testing.T) {
	ops := &User{ID: 1, IsActive: true}
	root := &User{ID: 2, IsActive: true, IsSuperuser: true}
	grants := []Grant{{UserID: 1, Role: "Manage repository", ProjectID: 7}}
	for _, tc := range []struct {
		name           string
		p              Principal
		repo7, repo8   bool
		users, unscope bool
	}{
		{"anonymous", Principal{}, false, false, false, false},
		{"ops", Principal{User: ops, Grants: grants}, true, false, false, true},
		{"ops, read token", Principal{User: ops, Grants: grants, Scope: ScopeRead}, true, false, false, false},
		{"ops, translate token", Principal{User: ops, Grants: grants, Scope: ScopeTranslate}, true, false, false, false},
		{"translator", Principal{User: ops, Grants: []Grant{{UserID: 1, Role: "Translate", ProjectID: 7}}},
			false, false, false, true},
		{"root", Principal{User: root}, true, true, true, true},
		{"root, read token", Principal{User: root, Scope: ScopeRead}, true, true, true, false},
		{"root, token for 8", Principal{User: root, Scope: ScopeAdmin, ScopeProjectID: 8}, false, true, false, false},
		{"inactive root", Principal{User: &User{ID: 3, IsSuperuser: true}}, false, false, false, false},
	} {
		if got := tc.p.CanViewRepository(7); got != tc.repo7 {
			t.Errorf("%s: CanViewRepository(7) = %v", tc.name, got)
		}
		if got := tc.p.CanViewRepository(8); got != tc.repo8 {
			t.Errorf("%s: CanViewRepository(8) = %v", tc.name, got)
		}
		if got := tc.p.CanRead(PermUserEdit, 0); got != tc.users {
			t.Errorf("%s: CanRead(user.edit) = %v", tc.name, got)
		}
		if got := tc.p.Unscoped(); got != tc.unscope {
			t.Errorf("%s: Unscoped = %v", tc.name, got)
		}
		// A read never widens what the token may write.
		if tc.p.Scope == ScopeRead && tc.p.Can(PermVCSPush, 7) {
			t.Errorf("%s: a read token may push", tc.name)
		}
	}
	member := Principal{User: ops, Grants: []Grant{{UserID: 1, Role: "Translate", ProjectID: 7}}}
	projects := []Project{{ID: 5}, {ID: 7, AccessControl: AccessPrivate}, {ID: 9, AccessControl: AccessPrivate}}
	if got := member.Hidden(projects); len(got) != 1 || got[0] != 9 {
		t.Errorf("member.Hidden = %v, want [9]", got)
	}
	if got := (&Principal{User: root}).Hidden(projects); got != nil {
		t.Errorf("root.Hidden = %v, want nil", got)
	}
}

func TestUserFieldChecks(t *testing.T) {
	for _, tc := range []struct {
		check func(string) *FieldProblem
		value string
		code  string // "" for valid
	}{
		{CheckUsername, "anna", ""}, {CheckUsername, "a.b+c-d_e@f", ""}, {CheckUsername, "", "blank"},
		{CheckUsername, ".anna", "invalid"}, {CheckUsername, "an na", "invalid"}, {CheckUsername, "änna", "invalid"},
		{CheckUsername, strings.Repeat("a", 150), ""}, {CheckUsername, strings.Repeat("a", 151), "max_length"},
		{CheckFullName, "Anna Karenina", ""}, {CheckFullName, "Ånna 🌸", ""}, {CheckFullName, " ", "blank"},
		{CheckFullName, " Anna", "invalid"}, {CheckFullName, "An\nna", "invalid"},
		{CheckFullName, strings.Repeat("é", 151), "max_length"},
		{CheckEmail, "", ""}, {CheckEmail, "a@example.com", ""}, {CheckEmail, "a@localhost", "invalid"},
		{CheckEmail, "@example.com", "invalid"}, {CheckEmail, "a b@example.com", "invalid"},
		{CheckEmail, "a@@example.com", "invalid"}, {CheckEmail, "a@example..com", "invalid"},
	} {
		p := tc.check(tc.value)
		if (p == nil) != (tc.code == "") || (p != nil && (p.Code != tc.code || p.Detail == "")) {
			t.Errorf("check(%q) = %+v, want code %q", tc.value, p, tc.code)
		}
	}
	u := User{Username: "a", FullName: "A", IsActive: true}
	name, off := "B", false
	u.Apply(UserUpdate{FullName: &name, IsActive: &off})
	if u.Username != "a" || u.FullName != "B" || u.IsActive {
		t.Errorf("Apply = %+v", u)
	}
}
