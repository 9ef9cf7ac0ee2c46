package index

import (
	"strconv"
	"time"
)

// AddonWebhook is the one add-on Tolk has: it sends every matching change
// to a URL, signed per Standard Webhooks (reference: writes §8).
const AddonWebhook = "weblate.webhook.webhook"

// AddonNames are the add-ons Tolk can install, for the message that
// answers an unknown name. Each add-on's file appends its own name
// (addon_squash.go), so that adding one is adding a file.
var AddonNames = []string{AddonWebhook}

// The event filters of a webhook add-on (reference: writes §8.1).
const (
	EventsAll     = "all"     // every change
	EventsContent = "content" // the changes Action.IsContent reports
	EventsCustom  = "custom"  // the actions listed in Webhook.Events
)

// Addon is an add-on installed on a component, or on a whole project
// when ComponentID is 0.
type Addon struct {
	ID          int64
	Name        string
	ProjectID   int64
	ComponentID int64 // 0: the project's add-on
	Webhook     Webhook
	Squash      Squash // of a weblate.git.squash add-on
	// AutoTranslate is the configuration of a
	// weblate.autotranslate.autotranslate add-on.
	AutoTranslate AutoTranslateAddon
	// JSON is the configuration of a weblate.json.customize add-on.
	JSON JSONCustomize
	// Pseudo is the configuration of a weblate.generate.pseudolocale
	// add-on.
	Pseudo Pseudolocale
	// Discovery is the configuration of a weblate.discovery.discovery
	// add-on.
	Discovery Discovery

	// Denormalized for serialization: the slugs of the scope.
	ProjectSlug   string
	ComponentSlug string
	CategoryPath  string // the component's Component.CategoryPath
}

// Webhook is the configuration of a weblate.webhook.webhook add-on.
type Webhook struct {
	URL string
	// Secret is the signing key as configured (base64, with or without
	// "whsec_"); "" sends no signature. It is a credential: shown only
	// to those who may edit the add-on, never logged.
	Secret string
	// Filter is EventsAll, EventsContent or EventsCustom.
	Filter string
	// Events are the actions EventsCustom sends.
	Events []Action
}

// Wants reports whether the hook sends changes of action a.
func (w *Webhook) Wants(a Action) bool {
	switch w.Filter {
	case EventsAll:
		return true
	case EventsCustom:
		for _, e := range w.Events {
			if e == a {
				return true
			}
		}
		return false
	}
	return a.IsContent()
}

// Covers reports whether a change in the given project and component is
// in the add-on's scope.
func (a *Addon) Covers(projectID, componentID int64) bool {
	return a.ProjectID == projectID && (a.ComponentID == 0 || a.ComponentID == componentID)
}

// AddonFilter selects add-ons. Zero fields are not filters.
type AddonFilter struct {
	ProjectID int64
	// ComponentID selects the add-ons installed on the component itself,
	// not its project's.
	ComponentID int64
	// ProjectOnly selects the add-ons of the project as a whole.
	ProjectOnly bool
	// Covering, with ProjectID, selects the add-ons that apply to this
	// component of the project: the project's and the component's own
	// (Addon.Covers), as its imports, commits and runs look them up.
	Covering int64
}

// WebhookID is the webhook-id of the event about a change: the same for
// every attempt and every add-on, so that a receiver can tell a retry
// from a new event (Standard Webhooks, "idempotency"). The change's id
// alone would not do: removing a component removes its changes, and
// SQLite gives their ids to the next ones; its timestamp, which never
// decreases in id order, tells the two apart.
func WebhookID(c *Change) string {
	b := []byte("msg_tolk_")
	b = strconv.AppendInt(b, c.ID, 10)
	b = append(b, '_')
	return string(strconv.AppendInt(b, c.Timestamp.UnixMicro(), 10))
}

// DeliveryState is where one delivery of an event stands.
type DeliveryState int

// The states of a delivery.
const (
	DeliveryPending   DeliveryState = 0 // not yet accepted, retried until its period ends
	DeliveryDelivered DeliveryState = 1 // the receiver answered 2xx
	DeliveryFailed    DeliveryState = 2 // given up
)

// String names the state as the API shows it.
func (s DeliveryState) String() string {
	switch s {
	case DeliveryDelivered:
		return "delivered"
	case DeliveryFailed:
		return "failed"
	}
	return "pending"
}

// Event is what a webhook tells about one change: the change with the
// names of what it is tied to, frozen when the change was recorded so
// that a later rename or removal does not alter what is sent.
type Event struct {
	Change Change // with ProjectSlug, ComponentSlug, LanguageCode, UserName, AuthorName
	// Old is the previous target of an edit, Source and Context the
	// unit's, when the change is tied to a unit (or removed one).
	Old, Source, Context string
	HasUnit              bool
}

// Delivery is one event on its way to one add-on: an outbox row written
// in the same transaction as its change.
type Delivery struct {
	ID        int64
	AddonID   int64
	Event     Event
	State     DeliveryState
	Attempts  int
	Created   time.Time
	NextTry   time.Time // of a pending delivery
	LastTry   time.Time // zero before the first attempt
	LastCode  int       // HTTP status of the last attempt; 0 when none came
	LastError string    // why the last attempt failed; "" after success
}

// DeliveryResult is the outcome of one attempt, for RecordDelivery.
type DeliveryResult struct {
	State   DeliveryState
	At      time.Time
	NextTry time.Time // when State is DeliveryPending
	Code    int
	Error   string
}

// DailyAddon reports whether add-on name runs once a day besides its
// other events: those the reference gives its daily event
// (weblate.consistency.languages, weblate.generate.pseudolocale,
// weblate.autotranslate.autotranslate; the reference's other daily
// add-ons, removals and CDN, Tolk does not have). sync's scheduler runs
// them.
func DailyAddon(name string) bool {
	return name == AddonLanguages || name == AddonPseudolocale || name == AddonAutoTranslate
}
