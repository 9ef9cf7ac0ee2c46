package edge

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/tolk-project/tolk/index"
)

// Startup reports the import of the configured components that runs
// once the server listens (*sync.Service). It must be safe for
// concurrent use.
type Startup interface {
	// Startup returns what the import has done so far; Done is false
	// while it runs.
	Startup() index.Startup
}

// healthRoutes serves the probes of process supervisors and load
// balancers. They are outside /api/ and registered before the
// middleware: no log line, no authentication, no rate limit, and a token
// that is wrong does not fail them.
func (s *Server) healthRoutes(e *gin.Engine) {
	for _, m := range []string{http.MethodGet, http.MethodHead} {
		e.Handle(m, "/healthz", s.getHealth)
		e.Handle(m, "/readyz", s.getReady)
	}
}

// getHealth answers 200 while the process serves HTTP at all.
func (s *Server) getHealth(c *gin.Context) {
	s.WriteJSON(c, http.StatusOK, map[string]string{"status": "ok"})
}

// readyJSON is the body of /readyz.
type readyJSON struct {
	Ready     bool                   `json:"ready"`
	Importing []startupComponentJSON `json:"importing"`
	Failed    []startupComponentJSON `json:"failed"`
}

type startupComponentJSON struct {
	Project   string `json:"project"`
	Component string `json:"component"`
	Error     string `json:"error,omitempty"`
}

// getReady answers 200 once the index is open (it is before the server
// listens) and the start-up import has finished, 503 before; the body
// lists what is still importing and what failed to, either way. A
// component that failed does not make the service unready: the others
// serve, and the failure is listed.
func (s *Server) getReady(c *gin.Context) {
	st := index.Startup{Done: true}
	if s.opts.Startup != nil {
		st = s.opts.Startup.Startup()
	}
	body := readyJSON{Ready: st.Done, Importing: startupJSON(st.Importing), Failed: startupJSON(st.Failed)}
	status := http.StatusOK
	if !st.Done {
		status = http.StatusServiceUnavailable
	}
	s.WriteJSON(c, status, body)
}

func startupJSON(in []index.StartupComponent) []startupComponentJSON {
	out := make([]startupComponentJSON, len(in))
	for i, sc := range in {
		out[i] = startupComponentJSON{Project: sc.Project, Component: sc.Component, Error: sc.Error}
	}
	return out
}
