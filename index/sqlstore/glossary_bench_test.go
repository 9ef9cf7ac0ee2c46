package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/tolk-project/tolk/checks"
	"github.com/tolk-project/tolk/index"
)

// mustBigGlossary is the app fixture with a glossary of 3,000 terms.
func mustBigGlossary(b *testing.B) *writeFixture {
	f := mustWriteFixture(b)
	var terms [][3]string
	for i := range 3000 {
		s := fmt.Sprintf("term %d of the glossary", i)
		terms = append(terms, [3]string{fmt.Sprint("t", i), s, s})
	}
	f.importComponent(b, "glossary", func(c *index.Component) { c.IsGlossary = true }, map[string][][3]string{"en": terms})
	return f
}

// BenchmarkGlossaryCompare times the step's comparison of the term
// lists (readGlossaryState) for a project of 3,000 terms: alone, as the
// step runs it now, and with every project's matcher built, as it did
// (session 7).
func BenchmarkGlossaryCompare(b *testing.B) {
	f := mustBigGlossary(b)
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

// BenchmarkSparseEditsCPU times this process's CPU per edit when edits
// come apart (a translator saving a string every so often: the writer
// pauses after each, and the trigram step runs), with a project
// glossary of 3,000 terms: the step's has:glossary upkeep compared
// every project's term list after each pause and built the edited
// unit's project's matcher for its batch (session 7); now it compares
// only after a write that may have moved a list (glossaryMoved), and
// the batch reuses the compared lists (glossaryWatch.lists).
//
//	go test ./index/sqlstore -run '^$' -bench SparseEditsCPU -benchtime 40x
func BenchmarkSparseEditsCPU(b *testing.B) {
	f := mustBigGlossary(b)
	cpu := func() time.Duration {
		var ru syscall.Rusage
		if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
			b.Fatal(err)
		}
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	time.Sleep(2 * time.Second) // the import's upkeep
	b.ResetTimer()
	start := cpu()
	for i := range b.N {
		f.setTarget(b, "de", i%10, fmt.Sprintf("Wort %d", i))
		time.Sleep(150 * time.Millisecond) // past trigramQuiet: the step runs
	}
	b.ReportMetric(float64(cpu()-start)/float64(b.N)/1e3, "cpu-µs/edit")
}
