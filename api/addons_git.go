package api

import (
	"github.com/tolk-project/tolk/index"
)

// The add-ons beyond the webhook: each reads and shows its
// configuration with the reference's field names. A new add-on adds a
// case to readAddonConfig and addonConfigJSON (and its name to
// index.AddonNames, from its own file).

// squashJSON is a weblate.git.squash add-on's configuration.
type squashJSON struct {
	Squash         string `json:"squash"`
	AppendTrailers bool   `json:"append_trailers"`
	CommitMessage  string `json:"commit_message"`
}

// addonConfigJSON is the configuration of an add-on other than the
// webhook; false for the webhook.
func addonConfigJSON(a *index.Addon) (any, bool) {
	if index.IsFlagAddon(a.Name) {
		return struct{}{}, true // no configuration
	}
	switch a.Name {
	case index.AddonSquash:
		return squashJSON{Squash: a.Squash.Mode, AppendTrailers: a.Squash.AppendTrailers,
			CommitMessage: a.Squash.CommitMessage}, true
	}
	return nil, false
}

// readAddonConfig reads the whole configuration of a (whose Name is
// set) from pl, unless a is a webhook: false then, for readWebhook.
// Values of the wrong type are 400s on configuration.<field>, and the
// add-on is then not stored at all.
func (s *Server) readAddonConfig(pl *payload, a *index.Addon) bool {
	if index.IsFlagAddon(a.Name) {
		return true // no configuration: whatever is given is ignored, as the reference's empty form
	}
	switch a.Name {
	case index.AddonSquash:
		q := index.Squash{Mode: index.SquashAll, AppendTrailers: true} // the reference's defaults
		if pl.has("squash") {
			pl.choice("squash", &q.Mode, index.SquashModes)
		}
		pl.boolean("append_trailers", &q.AppendTrailers)
		pl.str("commit_message", &q.CommitMessage, true)
		if q.CommitMessage != "" && s.opts.Components != nil {
			if err := s.opts.Components.CheckMessage(q.CommitMessage); err != nil {
				pl.fail("commit_message", "invalid", msgTemplateInvalid+err.Error())
			}
		}
		a.Squash = q
		return true
	}
	return false
}
