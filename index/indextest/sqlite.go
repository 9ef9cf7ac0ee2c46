package indextest

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/tolk-project/tolk/index/internal/testengine"
	"github.com/tolk-project/tolk/index/sqlstore"
)

// Migrating a new SQLite index (sixty-odd files) costs a test 135-215 ms
// on the loaded two-core machine, and the API's tests open several
// hundred. So the first index a process asks for is migrated once, as a
// template, and every Location is a copy of its file: about a
// millisecond, after which Open finds every migration applied. The
// migrations are plain SQL that reads no Options, so the copy is the
// schema a fresh Open would have made.

// sqliteLocation returns the path of a new migrated, empty SQLite index
// in tb's temporary directory.
func sqliteLocation(tb testing.TB) string {
	tb.Helper()
	template, err := sqliteTemplate()
	if err != nil {
		tb.Fatalf("sqlite template index: %v", err)
	}
	path := filepath.Join(tb.TempDir(), "tolk.db")
	if err := testengine.CopyFile(template, path); err != nil {
		tb.Fatalf("sqlite index from the template: %v", err)
	}
	return path
}

// sqliteTemplate migrates the process's template index, once; it is
// removed as the process ends (testengine.Main).
var sqliteTemplate = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "tolk-indextest-")
	if err != nil {
		return "", err
	}
	testengine.AtExit(func() { os.RemoveAll(dir) })
	path := filepath.Join(dir, "template.db")
	db, err := sqlstore.Open(context.Background(), sqlstore.Options{Engine: sqlstore.SQLite, Location: path})
	if err != nil {
		return "", err
	}
	if err := db.Close(); err != nil {
		return "", err
	}
	// Closing the last connection checkpoints the write-ahead log into
	// the file and removes it; a log left behind would be half the copy.
	if _, err := os.Stat(path + "-wal"); !errors.Is(err, fs.ErrNotExist) {
		return "", errors.Join(errors.New("the template index kept its write-ahead log"), err)
	}
	return path, nil
})
