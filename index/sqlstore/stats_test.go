package sqlstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/tolk-project/tolk/index/indextest"
	"github.com/tolk-project/tolk/index/sqlstore"
)

// TestProjectLanguageRecentChanges checks that each language of a project
// counts the changes of its own translations made in the last day.
func TestProjectLanguageRecentChanges(t *testing.T) {
	ctx := context.Background()
	clock := &indextest.Clock{}
	db := indextest.OpenWith(t, sqlstore.Options{Now: clock.Now})
	f := seedPages(t, db)
	zeta := f.projects[0].ID
	langs, stats, err := db.ProjectLanguageStats(ctx, zeta)
	if err != nil {
		t.Fatal(err)
	}
	if len(langs) != 3 {
		t.Fatalf("languages = %+v", langs)
	}
	for i, l := range langs {
		want, err := db.FindTranslation(ctx, "zeta", "c", l.Code)
		if err != nil {
			t.Fatal(err)
		}
		recent, err := db.TranslationStats(ctx, want.ID)
		if err != nil {
			t.Fatal(err)
		}
		// zeta has one component, so each language is one translation.
		if stats[i].RecentChanges == 0 || stats[i].RecentChanges != recent.RecentChanges ||
			stats[i].Total != want.Stats.Total {
			t.Errorf("%s: %+v, want recent %d total %d", l.Code, stats[i], recent.RecentChanges, want.Stats.Total)
		}
	}
	clock.Set(func() time.Time { return time.Now().Add(48 * time.Hour) })
	_, stats, err = db.ProjectLanguageStats(ctx, zeta)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range stats {
		if s.RecentChanges != 0 {
			t.Errorf("two days later: recent = %d", s.RecentChanges)
		}
	}
}
