package index

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestMentions(t *testing.T) {
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"@anna please look", []string{"anna"}},
		{"Ask @anna, then @rita.", []string{"anna", "rita"}},
		{"@anna and @anna again", []string{"anna"}},
		{"mail anna@example.com", nil},
		{"(@bob_2) [@c.d]", []string{"bob_2", "c.d"}},
		{"@ alone, @. and @", nil},
		{"@" + strings.Repeat("a", 151) + " is too long a name", nil},
		{"@ünïcode", nil},
	} {
		if got := Mentions(tc.text); !slices.Equal(got, tc.want) {
			t.Errorf("Mentions(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
}

func TestCommentRules(t *testing.T) {
	user := func(id int64, role string) *Principal {
		return &Principal{User: &User{ID: id, IsActive: true}, Grants: []Grant{{UserID: id, Role: role, ProjectID: 1}}}
	}
	translator, reviewer, admin := user(1, "Translate"), user(2, "Review strings"), user(3, "Administration")
	stranger := &Principal{User: &User{ID: 4, IsActive: true}}
	tr := Translation{Component: Component{ProjectID: 1, Project: Project{ID: 1}}}
	src := tr
	src.IsSource = true
	u := Unit{ID: 10, SourceUnitID: 5}
	check := func(who *Principal, t *Translation, c NewComment) (int64, error) {
		return CheckAddComment(who, &u, t, &c)
	}

	if id, err := check(translator, &tr, NewComment{Scope: ScopeTranslation}); err != nil || id != 10 {
		t.Errorf("translation scope: %d %v, want the unit", id, err)
	}
	if id, err := check(translator, &tr, NewComment{Scope: ScopeGlobal}); err != nil || id != 5 {
		t.Errorf("global scope: %d %v, want the source unit", id, err)
	}
	if _, err := check(stranger, &tr, NewComment{Scope: ScopeGlobal}); !errors.Is(err, ErrPermission) {
		t.Errorf("no role: %v", err)
	}
	if _, err := check(translator, &src, NewComment{Scope: ScopeTranslation}); !errors.Is(err, ErrInvalid) {
		t.Errorf("translation scope on a source unit: %v", err)
	}
	if _, err := check(translator, &tr, NewComment{Scope: ScopeReport}); !errors.Is(err, ErrInvalid) {
		t.Errorf("report without source review: %v", err)
	}
	reviewed := tr
	reviewed.Component.Project.SourceReview = true
	if id, err := check(translator, &reviewed, NewComment{Scope: ScopeReport}); err != nil || id != 5 {
		t.Errorf("report: %d %v", id, err)
	}
	if _, err := check(translator, &tr, NewComment{Scope: ScopeGlobal, Timestamp: time.Now()}); !errors.Is(err, ErrPermission) {
		t.Errorf("a translator's timestamp: %v", err)
	}
	if _, err := check(admin, &tr, NewComment{Scope: ScopeGlobal, UserEmail: "a@b.c"}); err != nil {
		t.Errorf("an administrator's user_email: %v", err)
	}

	mine := Comment{UserID: 1}
	for _, tc := range []struct {
		name            string
		who             *Principal
		resolve, remove bool
	}{
		{"author", translator, true, true},
		{"reviewer", reviewer, true, false},
		{"administrator", admin, true, true},
		{"stranger", stranger, false, false},
		{"author with a read token", &Principal{User: translator.User, Grants: translator.Grants, Scope: ScopeRead}, false, false},
		{"author with another project's token", &Principal{User: translator.User, Grants: translator.Grants, ScopeProjectID: 2}, false, false},
		{"anonymous", &Principal{}, false, false},
	} {
		if err := CheckResolveComment(tc.who, &mine, &tr); (err == nil) != tc.resolve {
			t.Errorf("%s resolving: %v", tc.name, err)
		}
		if err := CheckDeleteComment(tc.who, &mine, &tr); (err == nil) != tc.remove {
			t.Errorf("%s removing: %v", tc.name, err)
		}
	}
}

func TestCheckLabel(t *testing.T) {
	for _, tc := range []struct {
		l      Label
		fields []string
	}{
		{Label{Name: "UI", Color: "navy"}, nil},
		{Label{Name: "", Color: "navy"}, []string{"name"}},
		{Label{Name: "  ", Color: "pink"}, []string{"color", "name"}},
		{Label{Name: string(make([]rune, 191)), Color: "red"}, []string{"name"}},
	} {
		err := CheckLabel(&tc.l)
		var fe *FieldError
		var got []string
		if errors.As(err, &fe) {
			for f := range fe.Fields {
				got = append(got, f)
			}
			slices.Sort(got)
		}
		if !slices.Equal(got, tc.fields) {
			t.Errorf("CheckLabel(%+v) = %v, want problems on %q", tc.l, err, tc.fields)
		}
	}
}
