package api

import (
	"encoding/json"
	"errors"

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

// autoTranslateJSON is a weblate.autotranslate.autotranslate add-on's
// configuration, as the reference stores its form.
type autoTranslateJSON struct {
	Mode       string   `json:"mode"`
	Q          string   `json:"q"`
	AutoSource string   `json:"auto_source"`
	Component  string   `json:"component"`
	Engines    []string `json:"engines"`
	Threshold  int      `json:"threshold"`
}

// jsonCustomizeJSON is a weblate.json.customize add-on's configuration.
type jsonCustomizeJSON struct {
	SortKeys bool   `json:"sort_keys"`
	Indent   int    `json:"indent"`
	Style    string `json:"style"`
}

// addonConfigJSON is the configuration of an add-on other than the
// webhook; false for the webhook.
func addonConfigJSON(a *index.Addon) (any, bool) {
	if index.HasNoConfig(a.Name) {
		return struct{}{}, true // no configuration
	}
	switch a.Name {
	case index.AddonSquash:
		return squashJSON{Squash: a.Squash.Mode, AppendTrailers: a.Squash.AppendTrailers,
			CommitMessage: a.Squash.CommitMessage}, true
	case index.AddonDiscovery:
		d := a.Discovery
		return discoveryJSON{Match: d.Match, FileFormat: d.FileFormat, NameTemplate: d.NameTemplate,
			BaseFileTemplate: d.BaseFileTemplate, NewBaseTemplate: d.NewBaseTemplate, LanguageRegex: d.LanguageRegex,
			Remove: d.Remove, Confirm: d.Confirm}, true
	case index.AddonPseudolocale:
		p := a.Pseudo
		return pseudolocaleJSON{Source: p.Source, Target: p.Target, Prefix: p.Prefix, Suffix: p.Suffix,
			VarPrefix: p.VarPrefix, VarSuffix: p.VarSuffix, VarMultiplier: p.VarMultiplier,
			IncludeReadOnly: p.IncludeReadOnly}, true
	case index.AddonJSONCustomize:
		return jsonCustomizeJSON{SortKeys: a.JSON.SortKeys, Indent: a.JSON.Indent, Style: a.JSON.Style}, true
	case index.AddonAutoTranslate:
		p := a.AutoTranslate.Params
		engines := p.Engines
		if engines == nil {
			engines = []string{}
		}
		return autoTranslateJSON{Mode: string(p.Mode), Q: p.Query, AutoSource: p.Source,
			Component: a.AutoTranslate.Component, Engines: engines, Threshold: p.Threshold}, true
	}
	return nil, false
}

// readAddonConfig reads the whole configuration of a (whose Name is
// set) from pl, unless a is a webhook: false then, for readWebhook.
// Values of the wrong type are 400s on configuration.<field>, and the
// add-on is then not stored at all.
func (s *Server) readAddonConfig(pl *payload, a *index.Addon) bool {
	if index.HasNoConfig(a.Name) {
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
	case index.AddonJSONCustomize:
		j := index.JSONCustomize{Indent: 4, Style: index.JSONSpaces} // the reference's initial values
		pl.boolean("sort_keys", &j.SortKeys)
		pl.integer("indent", &j.Indent, 0, index.MaxJSONIndent)
		if pl.has("style") {
			pl.choice("style", &j.Style, index.JSONStyles)
		}
		a.JSON = j
		return true
	case index.AddonPseudolocale:
		a.Pseudo = readPseudolocale(pl)
		return true
	case index.AddonDiscovery:
		a.Discovery = s.readDiscovery(pl)
		return true
	case index.AddonAutoTranslate:
		// index.ParseAutoTranslateAddon reads the reference's fields, with
		// their older spellings and defaults, as the run takes them.
		cfg := make(map[string]any, len(pl.fields))
		for k, raw := range pl.fields {
			var v any
			_ = json.Unmarshal(raw, &v) // object() marshalled it
			cfg[k] = v
		}
		auto, err := index.ParseAutoTranslateAddon(cfg)
		if fe := (*index.FieldError)(nil); errors.As(err, &fe) {
			for name, prob := range fe.Fields { // already configuration.<key>
				pl.errs.Add(name, prob.Code, prob.Detail)
			}
		}
		a.AutoTranslate = auto
		return true
	}
	return false
}
