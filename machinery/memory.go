package machinery

import "context"

// Memory is the translation memory, as the "weblate-translation-memory"
// service reads it (reference workspace §5.3): for each text of the
// request, the memory's entries in its language pair whose quality by
// the reference's measure reaches the memory's threshold, best first,
// with Origin saying where each entry comes from. Lookups only read.
//
// It is where issue 29's memory plugs in: cmd/tolk gives the memory's
// lookup as Options.Memory, and the service, enabled by default in the
// reference, becomes available; until then installing it is refused
// as unavailable on this server.
type Memory interface {
	Lookup(ctx context.Context, req Request) ([][]Translation, error)
}

// memoryService is the reference's internal "Weblate Translation
// Memory" service (rank boost +2).
var memoryService = &Service{ID: "weblate-translation-memory", Name: "Weblate Translation Memory",
	MaxScore: 100, RankBoost: 2, Internal: true,
	newEngine: func(_ Config, env *env) (Engine, error) {
		if env.memory == nil {
			return nil, ErrUnavailable
		}
		return memoryEngine{env.memory}, nil
	}}

type memoryEngine struct{ m Memory }

func (m memoryEngine) Languages(context.Context) ([]Pair, error) { return nil, nil }

func (m memoryEngine) Translate(ctx context.Context, req Request) ([][]Translation, error) {
	out, err := m.m.Lookup(ctx, req)
	for _, list := range out {
		for i := range list {
			list[i].Service, list[i].ShowQuality = memoryService.Name, true
		}
	}
	return out, err
}
