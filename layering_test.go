package tolk_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/tolk-project/tolk"

// ours marks the module's packages in the graph, apart from the standard
// library's (its sync is not ours).
const ours = "tolk:"

// TestLayering keeps the imports pointing the one way docs/architecture.md
// draws: each rule names a package (with its subpackages) and what its
// non-test files may never import, directly or through another package
// of ours.
func TestLayering(t *testing.T) {
	graph := importGraph(t)
	rules := []struct {
		pkg       string
		forbidden []string
		why       string
	}{
		{"api", []string{"web", "sync", "vcs", "formats", "index/sqlstore", "cmd"}, "api serves the REST contract over the index; git and files are asked of sync through interfaces"},
		{"web", []string{"api", "sync", "vcs", "formats", "index/sqlstore", "cmd"}, "the pages share the edge with api, never api itself"},
		{"edge", []string{"api", "web", "sync", "vcs", "formats", "index/sqlstore", "cmd"}, "the edge is below both audiences"},
		{"index", []string{"api", "web", "edge", "sync", "vcs", "formats", "webhook", "metrics", "cmd", "github.com/go-git"}, "index holds the nouns and its engine; it does no git"},
		{"formats", []string{"index", "sync", "vcs", "api", "web", "edge", "cmd", "database/sql"}, "formats describe files, not rows"},
		{"vcs", []string{"index", "sync", "formats", "api", "web", "edge", "cmd"}, "vcs is plumbing over go-git"},
		{"checks", []string{"api", "web", "edge", "sync", "vcs", "formats", "webhook", "metrics", "index/sqlstore", "cmd", "database/sql", "github.com/go-git"}, "checks is pure: text and flags in, failing ids out"},
		{"machinery", []string{"api", "web", "edge", "sync", "vcs", "formats", "webhook", "index/sqlstore", "cmd", "database/sql", "github.com/gin-gonic"}, "machinery asks engines over HTTP and reads through interfaces: no SQL, no routing"},
		{"outbound", []string{"api", "web", "edge", "sync", "vcs", "formats", "webhook", "machinery", "index/sqlstore", "cmd", "database/sql"}, "outbound is the guarded client under webhook and machinery, and nothing else"},
		{"sync/msgtemplate", []string{"index", "sync", "vcs", "formats", "api", "web", "edge"}, "the template engine stands alone"},
	}
	// The graph must see the wiring, or every rule would pass on nothing.
	if !slices.Contains(reachable(graph, ours+"cmd/tolk"), ours+"api") {
		t.Fatalf("the import graph does not show cmd/tolk importing api: %d packages read", len(graph))
	}
	for _, r := range rules {
		matched := 0
		for pkg := range graph {
			if pkg != ours+r.pkg && !strings.HasPrefix(pkg, ours+r.pkg+"/") {
				continue
			}
			matched++
			if r.pkg == "index" && (strings.HasSuffix(pkg, "indextest") || strings.Contains(pkg, "internal/testengine")) {
				continue // test helpers of the engine
			}
			for _, dep := range reachable(graph, pkg) {
				for _, f := range r.forbidden {
					if !strings.Contains(f, ".") && f != "database/sql" {
						f = ours + f // a package of ours
					}
					if dep == f || strings.HasPrefix(dep, f+"/") {
						t.Errorf("%s imports %s (through its imports or directly): %s", pkg, dep, r.why)
					}
				}
			}
		}
		if matched == 0 {
			t.Errorf("the rule for %s matched no package: renamed or moved?", r.pkg)
		}
	}
}

// importGraph maps each package of the module (ours plus its path inside
// the module) to what its non-test files import: packages of ours the
// same way, others by their import path.
func importGraph(tb testing.TB) map[string][]string {
	tb.Helper()
	graph := map[string][]string{}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != "." && (strings.HasPrefix(name, ".") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		pkg := ours + filepath.ToSlash(filepath.Dir(path))
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if p == module {
				p = ours + "."
			} else if strings.HasPrefix(p, module+"/") {
				p = ours + strings.TrimPrefix(p, module+"/")
			}
			if !slices.Contains(graph[pkg], p) {
				graph[pkg] = append(graph[pkg], p)
			}
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := os.Stat("go.mod"); err != nil {
		tb.Fatalf("not at the module's root: %v", err)
	}
	return graph
}

// reachable lists every import reachable from pkg, ours followed
// through the graph.
func reachable(graph map[string][]string, pkg string) []string {
	seen := map[string]bool{}
	var out []string
	var walk func(string)
	walk = func(p string) {
		for _, dep := range graph[p] {
			if seen[dep] {
				continue
			}
			seen[dep] = true
			out = append(out, dep)
			walk(dep)
		}
	}
	walk(pkg)
	return out
}
