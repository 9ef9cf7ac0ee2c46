package api

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"
	"github.com/tolk-project/tolk/edge"
	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/outbound"
	"github.com/tolk-project/tolk/webhook"
)

// addonRoutes registers the add-ons and their deliveries.
func (s *Server) addonRoutes(r *edge.Router) {
	r.Resource("/api/addons/", "Addon List", "GET, HEAD, OPTIONS", edge.Handlers{Get: s.listAddons})
	r.Resource("/api/addons/:addon/", "Addon Instance", "GET, PUT, PATCH, DELETE, HEAD, OPTIONS",
		edge.Handlers{Get: s.getAddon, Put: s.updateAddon(false), Patch: s.updateAddon(true),
			Delete: s.deleteAddon})
	r.Resource("/api/addons/:addon/deliveries/", "Deliveries", "GET, HEAD, OPTIONS",
		edge.Handlers{Get: s.listDeliveries})
	r.Resource("/api/addons/:addon/trigger/", "Addon Trigger", "POST, OPTIONS",
		edge.Handlers{Post: s.triggerAddon})
	r.Resource(componentPath+"addons/", "Addons", "GET, POST, HEAD, OPTIONS",
		edge.Handlers{Get: s.listComponentAddons, Post: s.createComponentAddon})
	r.Resource(projectPath+"addons/", "Addons", "GET, POST, HEAD, OPTIONS",
		edge.Handlers{Get: s.listProjectAddons, Post: s.createProjectAddon})
}

// addonStore is what the add-on endpoints read and write.
type addonStore interface {
	// FindAddons returns the add-ons f selects, in id order.
	FindAddons(ctx context.Context, f index.AddonFilter) ([]index.Addon, error)
	// FindAddonByID returns one add-on.
	FindAddonByID(ctx context.Context, id int64) (index.Addon, error)
	// ComponentAddons returns the ids of the add-ons installed on a
	// component itself, from memory.
	ComponentAddons(ctx context.Context, componentID int64) []int64
	// CreateAddon installs an add-on and returns it with its id.
	CreateAddon(ctx context.Context, a index.Addon) (index.Addon, error)
	// UpdateAddon applies update to the stored add-on in one
	// transaction.
	UpdateAddon(ctx context.Context, id int64, update func(*index.Addon) error) (index.Addon, error)
	// DeleteAddon removes an add-on and its deliveries.
	DeleteAddon(ctx context.Context, id int64) error
	// FindDeliveries returns one page of an add-on's deliveries, newest
	// first, and their number.
	FindDeliveries(ctx context.Context, addonID int64, p index.Page) ([]index.Delivery, int, error)
}

// addonJSON is the add-on resource: the reference's fields, and where
// its deliveries are read.
type addonJSON struct {
	ID            int64   `json:"id"`
	Name          string  `json:"name"`
	Component     *string `json:"component"`
	Project       *string `json:"project"`
	Configuration any     `json:"configuration"` // webhookJSON, or the add-on's own (addonConfigJSON)
	URL           string  `json:"url"`
	DeliveriesURL string  `json:"deliveries_url"`
}

// webhookJSON is a webhook add-on's configuration (reference: writes
// §8.1). The secret is shown, as the reference shows it, to those who may
// edit the add-on, the only ones who see add-ons at all.
type webhookJSON struct {
	WebhookURL  string `json:"webhook_url"`
	Secret      string `json:"secret"`
	EventFilter string `json:"event_filter"`
	Events      []int  `json:"events"`
}

func newAddonJSON(u edge.URLs, a *index.Addon) addonJSON {
	out := addonJSON{ID: a.ID, Name: a.Name, URL: u.Addon(a.ID, ""), DeliveriesURL: u.Addon(a.ID, "deliveries")}
	if config, ok := addonConfigJSON(a); ok {
		out.Configuration = config
	} else {
		w := webhookJSON{WebhookURL: a.Webhook.URL, Secret: a.Webhook.Secret,
			EventFilter: a.Webhook.Filter, Events: make([]int, len(a.Webhook.Events))}
		for i, e := range a.Webhook.Events {
			w.Events[i] = int(e)
		}
		out.Configuration = w
	}
	if a.ComponentID != 0 {
		out.Component = ptr(u.Component(a.ProjectSlug, index.FullSlug(a.CategoryPath, a.ComponentSlug), ""))
	} else {
		out.Project = ptr(u.Project(a.ProjectSlug, ""))
	}
	return out
}

