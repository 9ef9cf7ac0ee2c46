package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"testing"

	"github.com/tolk-project/tolk/checks"
	"github.com/tolk-project/tolk/index"
)

// BenchmarkGlossaryCompare times the step's comparison of the term
// lists (readGlossaryState) for a project of 3,000 terms: alone, as the
// step runs it now, and with every project's matcher built, as it did
// (session 7).
func BenchmarkGlossaryCompare(b *testing.B) {
	f := mustWriteFixture(b)
	var terms [][3]string
	for i := range 3000 {
		s := fmt.Sprintf("term %d of the glossary", i)
		terms = append(terms, [3]string{fmt.Sprint("t", i), s, s})
	}
	f.importComponent(b, "glossary", func(c *index.Component) { c.IsGlossary = true }, map[string][][3]string{"en": terms})
	query := func(q string, args ...any) (*sql.Rows, error) {
		return f.db.r.QueryContext(context.Background(), q, args...)
	}
	for _, matchers := range []bool{false, true} {
		b.Run(fmt.Sprintf("matchers=%v", matchers), func(b *testing.B) {
			for range b.N {
				current, _, err := readGlossaryState(query)
				if err != nil || len(current) != 1 {
					b.Fatal(len(current), err)
				}
				if matchers {
					for _, g := range current {
						g.matcher = checks.NewGlossaryMatcher(g.terms)
					}
				}
			}
		})
	}
}
