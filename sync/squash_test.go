package sync_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/index"
)

// squashEnv is the commit tests' component with edits by Ann and Bob in
// German and French: four commits (one per translation and author)
// before any squash.
func squashEnv(t *testing.T, q index.Squash) commitEnv {
	t.Helper()
	e := mustCommitEnv(t)
	if _, err := e.db.CreateAddon(context.Background(), index.Addon{Name: index.AddonSquash,
		ProjectID: e.c.ProjectID, ComponentID: e.c.ID, Squash: q}); err != nil {
		t.Fatal(err)
	}
	e.edit(t, "de", "bye", "Tschüss", e.ann)
	e.edit(t, "fr", "bye", "Au revoir", e.ann)
	e.edit(t, "de", "hello", "Servus", e.bob)
	e.edit(t, "fr", "hello", "Salut", e.bob)
	return e
}

// countLocal is how many commits upstream has on its first one.
func countLocal(t *testing.T, e commitEnv) int {
	t.Helper()
	return len(strings.Split(strings.TrimSpace(git(t, e.bare, "rev-list", "main", "^"+
		strings.TrimSpace(git(t, e.bare, "rev-list", "--max-parents=0", "main")))), "\n"))
}

// TestSquashAll: the four commits reach upstream as one, by the
// committer (two authors), with every message body once and the
// trailers once each, Co-authored-by for both authors; the files as
// four commits would have left them.
func TestSquashAll(t *testing.T) {
	e := squashEnv(t, index.Squash{Mode: index.SquashAll, AppendTrailers: true})
	res, err := e.svc.Commit(context.Background(), e.c, nil)
	if err != nil || len(res.Commits) != 1 {
		t.Fatalf("Commit = %+v, %v; want one squashed commit", res, err)
	}
	// The change log says what the add-on did, once.
	changes, _, err := e.db.FindChanges(context.Background(), index.ChangeFilter{ComponentID: e.c.ID,
		Actions: []index.Action{index.ActionCommit}, Page: index.Page{Number: 1, Size: 100}})
	if err != nil {
		t.Fatal(err)
	}
	var squashes int
	for _, ch := range changes {
		if ch.Target == "Squashed 4 commits into 1 (weblate.git.squash, all)" && ch.UserID == 0 && ch.TranslationID == 0 {
			squashes++
		}
	}
	if squashes != 1 {
		t.Errorf("%d squash changes among %+v, want 1", squashes, changes)
	}
	if err := e.svc.Push(context.Background(), e.c, nil); err != nil {
		t.Fatal(err)
	}
	if n := countLocal(t, e); n != 1 {
		t.Fatalf("upstream gained %d commits, want 1:\n%s", n, git(t, e.bare, "log", "--format=%an | %s", "main"))
	}
	msg := git(t, e.bare, "log", "-1", "--format=%an <%ae>%n%B", "main")
	for _, want := range []string{"Tolk Bot <bot@tolk.example>", "Translated using Tolk (German)",
		"Translated using Tolk (French)", "Co-authored-by: Ann Example <ann@example.com>",
		"Co-authored-by: Bob Example <bob@example.com>", "Translation: Test/app"} {
		if !strings.Contains(msg, want) {
			t.Errorf("squashed commit lacks %q:\n%s", want, msg)
		}
	}
	if strings.Count(msg, "Translated using Tolk (German)") != 1 || strings.Count(msg, "Translation: Test/app") != 1 {
		t.Errorf("squashed commit repeats what its commits share:\n%s", msg)
	}
	de := git(t, e.bare, "show", "main:locales/de.json")
	if !strings.Contains(de, "Tschüss") || !strings.Contains(de, "Servus") {
		t.Errorf("upstream's de.json:\n%s", de)
	}
	if fr := git(t, e.bare, "show", "main:locales/fr.json"); !strings.Contains(fr, "Salut") || !strings.Contains(fr, "Au revoir") {
		t.Errorf("upstream's fr.json:\n%s", fr)
	}
}

// TestSquashModes: per language (two commits, one per file's language,
// each by the committer with its own custom message), per file (the
// same here), per author (Bob's two commits, German and French, then Ann's:
// Tolk commits each translation's edits by author, Bob's strings first).
func TestSquashModes(t *testing.T) {
	for _, tc := range []struct {
		q    index.Squash
		want []string // "author | subject", oldest first
	}{
		{index.Squash{Mode: index.SquashLanguage, CommitMessage: "Squashed {{ language_name }}"},
			[]string{"Tolk Bot | Squashed German", "Tolk Bot | Squashed French"}},
		{index.Squash{Mode: index.SquashFile, AppendTrailers: true},
			[]string{"Tolk Bot | Translated using Tolk (German)", "Tolk Bot | Translated using Tolk (French)"}},
		{index.Squash{Mode: index.SquashAuthor, AppendTrailers: true},
			[]string{"Bob Example | Translated using Tolk (German)", "Ann Example | Translated using Tolk (German)"}},
		{index.Squash{Mode: index.SquashAll}, []string{"Tolk Bot | Translated using Tolk (German)"}},
	} {
		t.Run(tc.q.Mode, func(t *testing.T) {
			e := squashEnv(t, tc.q)
			if _, err := e.svc.Commit(context.Background(), e.c, nil); err != nil {
				t.Fatal(err)
			}
			if err := e.svc.Push(context.Background(), e.c, nil); err != nil {
				t.Fatal(err)
			}
			got := strings.Split(git(t, e.bare, "log", "--reverse", "--format=%an | %s", "main~"+strconv.Itoa(len(tc.want))+"..main"), "\n")
			if n := countLocal(t, e); n != len(tc.want) || strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("upstream gained %d commits:\n%s\nwant\n%s", n, strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
			de := git(t, e.bare, "show", "main:locales/de.json")
			if !strings.Contains(de, "Tschüss") || !strings.Contains(de, "Servus") {
				t.Errorf("upstream's de.json:\n%s", de)
			}
		})
	}
}