// addonURLs lists the add-ons installed on a component, for its addons
// field; ctx is the request's, whose check of other processes' writes
// it shares (a list of components asked once per component).
func (s *Server) addonURLs(ctx context.Context, u edge.URLs, componentID int64) []string {
	ids := s.store.ComponentAddons(ctx, componentID)
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = u.Addon(id, "")
	}
	return out
}

// addonPermission is what editing a add-on takes: component.edit for a
// component's, project.edit for a project's.
func addonPermission(a *index.Addon) index.Permission {
	if a.ComponentID != 0 {
		return index.PermComponentEdit
	}
	return index.PermProjectEdit
}

// mayEdit reports whether the principal may see and change a.
func mayEdit(c *gin.Context, a *index.Addon) bool {
	return edge.Principal(c).Can(addonPermission(a), a.ProjectID)
}

// listAddons serves GET /api/addons/: the add-ons the principal may edit.
func (s *Server) listAddons(c *gin.Context) { s.listAddonsOf(c, index.AddonFilter{}) }

// listComponentAddons serves GET /api/components/P/C/addons/.
func (s *Server) listComponentAddons(c *gin.Context) {
	comp, err := s.edge.FindComponent(c)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	s.listAddonsOf(c, index.AddonFilter{ComponentID: comp.ID})
}

// listProjectAddons serves GET /api/projects/P/addons/: the project's
// own add-ons, not those of its components.
func (s *Server) listProjectAddons(c *gin.Context) {
	p, err := s.edge.FindProject(c)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	s.listAddonsOf(c, index.AddonFilter{ProjectID: p.ID, ProjectOnly: true})
}

func (s *Server) listAddonsOf(c *gin.Context, f index.AddonFilter) {
	all, err := s.store.FindAddons(c.Request.Context(), f)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	var mine []index.Addon
	for i := range all {
		if mayEdit(c, &all[i]) {
			mine = append(mine, all[i])
		}
	}
	writePage(s, c, func(p index.Page) ([]index.Addon, int, error) {
		return pageOf(mine, p), len(mine), nil
	}, newAddonJSON)
}

// findAddon resolves the add-on of the request path: 404 when its
// project is hidden from the principal, 403 when they may not edit it,
// since its configuration holds a secret.
func (s *Server) findAddon(c *gin.Context) (index.Addon, error) {
	id, err := pathID(c, "addon")
	if err != nil {
		return index.Addon{}, err
	}
	a, err := s.store.FindAddonByID(c.Request.Context(), id)
	if err != nil {
		return a, err
	}
	if hidden, err := s.edge.HiddenProject(c, a.ProjectID); err != nil || hidden {
		return a, cmp.Or(err, edge.ErrNoRoute)
	}
	return a, edge.Authorize(c, addonPermission(&a), a.ProjectID, "")
}

// getAddon serves GET /api/addons/:addon/.
func (s *Server) getAddon(c *gin.Context) {
	a, err := s.findAddon(c)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	s.edge.WriteJSON(c, http.StatusOK, newAddonJSON(s.edge.URLsFor(c), &a))
}

// createComponentAddon serves POST /api/components/P/C/addons/.
func (s *Server) createComponentAddon(c *gin.Context) {
	comp, err := s.edge.FindComponent(c)
	if err == nil {
		err = edge.Authorize(c, index.PermComponentEdit, comp.ProjectID, "")
	}
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	s.createAddon(c, index.Addon{ProjectID: comp.ProjectID, ComponentID: comp.ID}, &comp)
}

// createProjectAddon serves POST /api/projects/P/addons/.
func (s *Server) createProjectAddon(c *gin.Context) {
	p, err := s.edge.FindProject(c)
	if err == nil {
		err = edge.Authorize(c, index.PermProjectEdit, p.ID, "")
	}
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	s.createAddon(c, index.Addon{ProjectID: p.ID}, nil)
}

