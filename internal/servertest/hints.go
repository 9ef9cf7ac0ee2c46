package servertest

import (
	"context"
	"slices"
	"sync"

	"github.com/tolk-project/tolk/index"
)

// EditHints is a Store that records, for each unit write, the target it
// expects to save (UpdateUnitExpecting's expect): what the API's PATCH
// and the editor's save pass the index, which the store may send its
// lookups ahead on (sqlstore's targetGuess).
type EditHints struct {
	Store
	mu    sync.Mutex
	hints []EditHint
}

// EditHint is one unit write's hint: Ok false when it had none.
type EditHint struct {
	Unit   int64
	Target []string
	Ok     bool
}

// UpdateUnit records a write without a hint.
func (s *EditHints) UpdateUnit(ctx context.Context, id int64, actor index.Actor,
	decide func(u index.Unit, t index.Translation) (index.UnitUpdate, error)) (index.Unit, error) {
	s.record(id, nil)
	return s.Store.UpdateUnit(ctx, id, actor, decide)
}

// UpdateUnitExpecting records expect and writes through the wrapped store.
func (s *EditHints) UpdateUnitExpecting(ctx context.Context, id int64, actor index.Actor, expect []string,
	decide func(u index.Unit, t index.Translation) (index.UnitUpdate, error)) (index.Unit, error) {
	s.record(id, expect)
	return s.Store.UpdateUnitExpecting(ctx, id, actor, expect, decide)
}

func (s *EditHints) record(id int64, expect []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hints = append(s.hints, EditHint{Unit: id, Target: slices.Clone(expect), Ok: expect != nil})
}

// Take returns the hints recorded since the last Take.
func (s *EditHints) Take() []EditHint {
	s.mu.Lock()
	defer s.mu.Unlock()
	h := s.hints
	s.hints = nil
	return h
}
