package codecs_test

import (
	"testing"

	"github.com/tolk-project/tolk/formats"
	"github.com/tolk-project/tolk/formats/codecs"
)

// TestRegistry checks that formats' registry and the codecs agree: every
// format the API offers can be read and written, and no codec is
// registered under a name the API does not know.
func TestRegistry(t *testing.T) {
	for _, f := range formats.All() {
		if _, ok := codecs.Lookup(f.Name); !ok {
			t.Errorf("format %q has no codec: add its line to codecs", f.Name)
		}
	}
	for _, name := range codecs.Names() {
		if _, ok := formats.Lookup(name); !ok {
			t.Errorf("codec %q has no row in formats' registry", name)
		}
	}
	if _, ok := codecs.Lookup("no-such-format"); ok {
		t.Error("Lookup found a codec for an unknown name")
	}
}
