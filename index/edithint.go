package index

import "context"

// editTargetKey is the context key of WithEditTarget's hint.
type editTargetKey struct{}

// WithEditTarget returns ctx carrying the target a unit write
// (Store.UpdateUnit) expects to save, before its rules have decided: a
// hint, never the write's answer. A store may use it to send the reads
// the saved target needs ahead of the write (on PostgreSQL, the
// same-target lookups of the reused check with the batch's first round
// trip, issue 31); a write that decides another target (an autofix, a
// refusal) costs what it cost without the hint.
func WithEditTarget(ctx context.Context, target []string) context.Context {
	return context.WithValue(ctx, editTargetKey{}, target)
}

// EditTarget is the hint WithEditTarget put in ctx, if any.
func EditTarget(ctx context.Context) ([]string, bool) {
	t, ok := ctx.Value(editTargetKey{}).([]string)
	return t, ok
}
