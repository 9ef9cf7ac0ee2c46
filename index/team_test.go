package index

import "testing"

// TestNarrowedGrants checks grants narrowed to a component or to
// languages, as teams give them: they count on their own component and
// languages only, never on a check made for the whole project, and a
// custom role's permissions are its own.
func TestNarrowedGrants(t *testing.T) {
	const p1, p2 = 1, 2
	user := &User{ID: 1, IsActive: true}
	tr := func(project, comp int64, lang string) *Translation {
		return &Translation{LanguageCode: lang, Component: Component{ID: comp, ProjectID: project}}
	}
	czech := Principal{User: user, Grants: []Grant{{UserID: 1, Role: "Translate", ProjectID: p1, Languages: []string{"cs"}}}}
	everyCzech := Principal{User: user, Grants: []Grant{{UserID: 1, Role: "Translate", Languages: []string{"cs"}}}}
	comp := Principal{User: user, Grants: []Grant{{UserID: 1, Role: "Administration", ProjectID: p1, ComponentID: 7}}}
	none := Principal{User: user, Grants: []Grant{{UserID: 1, Role: "Translate", ProjectID: p1, Languages: []string{}}}}
	custom := Principal{User: user, Grants: []Grant{{UserID: 1, Role: "Translate", ProjectID: p1,
		Permissions: []Permission{PermCommentAdd}}}}
	cases := []struct {
		name string
		p    Principal
		perm Permission
		t    *Translation
		want bool
	}{
		{"czech translator in czech", czech, PermUnitEdit, tr(p1, 5, "cs"), true},
		{"czech translator in german", czech, PermUnitEdit, tr(p1, 5, "de"), false},
		{"czech translator elsewhere", czech, PermUnitEdit, tr(p2, 6, "cs"), false},
		{"site-wide czech translator", everyCzech, PermUnitEdit, tr(p2, 6, "cs"), true},
		{"site-wide czech translator in german", everyCzech, PermUnitEdit, tr(p2, 6, "de"), false},
		{"component admin in it", comp, PermUnitReview, tr(p1, 7, "de"), true},
		{"component admin in another", comp, PermUnitReview, tr(p1, 8, "de"), false},
		{"no languages selected", none, PermUnitEdit, tr(p1, 5, "cs"), false},
		{"custom role holds its own", custom, PermCommentAdd, tr(p1, 5, "cs"), true},
		{"custom role named like a built-in", custom, PermUnitEdit, tr(p1, 5, "cs"), false},
	}
	for _, tc := range cases {
		if got := tc.p.CanTranslation(tc.perm, tc.t); got != tc.want {
			t.Errorf("%s: CanTranslation(%s) = %v, want %v", tc.name, tc.perm, got, tc.want)
		}
	}
	// A check made for the whole project or component is not met by a
	// narrower grant.
	if czech.Can(PermUnitEdit, p1) || everyCzech.Can(PermUnitEdit, p2) || comp.Can(PermProjectEdit, p1) {
		t.Error("a narrowed grant met a whole-project check")
	}
	if !comp.CanComponent(PermComponentEdit, &Component{ID: 7, ProjectID: p1}) ||
		comp.CanComponent(PermComponentEdit, &Component{ID: 8, ProjectID: p1}) ||
		czech.CanComponent(PermUnitEdit, &Component{ID: 5, ProjectID: p1}) {
		t.Error("CanComponent counts a grant outside the component or one narrowed to languages")
	}
	// Seeing a private project needs any grant in it, narrowed or not.
	if !czech.CanView(&Project{ID: p1, AccessControl: AccessPrivate}) || czech.CanView(&Project{ID: p2, AccessControl: AccessPrivate}) {
		t.Error("CanView with a language-narrowed grant")
	}
}
