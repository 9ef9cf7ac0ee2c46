package sqlstore

import (
	"context"
	"slices"
	"testing"

	"github.com/tolk-project/tolk/index"
)

// An edit reads its unit's check rows with the unit (readUnitForEditSQLite;
// on PostgreSQL the pipeline): a check dismissed before the edit and still
// failing after it stays dismissed and uncounted, one not dismissed stays
// counted.
func TestEditKeepsDismissedCheck(t *testing.T) {
	f := mustWriteFixture(t)
	ctx := context.Background()
	f.setTarget(t, "de", 1, "Wort  Nummer 1 ")
	sorted := func(s []string) []string { slices.Sort(s); return s }
	if got := sorted(f.checkNames(t, "de", 1)); !slices.Equal(got, []string{"double_space", "end_space"}) {
		t.Fatalf("checks before: %q", got)
	}
	allow := func(index.Unit, index.Translation) error { return nil }
	if _, err := f.db.SetCheckDismissed(ctx, f.unit(t, "de", 1).ID, "end_space", true, f.user, allow); err != nil {
		t.Fatal(err)
	}
	f.setTarget(t, "de", 1, "Wort  Nr. 1 ")
	if got := sorted(f.checkNames(t, "de", 1)); !slices.Equal(got, []string{"!end_space", "double_space"}) {
		t.Errorf("checks after the edit: %q", got)
	}
	if n := f.failing(t, "de"); n != 1 {
		t.Errorf("failing %d, want 1 (the dismissed check does not count)", n)
	}
	checkStoredStats(t, f.db)
}

func TestParseCheckNames(t *testing.T) {
	got := parseCheckNames("0end_space 1xml-invalid 0double_space")
	want := []index.UnitCheck{{Name: "end_space"}, {Name: "xml-invalid", Dismissed: true}, {Name: "double_space"}}
	if !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if got := parseCheckNames(""); got != nil {
		t.Errorf("no rows: %v", got)
	}
}
