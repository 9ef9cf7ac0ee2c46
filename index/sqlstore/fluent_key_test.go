package sqlstore

import (
	"context"
	"slices"
	"testing"

	"github.com/tolk-project/tolk/index"
)

// TestFluentTermFromKey: with the Fluent checks on and no fluent-type
// flag, a unit whose key starts with "-" is checked as a term, as the
// reference guesses from the id: ".attr = ok" (a body without a value)
// fails the syntax checks for the term and passes for the message —
// when the import creates the translations (the keys at hand) and when
// a change of the component's flags settles them again from their rows.
func TestFluentTermFromKey(t *testing.T) {
	f := mustWriteFixture(t)
	ctx := context.Background()
	c, tr := f.importComponent(t, "ftl", func(c *index.Component) {
		c.CheckFlags = "fluent-source-syntax, fluent-target-syntax"
	}, map[string][][3]string{
		"en": {{"-brand", ".attr = ok", ".attr = ok"}, {"welcome", ".attr = ok", ".attr = ok"}},
		"de": {{"-brand", ".attr = ok", ".attr = gut"}, {"welcome", ".attr = ok", ".attr = gut"}},
	})
	check := func(stage string) {
		t.Helper()
		for lang, id := range map[string]string{"en": "fluent-source-syntax", "de": "fluent-target-syntax"} {
			if got := f.unitChecks(t, tr[lang], "-brand"); !slices.Contains(got, id) {
				t.Errorf("%s: %s -brand fails %q, want %s (a term needs a value)", stage, lang, got, id)
			}
			if got := f.unitChecks(t, tr[lang], "welcome"); slices.Contains(got, id) {
				t.Errorf("%s: %s welcome fails %q, a message's valid body", stage, lang, got)
			}
		}
	}
	check("import")
	if _, _, err := f.db.UpdateComponent(ctx, c.ID, func(c *index.Component) error {
		c.CheckFlags = "fluent-source-syntax, fluent-target-syntax, strict-same"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	check("flags changed")
	checkAllCounts(t, f.db)
}
