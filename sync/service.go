package sync

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	gosync "sync"

	"github.com/tolk-project/tolk/index"
)

// Store is what sync needs from the index.
type Store interface {
	SaveProject(ctx context.Context, p index.Project) (index.Project, bool, error)
	SaveComponent(ctx context.Context, c index.Component) (index.Component, bool, error)
	SeedLanguages(ctx context.Context, langs []index.Language) error
	// ImportTranslations imports the translations in order, in one
	// transaction: all are committed, each with its revision, or none.
	ImportTranslations(ctx context.Context, imps []index.TranslationImport) ([]index.ImportResult, error)
	TranslationRevisions(ctx context.Context, componentID int64) (map[string]string, error)
}

// Languages resolves the language codes found in file names.
type Languages interface {
	Resolve(code string) (index.Language, bool)
	// Generate makes a language for a code the table does not know,
	// from its base language, as the reference creates one.
	Generate(code string) (index.Language, bool)
}

// Options configure a Service.
type Options struct {
	// DataDir holds one repository checkout per component.
	DataDir string
	Logger  *slog.Logger
}

// Validate fills defaults and rejects impossible values.
func (o *Options) Validate() error {
	if o.DataDir == "" {
		return errors.New("sync: missing data directory")
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return nil
}

// Service imports components from their repositories into the index. It
// is safe for concurrent use; work on one component is serialized.
type Service struct {
	store Store
	langs Languages
	opts  Options

	mu    gosync.Mutex // guards locks
	locks map[int64]*gosync.Mutex
}

// New returns a Service over the given store and language table.
func New(store Store, langs Languages, opts Options) (*Service, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	return &Service{store: store, langs: langs, opts: opts, locks: map[int64]*gosync.Mutex{}}, nil
}

// componentLock serializes work on one component (an import and a later
// write-back must not interleave in its checkout).
func (s *Service) componentLock(id int64) *gosync.Mutex {
	s.mu.Lock()
	defer s.mu.Unlock()
	l, ok := s.locks[id]
	if !ok {
		l = &gosync.Mutex{}
		s.locks[id] = l
	}
	return l
}

// ProjectSpec is a project and its components as configured.
type ProjectSpec struct {
	Project    index.Project
	Components []index.Component
}

// Reconcile creates or updates the given projects and components (never
// deleting anything) and imports every component. A component that fails
// to import is logged and skipped so the others still import; the
// returned error joins every failure.
func (s *Service) Reconcile(ctx context.Context, specs []ProjectSpec) error {
	var errs []error
	for _, spec := range specs {
		p, _, err := s.store.SaveProject(ctx, spec.Project)
		if err != nil {
			return fmt.Errorf("save project %s: %w", spec.Project.Slug, err)
		}
		for _, c := range spec.Components {
			c.ProjectID = p.ID
			saved, _, err := s.store.SaveComponent(ctx, c)
			if err != nil {
				return fmt.Errorf("save component %s/%s: %w", p.Slug, c.Slug, err)
			}
			if _, err := s.ImportComponent(ctx, saved); err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				s.opts.Logger.Error("import failed", "project", p.Slug, "component", c.Slug, "err", err)
				errs = append(errs, fmt.Errorf("import %s/%s: %w", p.Slug, c.Slug, err))
			}
		}
	}
	return errors.Join(errs...)
}

// repoDir is where a component's checkout lives.
func (s *Service) repoDir(c index.Component) string {
	return filepath.Join(s.opts.DataDir, "repos", c.Project.Slug, c.Slug)
}
