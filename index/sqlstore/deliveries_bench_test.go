package sqlstore

import (
	"context"
	"testing"

	"github.com/tolk-project/tolk/index"
)

// BenchmarkUpdateUnitHooks measures a unit edit as a PATCH makes it
// (BenchmarkUpdateUnit's work) with no webhook anywhere, with one in
// another project only, and with one on the edited component that wants
// the edit, whose delivery is queued in the edit's transaction.
//
//	go test ./index/sqlstore -run '^$' -bench UpdateUnitHooks -count 6
func BenchmarkUpdateUnitHooks(b *testing.B) {
	for _, scenario := range []string{"none", "elsewhere", "hook"} {
		b.Run(scenario, func(b *testing.B) {
			ctx := context.Background()
			e := newEditBench(b)
			db := e.db
			other, _, err := db.SaveProject(ctx, index.Project{Name: "Other", Slug: "other"})
			if err != nil {
				b.Fatal(err)
			}
			hook := index.Addon{Name: index.AddonWebhook, ProjectID: e.project.ID, ComponentID: e.comp.ID,
				Webhook: index.Webhook{URL: "https://example.com/", Filter: index.EventsContent}}
			switch scenario {
			case "elsewhere":
				hook.ProjectID, hook.ComponentID = other.ID, 0
				fallthrough
			case "hook":
				if _, err = db.CreateAddon(ctx, hook); err != nil {
					b.Fatal(err)
				}
			}
			e.load(b)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				e.edit(b)
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
//	go test ./index/sqlstore -run '^$' -bench HookMatch
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
