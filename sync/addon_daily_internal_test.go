package sync

import (
	"fmt"
	"testing"

	"github.com/tolk-project/tolk/index"
)

// TestDailyWork: a project's languages add-on runs on one component of
// its project (once: the run is the project's), one installed on a
// component on that one; a project's automatic translation add-on on
// each component of its project on the component's day of 30 only; a
// component's pseudolocale add-on on that component every day.
func TestDailyWork(t *testing.T) {
	comps := []index.Component{{ID: 1, ProjectID: 1}, {ID: 2, ProjectID: 1}, {ID: 3, ProjectID: 2}, {ID: 4, ProjectID: 2}}
	addons := []index.Addon{
		{ID: 10, Name: index.AddonLanguages, ProjectID: 1},
		{ID: 11, Name: index.AddonLanguages, ProjectID: 2, ComponentID: 4},
		{ID: 12, Name: index.AddonPseudolocale, ProjectID: 1, ComponentID: 2},
		{ID: 13, Name: index.AddonAutoTranslate, ProjectID: 1},
	}
	for _, tc := range []struct {
		day  int64
		want string
	}{
		{62, "1:[10] 2:[12 13] 4:[11]"}, // day 62 is day 2 of the cycle: component 2's
		{61, "1:[10 13] 2:[12] 4:[11]"},
		{63, "1:[10] 2:[12] 4:[11]"},
	} {
		work := dailyWork(addons, comps, tc.day)
		got := ""
		for _, c := range comps {
			if todo := work[c.ID]; len(todo) > 0 {
				var ids []int64
				for _, a := range todo {
					ids = append(ids, a.ID)
				}
				got += fmt.Sprintf(" %d:%v", c.ID, ids)
			}
		}
		if got != " "+tc.want {
			t.Errorf("day %d: work%s, want %s", tc.day, got, tc.want)
		}
	}
}
