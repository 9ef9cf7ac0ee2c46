package sqlstore

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

// TestOutboxRollsBackWithItsChange: a write that fails after it recorded
// its change leaves no delivery behind.
func TestOutboxRollsBackWithItsChange(t *testing.T) {
	f := mustWriteFixture(t)
	ctx := context.Background()
	hook := f.mustHook(t, true, index.EventsAll)
	f.edit(t, 3, "x")
	before := len(f.pending(t, hook.ID))
	if before == 0 {
		t.Fatal("the first edit queued no delivery")
	}
	id := f.unit(t, "de", 3).ID
	err := f.db.write(ctx, func(tx *Tx) error {
		u, tr, err := findUnitAndTranslation(tx, id)
		if err != nil {
			return err
		}
		e := editorOf(tx, &tr, f.user)
		if _, err := e.edit(&u, index.UnitEdit{Target: []string{"y"}, State: index.StateTranslated}, 0); err != nil {
			return err
		}
		if err := e.finish(); err != nil {
			return err
		}
		return fmt.Errorf("refused")
	})
	if err == nil {
		t.Fatal("the refused write succeeded")
	}
	if after := len(f.pending(t, hook.ID)); after != before {
		t.Errorf("deliveries %d → %d across a failed write", before, after)
	}
}

// TestHookSetRollsBackWithItsWrite: a write that installed an add-on and
// then failed leaves the published webhooks as they were, so later
// changes queue nothing for the add-on that never was.
func TestHookSetRollsBackWithItsWrite(t *testing.T) {
	f := mustWriteFixture(t)
	ctx := context.Background()
	err := f.db.write(ctx, func(tx *Tx) error {
		if _, err := tx.Exec(`INSERT INTO addons (name, project_id, configuration)
			VALUES (?, ?, '{"webhook_url": "https://example.com/", "event_filter": "all"}')`,
			index.AddonWebhook, f.comp.ProjectID); err != nil {
			return err
		}
		if err := tx.reloadHooks(); err != nil {
			return err
		}
		if len(tx.hookSet().byProject[f.comp.ProjectID]) != 1 {
			return fmt.Errorf("the write does not see its own add-on")
		}
		return fmt.Errorf("refused")
	})
	if err == nil || err.Error() != "refused" {
		t.Fatalf("write: %v", err)
	}
	if n := len(f.db.hooks.Load().byProject[f.comp.ProjectID]); n != 0 {
		t.Errorf("%d webhooks published by a write that rolled back", n)
	}
	f.edit(t, 4, "z")
	counts, err := f.db.CountDeliveries(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if counts[index.DeliveryPending] != 0 {
		t.Errorf("%d deliveries queued for an add-on that was rolled back", counts[index.DeliveryPending])
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

// TestDeletingComponentForgetsItsDeliveries: a component's add-on goes
// with the component, and its deliveries in the same transaction, while
// a project's add-on keeps its own.
func TestDeletingComponentForgetsItsDeliveries(t *testing.T) {
	f := mustWriteFixture(t)
	ctx := context.Background()
	onComponent := f.mustHook(t, false, index.EventsAll)
	onProject := f.mustHook(t, true, index.EventsAll)
	f.edit(t, 1, "eins")
	if len(f.pending(t, onComponent.ID)) == 0 || len(f.pending(t, onProject.ID)) == 0 {
		t.Fatal("the edit queued no delivery")
	}
	projectBefore := len(f.pending(t, onProject.ID))
	if _, err := f.db.DeleteComponent(ctx, f.comp.ID, f.user); err != nil {
		t.Fatal(err)
	}
	var orphans int
	if err := f.db.r.QueryRowContext(context.Background(), `SELECT count(*) FROM deliveries WHERE addon_id = ?`, onComponent.ID).Scan(&orphans); err != nil {
		t.Fatal(err)
	}
	if orphans != 0 {
		t.Errorf("%d deliveries of the deleted component's add-on are left", orphans)
	}
	if n := len(f.pending(t, onProject.ID)); n < projectBefore {
		t.Errorf("the project's add-on lost deliveries: %d, had %d", n, projectBefore)
	}
}
