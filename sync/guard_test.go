package sync_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tolk-project/tolk/index"
	tolksync "github.com/tolk-project/tolk/sync"
	"github.com/tolk-project/tolk/vcs"
)

// TestPrivateRepositories: a repository on loopback (an internal Git
// host) serves the setup file's component, which the operator chose,
// but no component the API checks or changes, unless the service allows
// private repositories.
func TestPrivateRepositories(t *testing.T) {
	ctx := context.Background()
	url, _ := mustRepo(t, map[string]string{"locales/en.json": `{"hello": "Hello"}`, "locales/de.json": `{"hello": "Hallo"}`})
	var hits atomic.Int64
	internal := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		(&vcs.Export{Dir: strings.TrimPrefix(url, "file://")}).ServeHTTP(w, r)
	}))
	t.Cleanup(internal.Close)
	remote := internal.URL + "/app.git"
	refused := func(what string, err error) {
		t.Helper()
		var private *index.PrivateAddressError
		var fe *index.FieldError
		if !errors.As(err, &private) && !(errors.As(err, &fe) && strings.Contains(fe.Fields["repo"].Detail, "private")) {
			t.Errorf("%s = %v, want refused as private", what, err)
		}
	}

	e := mustEnv(t)
	t.Cleanup(func() { e.svc.Close() })
	configured := e.reconcile(t, jsonComponent("app", remote, "locales/*.json", "locales/en.json", "en"))
	if len(configured) != 1 || configured[0].Import.Error != "" || hits.Load() == 0 {
		t.Fatalf("setup file's component = %+v after %d requests, want imported", configured, hits.Load())
	}

	before := hits.Load()
	web := jsonComponent("web", remote, "locales/*.json", "locales/en.json", "en")
	web.Project = index.Project{Slug: "test"}
	_, err := e.svc.CheckComponent(ctx, web)
	refused("CheckComponent of a component the setup file lacks", err)
	// Through the API the setup file's component is changed to another
	// name of the same host: that URL is the API client's.
	changed := configured[0]
	changed.Repo = strings.Replace(remote, "127.0.0.1", "localhost", 1)
	_, err = e.svc.CheckComponent(ctx, changed)
	refused("CheckComponent of a changed repository", err)
	_, err = e.svc.ImportComponent(ctx, changed)
	refused("ImportComponent of a changed repository", err)
	if n := hits.Load() - before; n != 0 {
		t.Errorf("the refused checks made %d requests", n)
	}
	if _, err := e.svc.ImportComponent(ctx, configured[0]); err != nil {
		t.Errorf("ImportComponent of the setup file's component: %v", err)
	}

	open := mustEnvWith(t, tolksync.Options{AllowPrivateRepos: true})
	t.Cleanup(func() { open.svc.Close() })
	if _, err := open.svc.CheckComponent(ctx, web); err != nil {
		t.Errorf("CheckComponent with private repositories allowed: %v", err)
	}
}