// createAddon reads name and configuration onto a and installs it: 201
// with the add-on and its Location. comp is the component of a
// component's add-on (nil for a project's).
func (s *Server) createAddon(c *gin.Context, a index.Addon, comp *index.Component) {
	a.Webhook.Filter = index.EventsContent // the reference's default
	_, a, err := readBody(c, a, []string{"name"}, s.readAddon(true))
	if err == nil {
		err = s.addonFits(c.Request.Context(), &a, comp)
	}
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	if a, err = s.store.CreateAddon(c.Request.Context(), a); err != nil {
		s.edge.Fail(c, err)
		return
	}
	s.addonInstalled(&a, comp)
	body := newAddonJSON(s.edge.URLsFor(c), &a)
	c.Header("Location", body.URL)
	s.edge.WriteJSON(c, http.StatusCreated, body)
}

// updateAddon serves PUT and PATCH /api/addons/:addon/. The name cannot
// change; a configuration given replaces the whole of it.
func (s *Server) updateAddon(partial bool) gin.HandlerFunc {
	return func(c *gin.Context) {
		a, err := s.findAddon(c)
		if err != nil {
			s.edge.Fail(c, err)
			return
		}
		_, a, err = readBody(c, a, requiredUnless(partial, "name", "configuration"), s.readAddon(false))
		if err == nil {
			err = s.addonFits(c.Request.Context(), &a, nil)
		}
		if err != nil {
			s.edge.Fail(c, err)
			return
		}
		a, err = s.store.UpdateAddon(c.Request.Context(), a.ID, func(stored *index.Addon) error {
			stored.Webhook, stored.Squash, stored.AutoTranslate = a.Webhook, a.Squash, a.AutoTranslate
			stored.JSON, stored.Pseudo = a.JSON, a.Pseudo
			return nil
		})
		if err != nil {
			s.edge.Fail(c, err)
			return
		}
		s.edge.WriteJSON(c, http.StatusOK, newAddonJSON(s.edge.URLsFor(c), &a))
	}
}

// deleteAddon serves DELETE /api/addons/:addon/: 204.
func (s *Server) deleteAddon(c *gin.Context) {
	a, err := s.findAddon(c)
	if err == nil {
		err = s.store.DeleteAddon(c.Request.Context(), a.ID)
	}
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	noContent(c)
}

// readAddon reads name (on create; on update it must stay the same) and
// configuration into a.
func (s *Server) readAddon(create bool) func(*payload, *index.Addon) {
	return func(pl *payload, a *index.Addon) {
		var name string
		pl.str("name", &name, false)
		switch {
		case name == "":
		case !create && name != a.Name:
			pl.fail("name", "invalid", "The add-on of an installation can not be changed.")
		case !slices.Contains(index.AddonNames, name):
			pl.fail("name", "invalid", fmt.Sprintf("Add-on not found: %s. Tolk has: %s.", name,
				strings.Join(index.AddonNames, ", ")))
		default:
			a.Name = name
		}
		if !pl.has("configuration") {
			if create {
				pl.require("configuration")
			}
			return
		}
		if sub, ok := pl.object("configuration"); ok {
			if !s.readAddonConfig(sub, a) {
				a.Webhook = s.readWebhook(sub)
			}
		}
	}
}

// Secret bounds of the reference's validate_webhook_secret_string.
const (
	minSecretBytes = 24
	maxSecretBytes = 64
)

