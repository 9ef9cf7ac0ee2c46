package sqlstore

import (
	"strings"
	"testing"

	"github.com/tolk-project/tolk/index/internal/testengine"
)

// TestChangePagePlan: a page of changes joins only the component (its
// category's path) and reads the project, translation and users by
// scalar subqueries (SubPlans). PostgreSQL plans a custom plan of the
// page at every read once the changes table outgrows its generic plan,
// and with all five joined its join search took 1.3-3 ms a page at 10x
// the corpus, four to ten times the page's execution (issue 31). Fails
// on the joined statement: projects, translations and users outside any
// SubPlan.
func TestChangePagePlan(t *testing.T) {
	if testengine.Engine() != testengine.Postgres {
		t.Skip("the join search is PostgreSQL's planning cost")
	}
	f := mustWriteFixture(t)
	plan, _ := explain(t, f.db, changeSelect+` WHERE ch.id >= ? ORDER BY ch.id LIMIT ?`, 1, 50)
	sub := -1 // the indent of the SubPlan being read, -1 outside one
	joined := map[string]bool{}
	for _, l := range strings.Split(plan, "\n") {
		indent := len(l) - len(strings.TrimLeft(l, " "))
		if sub >= 0 && indent <= sub {
			sub = -1
		}
		if strings.HasPrefix(strings.TrimSpace(l), "SubPlan") {
			sub = indent
			continue
		}
		for _, table := range []string{"changes", "components", "projects", "translations", "users"} {
			if sub < 0 && strings.Contains(l, " on "+table+" ") {
				joined[table] = true
			}
		}
	}
	if !joined["changes"] || !joined["components"] {
		t.Errorf("the page does not read changes joined with components:\n%s", plan)
	}
	for _, table := range []string{"projects", "translations", "users"} {
		if joined[table] {
			t.Errorf("%s joined in the page's plan, not read by a SubPlan:\n%s", table, plan)
		}
	}
}
