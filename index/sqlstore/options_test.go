package sqlstore_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/indextest"
	"github.com/tolk-project/tolk/index/sqlstore"
)

// TestOptionsValidate: Validate fills in each default and refuses what
// no index can be opened with.
func TestOptionsValidate(t *testing.T) {
	for _, tc := range []struct {
		name    string
		in      sqlstore.Options
		engine  sqlstore.Engine
		cache   int
		wantErr bool
	}{
		{name: "defaults", in: sqlstore.Options{Location: "tolk.db"}, engine: sqlstore.SQLite,
			cache: sqlstore.DefaultPageCacheBytes},
		{name: "postgres", in: sqlstore.Options{Engine: sqlstore.Postgres, Location: "postgres://db/tolk"},
			engine: sqlstore.Postgres, cache: sqlstore.DefaultPageCacheBytes},
		{name: "no page cache", in: sqlstore.Options{Location: "tolk.db", PageCacheBytes: sqlstore.NoPageCache},
			engine: sqlstore.SQLite, cache: sqlstore.NoPageCache},
		{name: "page cache bound", in: sqlstore.Options{Location: "tolk.db", PageCacheBytes: 1 << 20},
			engine: sqlstore.SQLite, cache: 1 << 20},
		{name: "no location", in: sqlstore.Options{}, wantErr: true},
		{name: "unknown engine", in: sqlstore.Options{Engine: "mysql", Location: "tolk.db"}, wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := tc.in
			err := o.Validate()
			if tc.wantErr {
				if err == nil {
					t.Fatalf("Validate(%+v) = nil, want an error", tc.in)
				}
				if _, openErr := sqlstore.Open(context.Background(), tc.in); openErr == nil {
					t.Errorf("Open(%+v) opened an index", tc.in)
				}
				return
			}
			if err != nil {
				t.Fatalf("Validate(%+v): %v", tc.in, err)
			}
			if o.Engine != tc.engine || o.PageCacheBytes != tc.cache || o.Logger == nil || o.Now == nil {
				t.Errorf("Validate(%+v) = engine %q, page cache %d, logger %v, clock set %v; want %q, %d, a logger, a clock",
					tc.in, o.Engine, o.PageCacheBytes, o.Logger, o.Now != nil, tc.engine, tc.cache)
			}
		})
	}
	if err := (&sqlstore.Options{}).Validate(); !errors.Is(err, sqlstore.ErrNoLocation) {
		t.Errorf("Validate without a location = %v, want ErrNoLocation", err)
	}
}

// TestOptionsAtOpen: the clock and the page cache's bound given to Open
// are the index's.
func TestOptionsAtOpen(t *testing.T) {
	ctx := context.Background()
	at := time.Date(2026, 5, 4, 3, 2, 1, 0, time.UTC)
	for _, tc := range []struct {
		name   string
		cache  int
		cached bool
	}{
		{"page cache", 0, true},
		{"no page cache", sqlstore.NoPageCache, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := indextest.OpenWith(t, sqlstore.Options{PageCacheBytes: tc.cache, Now: func() time.Time { return at }})
			c := mustComponent(t, db)
			res, err := db.ImportTranslation(ctx, index.TranslationImport{ComponentID: c.ID, LanguageCode: "de",
				Filename: "de.json", Revision: "a", Monolingual: true, Units: units("hello", "Hello", "Hallo")})
			if err != nil {
				t.Fatal(err)
			}
			page, _, err := db.FindUnits(ctx, index.UnitFilter{TranslationID: res.TranslationID,
				Page: index.Page{Number: 1, Size: 10}})
			if err != nil || len(page) != 1 {
				t.Fatalf("units: %v, %v", page, err)
			}
			if !page[0].Timestamp.Equal(at) {
				t.Errorf("unit written at %v, want the index's clock %v", page[0].Timestamp, at)
			}
			if pages, _ := db.PageCacheSize(); (pages > 0) != tc.cached {
				t.Errorf("%d pages cached after a list, want cached %v", pages, tc.cached)
			}
		})
	}
}
