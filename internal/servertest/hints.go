package servertest

import (
	"context"
	"slices"
	"sync"

	"github.com/tolk-project/tolk/index"
)

// EditHints is a Store that records, for each UpdateUnit, the target its
// context hints (index.EditTarget): what the API's PATCH and the
// editor's save pass the index, which the store may send its lookups
// ahead on (sqlstore's targetGuess).
type EditHints struct {
	Store
	mu    sync.Mutex
	hints []EditHint
}

// EditHint is one UpdateUnit's hint: Ok false when its context had none.
type EditHint struct {
	Unit   int64
	Target []string
	Ok     bool
}

// UpdateUnit records ctx's hint and writes through the wrapped store.
func (s *EditHints) UpdateUnit(ctx context.Context, id int64, actor index.Actor,
	decide func(u index.Unit, t index.Translation) (index.UnitUpdate, error)) (index.Unit, error) {
	target, ok := index.EditTarget(ctx)
	s.mu.Lock()
	s.hints = append(s.hints, EditHint{Unit: id, Target: slices.Clone(target), Ok: ok})
	s.mu.Unlock()
	return s.Store.UpdateUnit(ctx, id, actor, decide)
}

// Take returns the hints recorded since the last Take.
func (s *EditHints) Take() []EditHint {
	s.mu.Lock()
	defer s.mu.Unlock()
	h := s.hints
	s.hints = nil
	return h
}
