package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/tolk-project/tolk/index"
)

// BenchmarkUpdateUnitHooks measures a unit edit as a PATCH makes it
// (BenchmarkUpdateUnit's work) with no webhook anywhere, with one in
// another project only, and with one on the edited component that wants
// the edit, whose delivery is queued in the edit's transaction.
//
//	go test ./index/sqlite -run '^$' -bench UpdateUnitHooks -count 6
func BenchmarkUpdateUnitHooks(b *testing.B) {
	for _, scenario := range []string{"none", "elsewhere", "hook"} {
		b.Run(scenario, func(b *testing.B) {
			ctx := context.Background()
			db, err := Open(ctx, filepath.Join(b.TempDir(), "tolk.db"))
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			p, _, err := db.SaveProject(ctx, index.Project{Name: "Bench", Slug: "bench"})
			if err != nil {
				b.Fatal(err)
			}
			other, _, err := db.SaveProject(ctx, index.Project{Name: "Other", Slug: "other"})
			if err != nil {
				b.Fatal(err)
			}
			c := mustTestComponent(b, db, p.ID, "c")
			hook := index.Addon{Name: index.AddonWebhook, ProjectID: p.ID, ComponentID: c.ID,
				Webhook: index.Webhook{URL: "https://example.com/", Filter: index.EventsContent}}
			switch scenario {
			case "elsewhere":
				hook.ProjectID, hook.ComponentID = other.ID, 0
				fallthrough
			case "hook":
				if hook, err = db.CreateAddon(ctx, hook); err != nil {
					b.Fatal(err)
				}
			}
			res, err := db.ImportTranslation(ctx, index.TranslationImport{ComponentID: c.ID, LanguageCode: "de",
				Filename: "de.json", Revision: "r1", Monolingual: true, Units: benchUnits("key", 0, 2000, false)})
			if err != nil {
				b.Fatal(err)
			}
			units, _, err := db.FindUnits(ctx, index.UnitFilter{TranslationID: res.TranslationID, Page: index.Page{Number: 1, Size: 2000}})
			if err != nil || len(units) != 2000 {
				b.Fatalf("units: %d, %v", len(units), err)
			}
			user, err := db.CreateUser(ctx, index.User{Username: "anna", Email: "anna@example.com", IsActive: true})
			if err != nil {
				b.Fatal(err)
			}
			actor := index.UserActor(&user)
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				u := units[(i*7919)%len(units)]
				if _, err := db.UpdateUnit(ctx, u.ID, actor, func(index.Unit, index.Translation) (index.UnitUpdate, error) {
					return index.UnitUpdate{Edit: &index.UnitEdit{Target: []string{fmt.Sprint("Wert ", i)}, State: index.StateTranslated}}, nil
				}); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			// Each edit queued its delivery, or none did.
			counts, err := db.CountDeliveries(ctx)
			if err != nil {
				b.Fatal(err)
			}
			want := 0
			if scenario == "hook" {
				want = b.N
			}
			if counts[index.DeliveryPending] != want {
				b.Fatalf("%d deliveries pending after %d edits, want %d", counts[index.DeliveryPending], b.N, want)
			}
		})
	}
}

// BenchmarkHookMatch measures the question every change asks of the
// writer's webhooks, alone: for a project without any (while another
// has one), and for one whose hook wants the change.
//
//	go test ./index/sqlite -run '^$' -bench HookMatch
func BenchmarkHookMatch(b *testing.B) {
	hook := index.Addon{ID: 1, Name: index.AddonWebhook, ProjectID: 2, ComponentID: 3,
		Webhook: index.Webhook{Filter: index.EventsContent}}
	h := &hookSet{byProject: map[int64][]index.Addon{2: {hook}}}
	for _, bc := range []struct {
		name    string
		project int64
		want    int
	}{{"none", 1, 0}, {"hook", 2, 1}} {
		b.Run(bc.name, func(b *testing.B) {
			c := index.Change{Action: index.ActionChange, ProjectID: bc.project, ComponentID: 3}
			b.ReportAllocs()
			for b.Loop() {
				if got := h.match(&c); len(got) != bc.want {
					b.Fatalf("match = %v, want %d", got, bc.want)
				}
			}
		})
	}
}
