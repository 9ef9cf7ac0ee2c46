package sync

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	gosync "sync"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/vcs"
)

// startupState is what the last Reconcile has done so far, for readiness
// probes while it runs in the background.
type startupState struct {
	mu gosync.Mutex // guards st
	st index.Startup
}

// begin lists every component of specs as still to be imported.
func (s *startupState) begin(specs []ProjectSpec) {
	var importing []index.StartupComponent
	for _, spec := range specs {
		for _, c := range spec.Components {
			importing = append(importing, index.StartupComponent{Project: spec.Project.Slug, Component: c.Slug})
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.st = index.Startup{Importing: importing}
}

// finished records that the component's import ended; err nil is success.
func (s *startupState) finished(project, component string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.st.Importing = slices.DeleteFunc(s.st.Importing, func(sc index.StartupComponent) bool {
		return sc.Project == project && sc.Component == component
	})
	if err != nil {
		s.st.Failed = append(s.st.Failed, index.StartupComponent{Project: project, Component: component, Error: err.Error()})
	}
}

// end marks the import done; the components it never reached failed
// with err, what ended it.
func (s *startupState) end(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, sc := range s.st.Importing {
		if err != nil {
			sc.Error = "not imported: " + err.Error()
		} else {
			sc.Error = "not imported"
		}
		s.st.Failed = append(s.st.Failed, sc)
	}
	s.st.Importing = nil
	s.st.Done = true
}

// Startup reports what the last Reconcile has done so far: Done is false
// until one has been called and has returned. Safe for concurrent use
// with Reconcile.
func (s *Service) Startup() index.Startup {
	s.startup.mu.Lock()
	defer s.startup.mu.Unlock()
	st := s.startup.st
	st.Importing = slices.Clone(st.Importing)
	st.Failed = slices.Clone(st.Failed)
	return st
}

// RemoveStale removes what a crash can leave in the data directory: the
// temporary directories of clones cut off midway (beside each project's
// checkouts), the temporary and damaged packs of fetches cut off midway
// (vcs.CheckPacks; the next git job of the component fetches again, or
// clones again when its history went with them), and the clones of
// repository checks no import adopted. It
// returns the paths removed. Call it before the Service is used, while
// the process owns the data directory.
func (s *Service) RemoveStale() ([]string, error) {
	repos := filepath.Join(s.opts.DataDir, "repos")
	projects, err := os.ReadDir(repos)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	var removed []string
	for _, p := range projects {
		if !p.IsDir() {
			continue
		}
		r, err := vcs.RemoveStaleClones(filepath.Join(repos, p.Name()))
		removed = append(removed, r...)
		if err != nil {
			return removed, err
		}
		r, err = checkProjectPacks(filepath.Join(repos, p.Name()))
		removed = append(removed, r...)
		if err != nil {
			return removed, err
		}
	}
	checks, _ := filepath.Glob(filepath.Join(s.opts.DataDir, "tmp", "check-*"))
	for _, c := range checks {
		if err := os.RemoveAll(c); err != nil {
			return removed, err
		}
		removed = append(removed, c)
	}
	return removed, nil
}

// checkProjectPacks runs vcs.CheckPacks on every checkout of a project's
// directory and returns the paths it removed.
func checkProjectPacks(project string) ([]string, error) {
	entries, err := os.ReadDir(project)
	if err != nil {
		return nil, err
	}
	var removed []string
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		res, err := vcs.CheckPacks(filepath.Join(project, e.Name()))
		removed = append(removed, res.Removed...)
		if err != nil {
			return removed, err
		}
	}
	return removed, nil
}
