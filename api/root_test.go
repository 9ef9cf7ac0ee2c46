package api_test

import (
	"strings"
	"testing"

	"github.com/tolk-project/tolk/internal/servertest"
)

// TestRoot checks /api/: only collections of the reference, each an
// absolute URL of its own name that resolves to a list; the collections
// this branch serves are all there.
func TestRoot(t *testing.T) {
	srv, db := servertest.DemoServer(t)
	// The memory is listed for signed-in users only, as in the reference.
	signedIn := map[string]string{"memory": servertest.MustUser(t, db, "reader", false)}
	reference := map[string]bool{"addons": true, "categories": true, "changes": true, "component-lists": true,
		"components": true, "groups": true, "languages": true, "memory": true, "projects": true,
		"roles": true, "screenshots": true, "tasks": true, "translations": true, "units": true, "users": true,
		"suggestions": true}
	for _, withFormat := range []bool{false, true} {
		suffix := ""
		if withFormat {
			suffix = "?format=api"
		}
		root := servertest.GetObject(t, srv.URL+"/api/"+suffix)
		for _, name := range []string{"changes", "languages", "units", "users", "suggestions"} {
			if _, ok := root[name]; !ok {
				t.Errorf("root lacks %q: %v", name, root)
			}
		}
		for name, link := range root {
			want := srv.URL + "/api/" + name + "/" + suffix
			if !reference[name] || link != want {
				t.Errorf("root[%q] = %v, want a reference collection at %s", name, link, want)
				continue
			}
			list := servertest.GetObjectAs(t, link.(string), signedIn[name])
			servertest.CheckShape(t, name, list, listShape)
			if withFormat {
				for _, s := range []any{list["next"], list["previous"]} {
					if s != nil && !strings.HasSuffix(s.(string), "format=api") {
						t.Errorf("%s link %v lost format=api", name, s)
					}
				}
			}
		}
	}
}
