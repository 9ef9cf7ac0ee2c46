package api

import (
	"github.com/tolk-project/tolk/index"
)

// AddonRunner runs the add-ons whose events the API sees (an
// installation, a new translation). Its methods return at once: the
// add-ons run in the background, and a failure is an alert change on
// the component, never the request's error.
type AddonRunner interface {
	// TranslationAdded hears that a translation was added to c.
	TranslationAdded(c index.Component)
	// QueueLanguageConsistency runs weblate.consistency.languages on
	// the project.
	QueueLanguageConsistency(projectID int64)
}

// addonInstalled runs what an add-on does when installed (the
// reference's post_configure), in the background.
func (s *Server) addonInstalled(a *index.Addon) {
	if s.opts.Addons == nil {
		return
	}
	if a.Name == index.AddonLanguages {
		s.opts.Addons.QueueLanguageConsistency(a.ProjectID)
	}
}

// translationAdded tells the add-ons of a new translation of c.
func (s *Server) translationAdded(c index.Component) {
	if s.opts.Addons != nil {
		s.opts.Addons.TranslationAdded(c)
	}
}
