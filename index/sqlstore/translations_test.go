package sqlstore_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/indextest"
	"github.com/tolk-project/tolk/index/sqlstore"
)

func TestFindTranslationPage(t *testing.T) {
	ctx := context.Background()
	clock := &indextest.Clock{}
	db := indextest.OpenWith(t, sqlstore.Options{Now: clock.Now})
	f := seedPages(t, db)
	comp := f.components[0].ID
	cases := []struct {
		component int64
		page      index.Page
		want      []string // language codes
		total     int
	}{
		{comp, index.Page{Number: 1, Size: 2}, []string{"fr", "de"}, 3},
		{comp, index.Page{Number: 2, Size: 2}, []string{"en"}, 3},
		{comp, index.Page{Number: 3, Size: 2}, nil, 3},
		{f.components[1].ID, index.Page{Number: 1, Size: 50}, nil, 0},
		{0, index.Page{}, []string{"fr", "de", "en", "de"}, 4},
	}
	for _, tc := range cases {
		got, total, err := db.FindTranslationPage(ctx, tc.component, tc.page)
		if err != nil {
			t.Fatal(err)
		}
		var codes []string
		for _, tr := range got {
			codes = append(codes, tr.LanguageCode)
		}
		if total != tc.total || fmt.Sprint(codes) != fmt.Sprint(tc.want) {
			t.Errorf("component %d page %+v = %v (total %d), want %v (total %d)",
				tc.component, tc.page, codes, total, tc.want, tc.total)
		}
	}

	// Each translation's statistics are those FindTranslation and
	// TranslationStats read one by one.
	all, _, err := db.FindTranslationPage(ctx, 0, index.Page{})
	if err != nil {
		t.Fatal(err)
	}
	for _, got := range all {
		one, err := db.FindTranslationByID(ctx, got.ID)
		if err != nil {
			t.Fatal(err)
		}
		want, err := db.TranslationStats(ctx, got.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Stats != want {
			t.Errorf("%s/%s stats = %+v, want %+v", got.Component.Slug, got.LanguageCode, got.Stats, want)
		}
		one.Stats = want
		if fmt.Sprint(got) != fmt.Sprint(one) {
			t.Errorf("translation = %+v, want %+v", got, one)
		}
	}
	// Independent of the store: fr, de and en hold 1, 2 and 3 units, the
	// first translated; each import recorded changes just now.
	for i, tr := range all[:3] {
		if tr.Stats.Total != i+1 || tr.Stats.Translated != 1 || tr.Stats.RecentChanges == 0 {
			t.Errorf("%s stats = %+v, want total %d, translated 1, recent changes", tr.LanguageCode, tr.Stats, i+1)
		}
	}
	if s := all[3].Stats; s.Total != 0 || s.Translated != 0 {
		t.Errorf("empty translation stats = %+v", s)
	}

	// Changes older than a day are not recent.
	clock.Set(func() time.Time { return time.Now().Add(48 * time.Hour) })
	later, _, err := db.FindTranslationPage(ctx, comp, index.Page{Number: 1, Size: 1})
	if err != nil || later[0].Stats.RecentChanges != 0 {
		t.Errorf("two days later: %+v, %v", later, err)
	}
}

func TestFindUnitIDByHash(t *testing.T) {
	ctx := context.Background()
	db := mustOpen(t)
	f := seedPages(t, db)
	us, _, err := db.FindUnits(ctx, index.UnitFilter{TranslationID: f.translations[2], Page: index.Page{Number: 1, Size: 10}})
	if err != nil || len(us) != 3 {
		t.Fatalf("units = %v, %v", us, err)
	}
	for _, u := range us {
		id, err := db.FindUnitIDByHash(ctx, f.translations[2], u.IDHash)
		if err != nil || id != u.ID {
			t.Errorf("hash %d = %d, %v; want %d", u.IDHash, id, err, u.ID)
		}
	}
	// Another translation's unit with the same key is not this one's.
	if _, err := db.FindUnitIDByHash(ctx, f.translations[0], us[2].IDHash); !errors.Is(err, index.ErrNotFound) {
		t.Errorf("unit of another translation: err = %v, want ErrNotFound", err)
	}
}
