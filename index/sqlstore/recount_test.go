package sqlstore

import (
	"context"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/index"
)

// TestVerifyCountsFindsEachCounter breaks each kind of counter behind the
// store's back and checks that VerifyCounts names it, then that putting
// it back makes the recount clean again: a recount that cannot fail
// proves nothing about the writes tested with it.
func TestVerifyCountsFindsEachCounter(t *testing.T) {
	f := mustWriteFixture(t)
	ctx := context.Background()
	checkStoredStats(t, f.db)
	de := f.unit(t, "de", 0) // translated
	exec := func(query string, args ...any) {
		t.Helper()
		if err := f.db.write(ctx, func(tx *Tx) error {
			_, err := tx.Exec(query, args...)
			return err
		}); err != nil {
			t.Fatalf("%s: %v", query, err)
		}
	}
	for _, tc := range []struct {
		name         string
		break_, mend string
		want         string
	}{
		{"words", `UPDATE units SET num_words = num_words + 1 WHERE id = ?`,
			`UPDATE units SET num_words = num_words - 1 WHERE id = ?`, "num_words"},
		{"characters", `UPDATE units SET num_chars = num_chars + 1 WHERE id = ?`,
			`UPDATE units SET num_chars = num_chars - 1 WHERE id = ?`, "num_chars"},
		{"failing flag without a check", `UPDATE units SET has_failing_check = 1 WHERE id = ?`,
			`UPDATE units SET has_failing_check = 0 WHERE id = ?`, "has_failing_check true, recount false"},
		{"a check without the flag", `INSERT INTO checks (unit_id, name) VALUES (?, 'same')`,
			`DELETE FROM checks WHERE unit_id = ?`, "has_failing_check false, recount true"},
		{"a suggestion without the flag", `INSERT INTO suggestions (unit_id, target, timestamp) VALUES (?, 'x', '2026-01-01')`,
			`DELETE FROM suggestions WHERE unit_id = ?`, "has_suggestion false, recount true"},
		{"an unresolved comment without the flag", `INSERT INTO comments (unit_id, comment, timestamp) VALUES (?, 'x', '2026-01-01')`,
			`DELETE FROM comments WHERE unit_id = ?`, "has_comment false, recount true"},
		{"the flag of a resolved comment", `UPDATE units SET has_comment = 1 WHERE id = ?`,
			`UPDATE units SET has_comment = 0 WHERE id = ?`, "has_comment true, recount false"},
		{"a state the statistics missed", `UPDATE units SET state = 30 WHERE id = ?`,
			`UPDATE units SET state = 20 WHERE id = ?`, "recount {total=10"},
		{"a list count", `UPDATE list_counts SET n = n + 1 WHERE list = 'ut' AND scope = (SELECT translation_id FROM units WHERE id = ?)`,
			`UPDATE list_counts SET n = n - 1 WHERE list = 'ut' AND scope = (SELECT translation_id FROM units WHERE id = ?)`, "list count ut/"},
	} {
		exec(tc.break_, de.ID)
		problems, err := f.db.VerifyCounts(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(strings.Join(problems, "\n"), tc.want) {
			t.Errorf("%s: VerifyCounts = %q, want a line with %q", tc.name, problems, tc.want)
		}
		exec(tc.mend, de.ID)
		checkStoredStats(t, f.db)
	}
	// A statistics row at each level, and a row left with counts after
	// its scope is gone.
	for _, scope := range []string{"t", "c", "p", "l", "pl"} {
		exec(`UPDATE stats SET comments = comments + 1 WHERE scope = ? AND total > 0 AND scope_key = (
			SELECT min(scope_key) FROM stats WHERE scope = ? AND total > 0)`, scope, scope)
		problems, err := f.db.VerifyCounts(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(problems) != 1 || !strings.HasPrefix(problems[0], "stats "+scope+"/") {
			t.Errorf("scope %s: VerifyCounts = %q", scope, problems)
		}
		exec(`UPDATE stats SET comments = comments - 1 WHERE scope = ? AND comments > 0`, scope)
	}
	exec(`INSERT INTO stats (scope, scope_key, ` + statsColumns + `) VALUES ('c', '999999',
		1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)`)
	if problems, _ := f.db.VerifyCounts(ctx); len(problems) != 1 || !strings.Contains(problems[0], "stats c/999999: stored {total=1}") {
		t.Errorf("a row of a component that is gone: %q", problems)
	}
}

// TestEveryWriteKeepsCounts runs each kind of write the index takes, the
// review transitions among them, and recounts every counter after each
// (VerifyCounts): approving, unapproving, every upload method, adding
// and removing strings and translations, a template edit and an import
// that move a source string under an approved translation, component
// settings that change which checks fail, dismissing a check, and
// removing the component.
func TestEveryWriteKeepsCounts(t *testing.T) {
	f := mustWriteFixture(t)
	ctx := context.Background()
	step := func(name string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		checkStoredStats(t, f.db)
		if t.Failed() {
			t.Fatalf("counts wrong after %s", name)
		}
	}
	edit := func(lang string, i int, target string, state index.State) error {
		_, err := f.db.UpdateUnit(ctx, f.unit(t, lang, i).ID, f.user, func(index.Unit, index.Translation) (index.UnitUpdate, error) {
			return index.UnitUpdate{Edit: &index.UnitEdit{Target: []string{target}, State: state, Autofix: true}}, nil
		})
		return err
	}
	step("approve", edit("de", 0, "Wort Nummer 0", index.StateApproved))
	step("unapprove", edit("de", 0, "Wort Nummer 0", index.StateTranslated))
	step("approve again", edit("de", 0, "Wort Nummer 0", index.StateApproved))
	step("mark for edit", edit("de", 2, "Wort Nummer 2", index.StateFuzzy))
	step("clear", edit("de", 4, "", index.StateEmpty))
	// A translation equal to its source fails "same": the failing
	// counts move.
	step("edit failing a check", edit("fr", 1, "Word number 1", index.StateTranslated))
	// The editor's revert: an edit recording change 8 (issue 30).
	step("revert", func() error {
		_, err := f.db.UpdateUnit(ctx, f.unit(t, "de", 2).ID, f.user, func(index.Unit, index.Translation) (index.UnitUpdate, error) {
			return index.UnitUpdate{Edit: &index.UnitEdit{Target: []string{"Wort Nummer zwei"}, State: index.StateTranslated,
				Autofix: true, Action: index.ActionRevert}}, nil
		})
		return err
	}())
	if got := changeDetailsOf(t, f, f.unit(t, "de", 2).ID, index.ActionRevert); !strings.HasPrefix(got, `{"state":20,"old_state":10`) {
		t.Errorf("the revert's change details = %s", got)
	}
	// A component sharing the strings: later edits propagate to it.
	f.twin(t, "web", true)
	step("edit propagated to another component", edit("de", 3, "Wort Nummer drei", index.StateTranslated))

	upload := func(lang string, up index.Upload) error {
		up.UserID = f.user.UserID
		_, err := f.db.ApplyUpload(ctx, f.tr[lang], up)
		return err
	}
	file := func(pairs ...string) []index.ImportUnit {
		var out []index.ImportUnit
		for i := 0; i < len(pairs); i += 2 {
			out = append(out, index.ImportUnit{Context: pairs[i], Target: []string{pairs[i+1]}, State: index.StateTranslated})
		}
		return out
	}
	step("upload translate", upload("de", index.Upload{Method: index.UploadTranslate, Units: file("k1", "Eins", "k3", "Drei")}))
	step("upload fuzzy", upload("de", index.Upload{Method: index.UploadFuzzy, Units: file("k5", "Fünf")}))
	step("upload approve", upload("de", index.Upload{Method: index.UploadApprove, Units: file("k7", "Sieben")}))
	step("upload over approved", upload("de", index.Upload{Method: index.UploadTranslate,
		Conflicts: index.ConflictsReplaceApproved, Units: file("k0", "Null", "k7", "Sieben!")}))
	if got := changeDetailsOf(t, f, f.unit(t, "de", 0).ID, index.ActionUpload); !strings.HasPrefix(got, `{"state":20,"old_state":30,`) {
		t.Errorf("upload over an approved string: details %s", got)
	}
	step("upload replace", upload("fr", index.Upload{Method: index.UploadReplace, Units: file("k0", "zéro", "k9", "neuf")}))
	step("upload add", upload("en", index.Upload{Method: index.UploadAdd, Units: []index.ImportUnit{
		{Context: "k20", Source: []string{"Twenty words here"}, Target: []string{"Twenty words here"}}}}))

	step("approve before the source moves", edit("de", 6, "Wort Nummer sechs", index.StateApproved))
	step("template edit", edit("en", 6, "The sixth word", index.StateReadOnly))
	if u := f.unit(t, "de", 6); u.State != index.StateNeedsRewriting {
		t.Errorf("approved German unit after the template edit: state %d, want 11", u.State)
	}

	// A pull: upstream moved the source of k8 under an approved German
	// translation; every file is imported again as it stands otherwise.
	step("approve k8", edit("de", 8, "Wort Nummer 8", index.StateApproved))
	for _, lang := range []string{"en", "de", "fr"} {
		units, _, err := f.db.FindUnits(ctx, index.UnitFilter{TranslationID: f.tr[lang], Page: index.Page{Number: 1, Size: 100}})
		if err != nil {
			t.Fatal(err)
		}
		imp := index.TranslationImport{ComponentID: f.comp.ID, LanguageCode: lang, Filename: lang + ".json",
			Revision: "r2", Monolingual: true, IsSource: lang == "en", IsTemplate: lang == "en", SourceTranslationID: f.tr["en"]}
		if lang == "en" {
			imp.SourceTranslationID = 0
		}
		for _, u := range units {
			iu := index.ImportUnit{Context: u.Context, Source: u.Source, Target: u.Target, State: u.State}
			if u.Context == "k8" {
				iu.Source = []string{"Upstream's eighth word"}
				if lang == "en" {
					iu.Target = iu.Source
				}
			}
			imp.Units = append(imp.Units, iu)
		}
		_, err = f.db.ImportTranslation(ctx, imp)
		step("import "+lang, err)
	}
	de8 := f.unit(t, "de", 8)
	if de8.State != index.StateNeedsRewriting || de8.PreviousSource != "Word number 8" {
		t.Errorf("approved German unit after upstream moved its source: state %d previous %q, want 11", de8.State, de8.PreviousSource)
	}
	// The history says why it left its approval.
	if got := changeDetailsOf(t, f, de8.ID, index.ActionSourceChange); got != `{"old":"Word number 8","state":11,"old_state":30}` {
		t.Errorf("source change of the pull: details %s", got)
	}

	it, err := f.db.CreateTranslation(ctx, f.comp.ID, "it", "it.json", f.user)
	step("add translation", err)
	_, err = f.db.AddUnit(ctx, f.tr["en"], f.user, func(index.Translation) (index.NewUnit, error) {
		return index.NewUnit{Context: "k30", Source: []string{"Thirty"}, Target: []string{"Thirty"}, State: index.StateReadOnly}, nil
	})
	step("add string", err)
	step("remove string", f.db.DeleteUnit(ctx, f.unit(t, "en", 3).ID, f.user, func(index.Unit, index.Translation) error { return nil }))
	step("remove translation", f.db.DeleteTranslation(ctx, it, f.user))

	_, _, err = f.db.UpdateComponent(ctx, f.comp.ID, func(c *index.Component) error {
		c.CheckFlags = "max-length:5"
		return nil
	})
	step("component check flags", err)
	_, _, err = f.db.UpdateComponent(ctx, f.comp.ID, func(c *index.Component) error {
		c.EnforcedChecks = []string{"max_length"}
		return nil
	})
	step("component enforced checks", err)
	var failingUnit int64
	var failingCheck string
	if err := f.db.r.QueryRowContext(ctx, `SELECT k.unit_id, k.name FROM checks k JOIN units u ON u.id = k.unit_id
		WHERE u.translation_id = ? AND k.dismissed = 0 ORDER BY 1, 2 LIMIT 1`, f.tr["de"]).Scan(&failingUnit, &failingCheck); err != nil {
		t.Fatalf("no check fails: the settings steps moved no failing count (%v)", err)
	}
	_, err = f.db.SetCheckDismissed(ctx, failingUnit, failingCheck, true, f.user,
		func(index.Unit, index.Translation) error { return nil })
	step("dismiss a check", err)
	step("edit with an enforced check failing", edit("de", 1, "Eins zwei drei", index.StateTranslated))

	// Suggestions and comments move has_suggestion, has_comment and the
	// statistics' suggestions and comments; a removed string takes its
	// counts with it.
	allow := func(index.Unit, index.Translation) (index.SuggestionRights, error) {
		return index.SuggestionRights{Vote: true}, nil
	}
	suggest := func(lang string, i int, text string) index.SuggestionOutcome {
		t.Helper()
		out, err := f.db.AddSuggestion(ctx, f.unit(t, lang, i).ID, index.NewSuggestion{Target: []string{text},
			UserID: f.user.UserID}, allow)
		step("suggest "+text, err)
		return out
	}
	s1 := suggest("de", 5, "Fünf, vorgeschlagen")
	s2 := suggest("de", 5, "Fünf, anders vorgeschlagen")
	s3 := suggest("fr", 5, "cinq proposé")
	s4 := suggest("de", 9, "Neun, vorgeschlagen")
	_, err = f.db.VoteSuggestion(ctx, s2.Suggestion.ID, f.user.UserID, -1,
		func(index.Suggestion, index.Unit, index.Translation) error { return nil })
	step("vote", err)
	_, err = f.db.AcceptSuggestion(ctx, s1.Suggestion.ID, f.user,
		func(index.Suggestion, index.Unit, index.Translation) (index.State, error) {
			return index.StateTranslated, nil
		})
	step("accept one of two suggestions", err)
	step("delete the other", f.db.DeleteSuggestion(ctx, s2.Suggestion.ID, f.user, index.Rejection{},
		func(index.Suggestion, index.Unit, index.Translation) error { return nil }))
	comment := func(lang string, i int, scope index.CommentScope) index.Comment {
		t.Helper()
		u := f.unit(t, lang, i)
		c, err := f.db.AddComment(ctx, u.ID, f.user, index.NewComment{Scope: scope, Comment: "Is this right?"},
			func(index.Unit, index.Translation) (int64, error) {
				if scope == index.ScopeGlobal {
					return u.SourceUnitID, nil
				}
				return u.ID, nil
			})
		step("comment", err)
		return c
	}
	c1 := comment("de", 7, index.ScopeTranslation)
	comment("de", 7, index.ScopeGlobal)
	c3 := comment("fr", 7, index.ScopeTranslation)
	allowComment := func(index.Comment, index.Translation) error { return nil }
	_, err = f.db.SetCommentResolved(ctx, c1.ID, true, f.user, allowComment)
	step("resolve a comment", err)
	_, err = f.db.SetCommentResolved(ctx, c1.ID, false, f.user, allowComment)
	step("reopen it", err)
	step("delete a comment", f.db.DeleteComment(ctx, c3.ID, f.user, allowComment))
	step("remove a string with suggestions and comments", f.db.DeleteUnit(ctx, f.unit(t, "en", 7).ID, f.user,
		func(index.Unit, index.Translation) error { return nil }))
	var left int
	if err := f.db.r.QueryRowContext(ctx, `SELECT count(*) FROM suggestions WHERE id IN (?, ?)`,
		s3.Suggestion.ID, s4.Suggestion.ID).Scan(&left); err != nil || left != 2 {
		t.Errorf("suggestions left on strings still there: %d (%v), want 2", left, err)
	}

	// The daily checks (checks_daily.go), once something fails in two
	// languages.
	step("fail in fr", edit("fr", 2, "Mot numéro 2 !", index.StateTranslated))
	step("fail in de", edit("de", 2, "Wort Nummer 2!", index.StateTranslated))
	_, err = f.db.SettleBatchChecks(ctx)
	step("daily batch checks", err)
	// Automatic translation: a batch of edits and one of suggestions.
	for _, mode := range []index.AutoMode{index.AutoTranslate, index.AutoSuggest} {
		j, err := f.db.CreateAutoTranslateJob(ctx, index.AutoTranslateJob{ID: "job-" + string(mode),
			ProjectID: f.comp.ProjectID, ComponentID: f.comp.ID, TranslationID: f.tr["fr"], UserID: f.user.UserID,
			Params: index.AutoTranslateParams{Mode: mode, Query: index.AutoDefaultQuery, Source: index.AutoSourceOthers, Threshold: 80}})
		step("autotranslate job "+string(mode), err)
		units, err := f.db.NextAutoTranslateUnits(ctx, j, 3)
		step("autotranslate units", err)
		b := index.AutoBatch{Cursor: units[len(units)-1].ID, Seen: len(units)}
		for _, u := range units {
			b.Results = append(b.Results, index.AutoResult{UnitID: u.ID, Target: []string{"auto " + u.Source[0]}})
		}
		_, err = f.db.ApplyAutoTranslateBatch(ctx, j.ID, b)
		step("autotranslate "+string(mode), err)
	}
	// Signing in with a one-time link touches no counter (user_activity
	// counts changes, and it writes none).
	link := index.NewToken(index.LoginLinkPrefix)
	step("create a sign-in link", f.db.CreateLoginLink(ctx, index.Session{Hash: index.HashToken(link),
		UserID: f.user.UserID, Expires: f.clock.Now().Add(index.LoginLinkLifetime)}))
	_, err = f.db.RedeemLoginLink(ctx, link, index.Session{Hash: index.HashToken(index.NewToken(index.SessionPrefix)),
		Expires: f.clock.Now().Add(index.SessionLifetime)})
	step("redeem it", err)
	// Teams, roles and component lists (issue 33) touch no counter, and
	// a component's removal leaves none of them listing it.
	role, err := f.db.CreateRole(ctx, index.Role{Name: "Counter role", Permissions: []index.Permission{index.PermUnitEdit}})
	step("create a role", err)
	team, err := f.db.CreateTeam(ctx, index.Team{Name: "Counters", ProjectID: f.comp.ProjectID})
	step("create a team", err)
	step("give the team the role", f.db.LinkTeam(ctx, team.ID, index.TeamRoles, role.ID, true, ""))
	step("list the component in the team", f.db.LinkTeam(ctx, team.ID, index.TeamComponents, f.comp.ID, true, ""))
	list, err := f.db.CreateComponentList(ctx, index.ComponentList{Name: "Counters", Slug: "counters"})
	step("create a component list", err)
	step("list the component", f.db.LinkComponentList(ctx, list.ID, f.comp.ID, true))
	step("remove the role", f.db.DeleteRole(ctx, role.ID))
	// Imported memory entries count in the memory list ('mi', migration
	// 0071) by project and language pair.
	imported := func(project int64, sources ...string) error {
		var es []index.MemoryImportEntry
		for _, src := range sources {
			es = append(es, index.MemoryImportEntry{SourceLanguage: "en", TargetLanguage: "de", Source: src, Target: "Z"})
		}
		_, err := f.db.ImportMemory(ctx, project, f.user.UserID, es)
		return err
	}
	step("import memory site-wide", imported(0, "one", "two", "three"))
	step("import memory into the project", imported(f.comp.ProjectID, "one", "four"))
	var entry int64
	if err := f.db.r.QueryRowContext(ctx, `SELECT min(id) FROM memory`).Scan(&entry); err != nil {
		t.Fatal(err)
	}
	step("delete a memory entry", f.db.DeleteMemoryEntry(ctx, index.MemoryImportedID(entry)))
	// The trigram index's upkeep (trigram_pending.go) after the edits
	// and after the removal: the index has every unit's row after it.
	_, err = f.db.IndexTrigrams(ctx)
	step("index the noted units", err)

	_, err = f.db.DeleteComponent(ctx, f.comp.ID, f.user)
	step("remove component", err)
	_, err = f.db.IndexTrigrams(ctx)
	step("index the removed units", err)
	if l, err := f.db.FindComponentListByID(ctx, list.ID); err != nil || len(l.Components) != 0 {
		t.Errorf("the list after the component's removal: %+v, %v", l, err)
	}
	if tm, err := f.db.FindTeam(ctx, team.ID); err != nil || len(tm.Components) != 0 || len(tm.Roles) != 0 {
		t.Errorf("the team after the component's and role's removal: %+v, %v", tm, err)
	}
	_, err = f.db.DeleteProject(ctx, f.comp.ProjectID)
	step("remove the project and its memory", err)
}

// TestImportKeepsApproval imports a file that cannot say "approved"
// (as JSON cannot) over approved strings: one the file holds unchanged
// stays approved, one upstream changed is translated, not approved, and
// the counts follow.
func TestImportKeepsApproval(t *testing.T) {
	f := mustWriteFixture(t)
	ctx := context.Background()
	for _, i := range []int{0, 2} {
		if _, err := f.db.UpdateUnit(ctx, f.unit(t, "de", i).ID, f.user, func(u index.Unit, _ index.Translation) (index.UnitUpdate, error) {
			return index.UnitUpdate{Edit: &index.UnitEdit{Target: u.Target, State: index.StateApproved}}, nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	// The edits are committed: the file holds them, and nothing is
	// pending.
	imp := index.TranslationImport{ComponentID: f.comp.ID, LanguageCode: "de", Filename: "de.json",
		Revision: "r2", Monolingual: true, SourceTranslationID: f.tr["en"]}
	for i := range 10 {
		u := f.unit(t, "de", i)
		iu := index.ImportUnit{Context: u.Context, Source: u.Source, Target: u.Target, State: u.State}
		if u.State == index.StateApproved {
			iu.State = index.StateTranslated // what the file says
		}
		if i == 2 {
			iu.Target = []string{"Upstream's own text"}
		}
		imp.Units = append(imp.Units, iu)
	}
	if err := f.db.write(ctx, func(tx *Tx) error {
		_, err := tx.Exec(`UPDATE units SET pending = 0, pending_since = NULL`)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.db.ImportTranslation(ctx, imp); err != nil {
		t.Fatal(err)
	}
	if u := f.unit(t, "de", 0); u.State != index.StateApproved {
		t.Errorf("approved string the file holds unchanged: state %d, want 30", u.State)
	}
	if u := f.unit(t, "de", 2); u.State != index.StateTranslated || u.Target[0] != "Upstream's own text" {
		t.Errorf("approved string upstream changed: %d %q, want 20 with upstream's text", u.State, u.Target)
	}
	checkStoredStats(t, f.db)
}

// changeDetailsOf returns the details of the newest change of a unit with
// the given action, "" when there is none.
func changeDetailsOf(t *testing.T, f *writeFixture, unitID int64, action index.Action) string {
	t.Helper()
	var details string
	err := f.db.r.QueryRowContext(context.Background(), `SELECT details FROM changes WHERE unit_id = ? AND action = ?
		ORDER BY id DESC LIMIT 1`, unitID, action).Scan(&details)
	if err != nil {
		t.Errorf("change %d of unit %d: %v", action, unitID, err)
	}
	return details
}
