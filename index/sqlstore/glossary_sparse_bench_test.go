package sqlstore

import (
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/tolk-project/tolk/index"
)

// BenchmarkSparseEditsCPU times this process's CPU per edit when edits
// come apart (a translator saving a string every so often: the writer
// pauses after each, and the trigram step runs), with a project
// glossary of 3,000 terms: the step's has:glossary upkeep compared
// every project's term list after each pause (session 7), now only
// after a write that may have moved one (glossaryMoved).
//
//	go test ./index/sqlstore -run '^$' -bench SparseEditsCPU -benchtime 40x
func BenchmarkSparseEditsCPU(b *testing.B) {
	f := mustWriteFixture(b)
	var terms [][3]string
	for i := range 3000 {
		s := fmt.Sprintf("term %d of the glossary", i)
		terms = append(terms, [3]string{fmt.Sprint("t", i), s, s})
	}
	f.importComponent(b, "glossary", func(c *index.Component) { c.IsGlossary = true }, map[string][][3]string{"en": terms})
	cpu := func() time.Duration {
		var ru syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
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
