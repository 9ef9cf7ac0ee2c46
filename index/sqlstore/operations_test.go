package sqlstore

import (
	"context"
	"errors"
	"testing"

	"github.com/tolk-project/tolk/index"
)

// TestForceSyncAndScan: file-sync marks every unit of the translations
// (not the template's) pending, file-scan forgets every revision; each
// records its change by the user who asked, and an unknown component is
// not found.
func TestForceSyncAndScan(t *testing.T) {
	ctx := context.Background()
	f := mustWriteFixture(t)
	if _, err := f.db.UpdateUnit(ctx, f.unit(t, "de", 1).ID, f.user, func(index.Unit, index.Translation) (index.UnitUpdate, error) {
		return index.UnitUpdate{Edit: &index.UnitEdit{Target: []string{"Eins"}, State: index.StateTranslated}}, nil
	}); err != nil {
		t.Fatal(err)
	}
	n, err := f.db.ForceSync(ctx, f.comp.ID, f.user.UserID, index.ActionForceSync, "")
	if err != nil {
		t.Fatal(err)
	}
	// de and fr hold ten units each; one was pending already.
	if n != 19 {
		t.Errorf("ForceSync marked %d units, want 19", n)
	}
	if p, err := f.db.PendingUnits(ctx, f.comp.ID); err != nil || p.Units != 20 {
		t.Errorf("pending = %+v, %v; want 20 units", p, err)
	}
	if err := f.db.ForceScan(ctx, f.comp.ID, 0); err != nil {
		t.Fatal(err)
	}
	revs, err := f.db.TranslationRevisions(ctx, f.comp.ID)
	if err != nil {
		t.Fatal(err)
	}
	for lang, rev := range revs {
		if rev != "" {
			t.Errorf("revision of %s = %q after ForceScan, want none", lang, rev)
		}
	}
	changes, _, err := f.db.FindChanges(ctx, index.ChangeFilter{ComponentID: f.comp.ID,
		Actions: []index.Action{index.ActionForceSync, index.ActionForceScan}, Page: index.Page{Number: 1, Size: 10}})
	if err != nil {
		t.Fatal(err)
	}
	if len(changes) != 2 {
		t.Fatalf("changes = %+v, want 83 and 84", changes)
	}
	for _, ch := range changes {
		wantUser := int64(0)
		if ch.Action == index.ActionForceSync {
			wantUser = f.user.UserID
		}
		if ch.UserID != wantUser || ch.ProjectID != f.comp.ProjectID || ch.TranslationID != 0 || ch.UnitID != 0 {
			t.Errorf("change %d = %+v, want user %d, the component's project, no translation or unit", ch.Action, ch, wantUser)
		}
	}
	if _, err := f.db.ForceSync(ctx, 999999, 0, index.ActionForceSync, ""); !errors.Is(err, index.ErrNotFound) {
		t.Errorf("ForceSync of no component = %v, want ErrNotFound", err)
	}
	if err := f.db.ForceScan(ctx, 999999, 0); !errors.Is(err, index.ErrNotFound) {
		t.Errorf("ForceScan of no component = %v, want ErrNotFound", err)
	}
}
