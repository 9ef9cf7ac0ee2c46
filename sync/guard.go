package sync

import (
	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/vcs"
)

// configuredRepo is what the setup file gave a component: the
// repositories the operator chose, which guard trusts.
type configuredRepo struct{ repo, push string }

// trust records the repositories of the components of specs as the
// operator's (Reconcile's caller, cmd/tolk, reads them from the setup
// file).
func (s *Service) trust(specs []ProjectSpec) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, spec := range specs {
		for _, c := range spec.Components {
			s.configured[spec.Project.Slug+"/"+c.Slug] = configuredRepo{repo: c.Repo, push: c.Push}
		}
	}
}

// guard returns the vcs.Guard of c's clones, fetches and pushes:
// index.RefusePrivate, so that a repository given through the API
// reaches no loopback, link-local or private address (an internal
// service, a cloud metadata endpoint), at any connection; nil (no
// check) when Options.AllowPrivateRepos is set, or when c's repository
// and push URLs are the ones a Reconcile was given for it: the setup
// file is the operator's, who may name an internal Git host. A setup
// file component whose URL was changed through the API is judged.
func (s *Service) guard(c index.Component) vcs.Guard {
	if s.opts.AllowPrivateRepos {
		return nil
	}
	s.mu.Lock()
	cfg, ok := s.configured[c.Project.Slug+"/"+c.Slug]
	s.mu.Unlock()
	if ok && cfg.repo == c.Repo && cfg.push == c.Push {
		return nil
	}
	return index.RefusePrivate
}
