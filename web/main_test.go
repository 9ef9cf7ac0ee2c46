package web_test

import (
	"testing"

	"github.com/tolk-project/tolk/index/indextest"
)

// The tests run once on each engine.
func TestMain(m *testing.M) { indextest.Main(m) }