// readWebhook reads a webhook's whole configuration (reference: writes
// §8.1), with its legacy spellings: all_events true means "all", events
// without event_filter means "custom".
func (s *Server) readWebhook(pl *payload) index.Webhook {
	w := index.Webhook{Filter: index.EventsContent}
	pl.require("webhook_url")
	pl.str("webhook_url", &w.URL, false)
	if w.URL != "" {
		if err := s.checkWebhookURL(w.URL); err != "" {
			pl.fail("webhook_url", "invalid", err)
		}
	}
	pl.str("secret", &w.Secret, true)
	if w.Secret != "" {
		if err := checkSecret(w.Secret); err != "" {
			pl.fail("secret", "invalid", err)
		}
	}
	var all bool
	pl.boolean("all_events", &all)
	switch {
	case pl.has("event_filter"):
		pl.choice("event_filter", &w.Filter, []string{index.EventsAll, index.EventsContent, index.EventsCustom})
	case all:
		w.Filter = index.EventsAll
	case pl.has("events"):
		w.Filter = index.EventsCustom
	}
	if pl.has("events") {
		w.Events = readActions(pl, "events")
	}
	if w.Filter == index.EventsCustom && len(w.Events) == 0 && !pl.errs.Has(pl.prefix+"events") {
		pl.fail("events", "required", "Choose the events to send with the custom filter.")
	}
	return w
}

// readActions reads a list of change action numbers.
func readActions(pl *payload, name string) []index.Action {
	v, ok := pl.value(name)
	if !ok {
		return nil
	}
	list, ok := v.([]any)
	if !ok {
		pl.fail(name, "not_a_list", fmt.Sprintf("Expected a list of items but got type %q.", jsonKind(v)))
		return nil
	}
	out := make([]index.Action, 0, len(list))
	for _, e := range list {
		var text string
		switch e := e.(type) {
		case json.Number:
			text = e.String()
		case string:
			text = e
		}
		n, err := strconv.Atoi(text)
		if err != nil || !index.Action(n).Valid() {
			pl.fail(name, "invalid_choice", fmt.Sprintf("%q is not a valid choice.", fmt.Sprint(e)))
			return nil
		}
		out = append(out, index.Action(n))
	}
	return out
}

// checkWebhookURL returns why u cannot be a webhook's target, or "":
// outbound.CheckURL, whose client the deliveries use.
func (s *Server) checkWebhookURL(u string) string {
	return outbound.CheckURL(u, s.opts.WebhookAllowPrivate, "webhooks")
}

// checkSecret returns why a Standard Webhooks secret is not usable, or
// "" (reference: validate_webhook_secret_string).
func checkSecret(secret string) string {
	key, err := webhook.SecretKey(secret)
	switch {
	case err != nil:
		return "Invalid base64 encoded string."
	case len(key) < minSecretBytes:
		return "The provided secret is too short."
	case len(key) > maxSecretBytes:
		return "The provided secret is too long."
	}
	return ""
}

// deliveryJSON is one delivery of an event to an add-on's target.
type deliveryJSON struct {
	ID          int64   `json:"id"`
	WebhookID   string  `json:"webhook_id"`
	Change      string  `json:"change"`
	Action      int     `json:"action"`
	ActionName  string  `json:"action_name"`
	State       string  `json:"state"`
	Attempts    int     `json:"attempts"`
	Created     string  `json:"created"`
	NextAttempt *string `json:"next_attempt"`
	LastAttempt *string `json:"last_attempt"`
	LastStatus  *int    `json:"last_status"`
	LastError   string  `json:"last_error"`
}

func newDeliveryJSON(u edge.URLs, d *index.Delivery) deliveryJSON {
	ch := &d.Event.Change
	out := deliveryJSON{ID: d.ID, WebhookID: index.WebhookID(ch), Change: u.Change(ch.ID),
		Action: int(ch.Action), ActionName: ch.Action.Name(), State: d.State.String(), Attempts: d.Attempts,
		Created: timestamp(d.Created), LastError: d.LastError}
	if d.State == index.DeliveryPending {
		out.NextAttempt = ptr(timestamp(d.NextTry))
	}
	out.LastAttempt = timestampOrNull(d.LastTry)
	if d.LastCode != 0 {
		out.LastStatus = ptr(d.LastCode)
	}
	return out
}

// listDeliveries serves GET /api/addons/:addon/deliveries/: newest first.
func (s *Server) listDeliveries(c *gin.Context) {
	a, err := s.findAddon(c)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	writePage(s, c, func(p index.Page) ([]index.Delivery, int, error) {
		return s.store.FindDeliveries(c.Request.Context(), a.ID, p)
	}, newDeliveryJSON)
}
