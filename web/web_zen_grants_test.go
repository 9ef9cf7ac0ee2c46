package web_test

import (
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/internal/servertest"
)

// zenAnyRowRE finds a zen row's unit id and version in any translation.
var zenAnyRowRE = regexp.MustCompile(`(?s)class="zen-row" id="zen-(\d+)".*?name="version" value="([0-9a-f]+)"`)

// TestZenNarrowedGrant: a team's grant narrowed to one language, then to
// one component, gives its member zen mode's editors and saves there and
// nowhere else (CanTranslation): it fails if zen mode reads project-wide
// grants only, or ignores the narrowing.
func TestZenNarrowedGrant(t *testing.T) {
	srv, db := shopServer(t)
	ctx := context.Background()
	servertest.MustUser(t, db, "zoe", false)
	mustPassword(t, db, "zoe", "correct horse")
	zoe := newBrowser(t, srv.URL)
	zoe.signIn("zoe", "correct horse")
	user, err := db.FindUser(ctx, "zoe")
	if err != nil {
		t.Fatal(err)
	}
	var translate int64
	roles, err := db.FindRoles(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range roles {
		if r.Name == "Translate" {
			translate = r.ID
		}
	}
	shop, err := db.FindProject(ctx, "shop")
	if err != nil {
		t.Fatal(err)
	}
	ui, err := db.FindComponent(ctx, "shop", "ui")
	if err != nil {
		t.Fatal(err)
	}
	de, err := db.FindLanguageID(ctx, "de")
	if err != nil {
		t.Fatal(err)
	}
	team := func(name string, links map[index.TeamLink][]int64) int64 {
		t.Helper()
		tm, err := db.CreateTeam(ctx, index.Team{Name: name, LanguageSelection: 0, ProjectSelection: 0})
		if err != nil {
			t.Fatal(err)
		}
		links[index.TeamRoles] = append(links[index.TeamRoles], translate)
		links[index.TeamMembers] = append(links[index.TeamMembers], user.ID)
		for kind, ids := range links {
			for _, id := range ids {
				if err := db.LinkTeam(ctx, tm.ID, kind, id, true, string(kind)); err != nil {
					t.Fatal(err)
				}
			}
		}
		return tm.ID
	}
	// zen reports whether zoe gets editors in a translation's zen view and
	// whether saving its first row is allowed.
	zen := func(lang string) (editors bool, save int) {
		t.Helper()
		r := zoe.get("/zen/shop/ui/" + lang + "/")
		rows := zenAnyRowRE.FindAllSubmatch(r.Body, -1)
		if r.Status != http.StatusOK || len(rows) == 0 {
			t.Fatalf("zen %s = %d, %d rows\n%s", lang, r.Status, len(rows), r.Body)
		}
		editors = regexp.MustCompile(`<textarea name="target" lang="` + lang + `" dir="(ltr|rtl)" rows="2">`).Match(r.Body)
		data, _ := json.Marshal(map[string]any{"id": json.Number(rows[0][1]), "version": string(rows[0][2]),
			"target": []string{"Zen " + lang}})
		res := zoe.send("POST", "/translate/shop/ui/"+lang+"/save/", http.Header{"Content-Type": {"application/json"},
			"X-CSRF-Token": {csrf(t, r.Body)}}, strings.NewReader(string(data)))
		return editors, res.Status
	}
	want := func(what, lang string, editors bool, status int) {
		t.Helper()
		if e, s := zen(lang); e != editors || s != status {
			t.Errorf("%s, %s: editors %v, save %d; want %v, %d", what, lang, e, s, editors, status)
		}
	}
	want("no team", "de", false, http.StatusForbidden)

	// German translators of the shop.
	german := team("German", map[index.TeamLink][]int64{index.TeamProjects: {shop.ID}, index.TeamLanguages: {de}})
	want("German team", "de", true, http.StatusOK)
	want("German team", "ar", false, http.StatusForbidden)
	if err := db.DeleteTeam(ctx, german); err != nil {
		t.Fatal(err)
	}
	want("team gone", "de", false, http.StatusForbidden)

	// Translators of the ui component in every language.
	tm := team("UI", map[index.TeamLink][]int64{index.TeamComponents: {ui.ID}})
	if _, err := db.UpdateTeam(ctx, tm, func(x *index.Team) error { x.LanguageSelection = 1; return nil }); err != nil {
		t.Fatal(err)
	}
	want("ui team", "de", true, http.StatusOK)
	want("ui team", "ar", true, http.StatusOK)
}
