package webhook

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/tolk-project/tolk/index"
)

// Payload is the body of a webhook request, the reference's
// (WebhookAddon.build_webhook_payload, schema weblate-messaging): the
// required change_id, action and timestamp, and the rest when set. Texts
// are arrays of plural forms. URL is absolute here, where the reference
// sends a site-relative path.
type Payload struct {
	ChangeID    int64    `json:"change_id"`
	Action      string   `json:"action"`
	Timestamp   string   `json:"timestamp"`
	Target      []string `json:"target,omitempty"`
	Old         []string `json:"old,omitempty"`
	Source      []string `json:"source,omitempty"`
	Context     *string  `json:"context,omitempty"`
	URL         string   `json:"url,omitempty"`
	Author      string   `json:"author,omitempty"`
	User        string   `json:"user,omitempty"`
	Project     string   `json:"project,omitempty"`
	Component   string   `json:"component,omitempty"`
	Translation string   `json:"translation,omitempty"`
}

// timestampLayout is the API's: UTC with microseconds and Z.
const timestampLayout = "2006-01-02T15:04:05.000000Z"

// NewPayload builds the payload of an event; base is the service's
// external address (scheme://host[/prefix], no trailing slash).
func NewPayload(ev *index.Event, base string) Payload {
	ch := &ev.Change
	p := Payload{ChangeID: ch.ID, Action: ch.Action.Name(), Timestamp: ch.Timestamp.UTC().Format(timestampLayout),
		Target: plurals(ch.Target), Old: plurals(ev.Old), Author: ch.AuthorName, User: ch.UserName,
		Project: ch.ProjectSlug, Component: ch.ComponentSlug, Translation: ch.LanguageCode,
		URL: base + eventPath(ch)}
	if ev.HasUnit {
		p.Source = index.SplitPlural(ev.Source)
		p.Context = &ev.Context
	}
	return p
}

func plurals(s string) []string {
	if s == "" {
		return nil
	}
	return index.SplitPlural(s)
}

// eventPath is the page a change concerns, as the API's web_url and
// translate_url lead to them: a translation's editor, a component's or
// a project's page, or else the change itself.
func eventPath(ch *index.Change) string {
	p, c, l := ch.ProjectSlug, ch.ComponentSlug, ch.LanguageCode
	switch {
	case p != "" && c != "" && l != "":
		return join("translate", p, c, l)
	case p != "" && c != "":
		return join("projects", p, c)
	case p != "":
		return join("projects", p)
	}
	return "/api/changes/" + strconv.FormatInt(ch.ID, 10) + "/"
}

func join(segments ...string) string {
	var b strings.Builder
	for _, s := range segments {
		b.WriteByte('/')
		b.WriteString(url.PathEscape(s))
	}
	b.WriteByte('/')
	return b.String()
}

// Encode returns the payload as compact JSON, characters unescaped, as
// the reference signs it.
func (p *Payload) Encode() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(p); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// SecretKey decodes a configured secret: base64 with an optional
// "whsec_" prefix. The API has checked it.
func SecretKey(secret string) ([]byte, error) {
	return base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
}

// Sign returns the Standard Webhooks signature of a message: "v1,"
// and the base64 HMAC-SHA256, under key, of "id.timestamp.body".
func Sign(key []byte, id string, timestamp int64, body []byte) string {
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id))
	mac.Write([]byte{'.'})
	mac.Write(strconv.AppendInt(nil, timestamp, 10))
	mac.Write([]byte{'.'})
	mac.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

// SetHeaders sets the Standard Webhooks headers of a request sent at
// now: webhook-id (the change's, the same for every attempt),
// webhook-timestamp in integer seconds, and webhook-signature when there
// is a key; without one there is no signature header at all (the
// reference sends it empty).
func SetHeaders(h http.Header, id string, now time.Time, key, body []byte) {
	ts := now.Unix()
	h.Set("Content-Type", "application/json")
	h.Set("webhook-id", id)
	h.Set("webhook-timestamp", strconv.FormatInt(ts, 10))
	if len(key) > 0 {
		h.Set("webhook-signature", Sign(key, id, ts, body))
	}
}
