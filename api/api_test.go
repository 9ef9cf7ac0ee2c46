package api_test

import (
	"testing"

	"github.com/tolk-project/tolk/index/indextest"
	"github.com/tolk-project/tolk/index/sqlstore"
	"github.com/tolk-project/tolk/internal/servertest"
)

// The tests run once on each engine.
func TestMain(m *testing.M) { indextest.Main(m) }

// The engine provides what the API declares.
var _ servertest.Store = (*sqlstore.DB)(nil)
