package sqlstore

import (
	"context"
	"strconv"
	"testing"

	"github.com/tolk-project/tolk/index"
)

// BenchmarkPropagatedEdit measures one edit (UpdateUnit) in a project of
// nine components that allow translation propagation and share their
// strings: "propagating", each edit reaching the eight others; "locked",
// the eight others locked, so that the edit reads their units
// (propagation, then the inconsistent check) and writes none.
//
//	go test ./index/sqlstore -run '^$' -bench PropagatedEdit -count 6
func BenchmarkPropagatedEdit(b *testing.B) {
	for _, locked := range []bool{false, true} {
		name := "propagating"
		if locked {
			name = "locked"
		}
		b.Run(name, func(b *testing.B) {
			f := mustWriteFixture(b)
			ctx := context.Background()
			var twins []*writeFixture
			for i := range 8 {
				tw := f.twin(b, "twin"+strconv.Itoa(i), true)
				if locked {
					if _, err := f.db.SetComponentLock(ctx, tw.comp.ID, true, f.user); err != nil {
						b.Fatal(err)
					}
				}
				twins = append(twins, tw)
			}
			units := make([]index.Unit, 10)
			for i := range units {
				units[i] = f.unit(b, "de", i)
			}
			n := 0
			b.ReportAllocs()
			for b.Loop() {
				n++
				target := "Wert " + strconv.Itoa(n)
				u := units[n%len(units)]
				if _, err := f.db.UpdateUnit(ctx, u.ID, f.user, func(index.Unit, index.Translation) (index.UnitUpdate, error) {
					return index.UnitUpdate{Edit: &index.UnitEdit{Target: []string{target}, State: index.StateTranslated}}, nil
				}); err != nil {
					b.Fatal(err)
				}
			}
			// The last edit reached the others, or (locked) none.
			got := twins[7].unitOf(b, "de", n%len(units)).Target[0]
			if want := "Wert " + strconv.Itoa(n); (got == want) == locked {
				b.Fatalf("twin7/de = %q after %q (locked %v)", got, want, locked)
			}
		})
	}
}
