package api_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/internal/servertest"
)

// secret24 is a Standard Webhooks secret of 24 bytes.
const secret24 = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

func TestAddonsResource(t *testing.T) {
	db := servertest.MustOpenDB(t)
	servertest.SeedDemo(t, db)
	srv := servertest.Serve(t, db, servertest.Options{})
	admin := servertest.MustUser(t, db, "admin", true)
	translator := servertest.MustUser(t, db, "tr", false, [2]string{"Translate", "demo"})
	as := func(auth string) http.Header {
		return http.Header{"Authorization": {auth}, "Content-Type": {"application/json"}}
	}
	post := func(auth, path, body string) servertest.Response {
		return servertest.DoBody(t, "POST", srv.URL+path, as(auth), strings.NewReader(body))
	}

	// Validation: every field at fault at once, in the reference's words.
	for _, tc := range []struct {
		name, body, want string
	}{
		{"unknown name", `{"name":"weblate.gravity.off","configuration":{}}`,
			invalid([3]string{"configuration.webhook_url", "required", "This field is required."},
				[3]string{"name", "invalid", "Add-on not found: weblate.gravity.off. Tolk has: " + strings.Join(index.AddonNames, ", ") + "."})},
		{"missing", `{}`, invalid(required("configuration"), required("name"))},
		{"bad url and secret", `{"name":"weblate.webhook.webhook","configuration":{"webhook_url":"ftp://x","secret":"c2hvcnQ="}}`,
			invalid([3]string{"configuration.secret", "invalid", "The provided secret is too short."},
				[3]string{"configuration.webhook_url", "invalid", "Enter a valid http or https URL."})},
		{"not base64", `{"name":"weblate.webhook.webhook","configuration":{"webhook_url":"https://example.com/","secret":"whsec_!!"}}`,
			invalid([3]string{"configuration.secret", "invalid", "Invalid base64 encoded string."})},
		{"private", `{"name":"weblate.webhook.webhook","configuration":{"webhook_url":"http://127.0.0.1:9/"}}`,
			invalid([3]string{"configuration.webhook_url", "invalid", "This URL points to a private or local address, which webhooks may not reach on this server."})},
		{"metadata", `{"name":"weblate.webhook.webhook","configuration":{"webhook_url":"http://169.254.169.254/"}}`,
			invalid([3]string{"configuration.webhook_url", "invalid", "This URL points to a private or local address, which webhooks may not reach on this server."})},
		{"unknown action", `{"name":"weblate.webhook.webhook","configuration":{"webhook_url":"https://example.com/","event_filter":"custom","events":[2,9999]}}`,
			invalid([3]string{"configuration.events", "invalid_choice", `"9999" is not a valid choice.`})},
		{"custom without events", `{"name":"weblate.webhook.webhook","configuration":{"webhook_url":"https://example.com/","event_filter":"custom"}}`,
			invalid([3]string{"configuration.events", "required", "Choose the events to send with the custom filter."})},
		{"bad filter", `{"name":"weblate.webhook.webhook","configuration":{"webhook_url":"https://example.com/","event_filter":"some"}}`,
			invalid([3]string{"configuration.event_filter", "invalid_choice", `"some" is not a valid choice.`})},
		{"source_edit without edit_template", `{"name":"weblate.flags.source_edit","configuration":{}}`,
			invalid([3]string{"name", "invalid",
				"This add-on can not be installed on this component: it needs a monolingual base file that can be edited (edit_template)."})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantResponse(t, tc.name, post(admin, "/api/components/demo/app/addons/", tc.body), 400, tc.want)
		})
	}

	// Permissions: a translator may not install one.
	r := post(translator, "/api/components/demo/app/addons/",
		`{"name":"weblate.webhook.webhook","configuration":{"webhook_url":"https://example.com/"}}`)
	if r.Status != 403 {
		t.Fatalf("translator POST = %d %s, want 403", r.Status, r.Body)
	}

	r = post(admin, "/api/components/demo/app/addons/",
		`{"name":"weblate.webhook.webhook","configuration":{"webhook_url":"https://example.com/hook","secret":"`+secret24+`","events":[2,5]}}`)
	wantResponse(t, "create", r, 201, "")
	created := servertest.Decode(t, r.Body)
	url := created["url"].(string)
	if r.Header.Get("Location") != url || created["project"] != nil ||
		created["component"] != srv.URL+"/api/components/demo/app/" {
		t.Errorf("created = %v, Location %q", created, r.Header.Get("Location"))
	}
	config := servertest.Obj(t, created["configuration"])
	if config["event_filter"] != "custom" || config["secret"] != secret24 || servertest.Num(config["events"].([]any)[1]) != "5" {
		t.Errorf("configuration = %v (events without a filter are custom)", config)
	}
	r = post(admin, "/api/projects/demo/addons/",
		`{"name":"weblate.webhook.webhook","configuration":{"webhook_url":"https://example.com/all","all_events":true}}`)
	wantResponse(t, "create on project", r, 201, "")
	projectAddon := servertest.Decode(t, r.Body)
	if servertest.Obj(t, projectAddon["configuration"])["event_filter"] != "all" || projectAddon["component"] != nil {
		t.Errorf("project add-on = %v", projectAddon)
	}

	// The component lists its own add-on, the others none.
	comp := servertest.GetObjectAs(t, srv.URL+"/api/components/demo/app/", admin)
	if addons := comp["addons"].([]any); len(addons) != 1 || addons[0] != url {
		t.Errorf("component addons = %v, want [%s]", addons, url)
	}
	if addons := servertest.GetObject(t, srv.URL+"/api/components/demo/glossary/")["addons"].([]any); len(addons) != 0 {
		t.Errorf("glossary addons = %v", addons)
	}

	// Only those who may edit see add-ons: their configuration holds a
	// secret.
	if n := servertest.Num(servertest.GetObjectAs(t, srv.URL+"/api/addons/", admin)["count"]); n != "2" {
		t.Errorf("admin sees %s add-ons, want 2", n)
	}
	if n := servertest.Num(servertest.GetObjectAs(t, srv.URL+"/api/addons/", translator)["count"]); n != "0" {
		t.Errorf("translator sees %s add-ons, want 0", n)
	}
	if r := servertest.Do(t, "GET", url, http.Header{"Authorization": {translator}}); r.Status != 403 {
		t.Errorf("translator GET add-on = %d, want 403", r.Status)
	}
	if n := servertest.Num(servertest.GetObjectAs(t, srv.URL+"/api/projects/demo/addons/", admin)["count"]); n != "1" {
		t.Errorf("project add-ons = %s, want 1", n)
	}

	// Its deliveries are the add-on's editors' to read, by a numeric id.
	if r := servertest.Do(t, "GET", url+"deliveries/", http.Header{"Authorization": {admin}}); r.Status != 200 ||
		servertest.Num(servertest.Decode(t, r.Body)["count"]) != "0" {
		t.Errorf("admin GET deliveries = %d %s", r.Status, r.Body)
	}
	for _, tc := range []struct {
		name, url, auth string
		status          int
	}{
		{"translator", url + "deliveries/", translator, 403},
		{"anonymous", url + "deliveries/", "", 401},
		{"unknown add-on", srv.URL + "/api/addons/999999/deliveries/", admin, 404},
		{"not a number", srv.URL + "/api/addons/x1/deliveries/", admin, 404},
		{"bad page", url + "deliveries/?page=0", admin, 404},
	} {
		h := http.Header{}
		if tc.auth != "" {
			h.Set("Authorization", tc.auth)
		}
		if r := servertest.Do(t, "GET", tc.url, h); r.Status != tc.status {
			t.Errorf("%s: GET deliveries = %d %s, want %d", tc.name, r.Status, r.Body, tc.status)
		}
	}

	// PATCH replaces the configuration; the name stays.
	r = servertest.DoBody(t, "PATCH", url, as(admin), strings.NewReader(`{"configuration":{"webhook_url":"https://example.com/v2","event_filter":"all"}}`))
	wantResponse(t, "patch", r, 200, "")
	config = servertest.Obj(t, servertest.Decode(t, r.Body)["configuration"])
	if config["webhook_url"] != "https://example.com/v2" || config["secret"] != "" || config["event_filter"] != "all" {
		t.Errorf("patched configuration = %v", config)
	}
	r = servertest.DoBody(t, "PATCH", url, as(admin), strings.NewReader(`{"name":"weblate.other"}`))
	wantResponse(t, "rename", r, 400, invalid([3]string{"name", "invalid", "The add-on of an installation can not be changed."}))

	wantResponse(t, "delete", servertest.DoBody(t, "DELETE", url, as(admin), nil), 204, "")
	if r := servertest.Do(t, "GET", url, http.Header{"Authorization": {admin}}); r.Status != 404 {
		t.Errorf("GET deleted add-on = %d, want 404", r.Status)
	}
	if addons := servertest.GetObjectAs(t, srv.URL+"/api/components/demo/app/", admin)["addons"].([]any); len(addons) != 0 {
		t.Errorf("component addons after delete = %v", addons)
	}
}
