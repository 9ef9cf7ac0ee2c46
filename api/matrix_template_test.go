package api_test

import (
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/indextest"
	"github.com/tolk-project/tolk/internal/servertest"
)

// The matrix environment (buildMatrixEnv) is a few hundred writes:
// users and tokens for every principal, teams, add-ons, a memory entry,
// a suggestion, a comment. The hostile battery alone built it some 700
// times per engine (once per route, and again after each write it
// accepted that removed or renamed its object) and the permission
// matrix some 200: most of the API tests' time. So it is built once per
// process, engine and visibility of demo, in a kept index
// (indextest.KeptLocation), and each environment is a copy of that
// index served by a new server, sync service and automatic translator:
// the same rows, ids and tokens as a build would write, read by a fresh
// process.

// matrixTemplate is a built matrix environment's index, closed, with
// what its copies need of the build: the tokens, the placeholders, and
// the component whose import is the task to cancel (a task lives in
// the sync service's memory, so each copy starts its own).
type matrixTemplate struct {
	location string
	auth     map[string]string
	pairs    []string
	jobs     index.Component
}

var matrixTemplates struct {
	mu    sync.Mutex // guards built, and is held while one is built
	built map[string]*matrixTemplate
}

// matrixTemplateFor returns the template of demo's visibility on the
// engine under test, building it the first time.
func matrixTemplateFor(t testing.TB, private bool) *matrixTemplate {
	t.Helper()
	key := indextest.Engine() + map[bool]string{false: " public", true: " private"}[private]
	matrixTemplates.mu.Lock()
	defer matrixTemplates.mu.Unlock()
	if tmpl := matrixTemplates.built[key]; tmpl != nil {
		return tmpl
	}
	e := buildMatrixEnv(t, private, servertest.WithKeptIndex())
	waitSyncTask(t, e, e.vars.Replace("{task}"))
	e.close()
	tmpl := &matrixTemplate{location: e.dbPath, auth: e.auth, pairs: e.pairs, jobs: e.jobs}
	if matrixTemplates.built == nil {
		matrixTemplates.built = map[string]*matrixTemplate{}
	}
	matrixTemplates.built[key] = tmpl
	return tmpl
}

// mustMatrixEnv returns a matrix environment: a copy of the template's
// index (matrixTemplateFor), with a task of its own and a repository to
// make components of.
func mustMatrixEnv(t testing.TB, private bool) *matrixEnv {
	t.Helper()
	tmpl := matrixTemplateFor(t, private)
	e := &matrixEnv{crudEnv: mustCrudEnv(t, servertest.WithCopyOf(tmpl.location)), auth: maps.Clone(tmpl.auth),
		pairs: tmpl.pairs, jobs: tmpl.jobs}
	task := e.sync.StartImport(e.jobs)
	// The build's task failed at once among the writes after it; the
	// copy's is the last, so its end is waited for: what it records is
	// then in every snapshot a test compares.
	waitSyncTask(t, e, task.ID)
	e.vars = strings.NewReplacer(slices.Concat(e.pairs, []string{"{task}", task.ID, "{repo}", appRepo(t)})...)
	return e
}

// waitSyncTask waits until the sync service's task id has completed.
func waitSyncTask(t testing.TB, e *matrixEnv, id string) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if task, ok := e.sync.Task(id); !ok || task.Completed {
			if !ok {
				t.Fatalf("task %s is unknown", id)
			}
			return
		}
	}
	t.Fatalf("task %s did not complete", id)
}
