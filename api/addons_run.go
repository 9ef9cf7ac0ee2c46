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

// addonFits refuses an add-on the component cannot run, as the
// reference's can_install: the cleanup add-ons need a monolingual base
// file. A project's add-on skips the components it does not fit.
func addonFits(a *index.Addon, comp *index.Component) error {
	if comp != nil && index.NeedsTemplate(a.Name) && !comp.IsMonolingual() {
		return index.FieldErr("name", "invalid",
			"This add-on can not be installed on this component: it needs a monolingual base file (template).")
	}
	return nil
}
