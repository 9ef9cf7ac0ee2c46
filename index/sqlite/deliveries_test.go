package sqlite

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/tolk-project/tolk/index"
)

// edit sets the German unit k<i> to target as the fixture's user.
func (f *writeFixture) edit(tb testing.TB, i int, target string) {
	tb.Helper()
	u := f.unit(tb, "de", i)
	if _, err := f.db.UpdateUnit(context.Background(), u.ID, f.user, func(index.Unit, index.Translation) (index.UnitUpdate, error) {
		return index.UnitUpdate{Edit: &index.UnitEdit{Target: []string{target}, State: index.StateTranslated}}, nil
	}); err != nil {
		tb.Fatal(err)
	}
}

// mustHook installs a webhook on the fixture's component (or its whole
// project when onProject) with the given filter.
func (f *writeFixture) mustHook(tb testing.TB, onProject bool, filter string, events ...index.Action) index.Addon {
	tb.Helper()
	a := index.Addon{Name: index.AddonWebhook, ProjectID: f.comp.ProjectID, ComponentID: f.comp.ID,
		Webhook: index.Webhook{URL: "https://example.com/", Filter: filter, Events: events}}
	if onProject {
		a.ComponentID = 0
	}
	a, err := f.db.CreateAddon(context.Background(), a)
	if err != nil {
		tb.Fatal(err)
	}
	return a
}

// pending returns the pending deliveries of an add-on, oldest first.
func (f *writeFixture) pending(tb testing.TB, addonID int64) []index.Delivery {
	tb.Helper()
	all, _, err := f.db.FindDeliveries(context.Background(), addonID, index.Page{Number: 1, Size: 1000})
	if err != nil {
		tb.Fatal(err)
	}
	var out []index.Delivery
	for i := len(all) - 1; i >= 0; i-- {
		if all[i].State == index.DeliveryPending {
			out = append(out, all[i])
		}
	}
	return out
}

func TestOutboxFollowsChanges(t *testing.T) {
	f := mustWriteFixture(t)
	ctx := context.Background()
	f.edit(t, 1, "before any hook")
	if next, ok, err := f.db.NextDeliveryTry(ctx); err != nil || ok {
		t.Fatalf("a change without hooks queued a delivery due %v (%v)", next, err)
	}
	content := f.mustHook(t, false, index.EventsContent)
	all := f.mustHook(t, true, index.EventsAll)
	custom := f.mustHook(t, false, index.EventsCustom, index.ActionApprove)

	f.edit(t, 1, "Wort eins")
	got := f.pending(t, content.ID)
	if len(got) != 1 {
		t.Fatalf("content hook has %d deliveries, want 1: %+v", len(got), got)
	}
	ev := got[0].Event
	if ev.Change.Action != index.ActionChange || ev.Change.Target != "Wort eins" || ev.Old != "before any hook" ||
		ev.Source != "Word number 1" || ev.Context != "k1" || !ev.HasUnit || ev.Change.ProjectSlug != "p" ||
		ev.Change.ComponentSlug != "app" || ev.Change.LanguageCode != "de" || ev.Change.UserName != "ed" {
		t.Errorf("event = %+v", ev)
	}
	if n := len(f.pending(t, all.ID)); n != 1 {
		t.Errorf("all-events project hook has %d deliveries, want 1", n)
	}
	if got := f.pending(t, custom.ID); len(got) != 0 {
		t.Errorf("custom hook for approvals got %+v", got)
	}
	f.edit(t, 1, "Wort Eins")
	if got := f.pending(t, content.ID); len(got) != 2 || got[1].Event.Old != "Wort eins" {
		t.Errorf("second edit's event = %+v, want old Wort eins", got)
	}

	// The sender sees only the oldest pending delivery of each add-on.
	due, err := f.db.DueDeliveries(ctx, time.Now().Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if len(due) != 2 {
		t.Fatalf("due = %d deliveries, want one per add-on", len(due))
	}
	first := f.pending(t, content.ID)[0]
	if err := f.db.RecordDelivery(ctx, first.ID, index.DeliveryResult{State: index.DeliveryDelivered,
		At: time.Now(), Code: 204}); err != nil {
		t.Fatal(err)
	}
	if got := f.pending(t, content.ID); len(got) != 1 || got[0].Event.Change.Target != "Wort Eins" {
		t.Errorf("after the first is delivered, pending = %+v", got)
	}

	// Removing an add-on removes its deliveries, and changes no longer
	// queue any for it.
	if err := f.db.DeleteAddon(ctx, all.ID); err != nil {
		t.Fatal(err)
	}
	f.edit(t, 2, "Wort zwei")
	if n := len(f.pending(t, all.ID)); n != 0 {
		t.Errorf("deleted add-on has %d deliveries", n)
	}
	if n := len(f.pending(t, content.ID)); n != 2 {
		t.Errorf("content hook has %d pending, want 2", n)
	}
}

// TestOutboxRollsBackWithItsChange: a write that fails leaves no
// delivery behind.
func TestOutboxRollsBackWithItsChange(t *testing.T) {
	f := mustWriteFixture(t)
	hook := f.mustHook(t, true, index.EventsAll)
	u := f.unit(t, "de", 3)
	_, err := f.db.UpdateUnit(context.Background(), u.ID, f.user, func(index.Unit, index.Translation) (index.UnitUpdate, error) {
		return index.UnitUpdate{Edit: &index.UnitEdit{Target: []string{"x"}, State: index.StateTranslated}}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	before := len(f.pending(t, hook.ID))
	_, err = f.db.UpdateUnit(context.Background(), u.ID, f.user, func(index.Unit, index.Translation) (index.UnitUpdate, error) {
		return index.UnitUpdate{}, fmt.Errorf("refused")
	})
	if err == nil {
		t.Fatal("the refused update succeeded")
	}
	if after := len(f.pending(t, hook.ID)); after != before {
		t.Errorf("deliveries %d → %d across a failed write", before, after)
	}
}

// TestPruneDeliveries: finished deliveries go once old enough, pending
// ones stay whatever their age.
func TestPruneDeliveries(t *testing.T) {
	f := mustWriteFixture(t)
	ctx := context.Background()
	hook := f.mustHook(t, true, index.EventsAll)
	f.edit(t, 1, "eins")
	f.edit(t, 2, "zwei")
	pending := f.pending(t, hook.ID)
	if len(pending) < 2 {
		t.Fatalf("pending = %+v", pending)
	}
	done := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	if err := f.db.RecordDelivery(ctx, pending[0].ID, index.DeliveryResult{State: index.DeliveryDelivered, At: done}); err != nil {
		t.Fatal(err)
	}
	if n, err := f.db.PruneDeliveries(ctx, done); err != nil || n != 0 {
		t.Errorf("prune before it finished: %d, %v", n, err)
	}
	if n, err := f.db.PruneDeliveries(ctx, done.Add(time.Second)); err != nil || n != 1 {
		t.Errorf("prune after: %d, %v; want 1", n, err)
	}
	if got := f.pending(t, hook.ID); len(got) != len(pending)-1 {
		t.Errorf("pending after pruning = %d, want %d", len(got), len(pending)-1)
	}
}
