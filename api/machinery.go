package api

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/gin-gonic/gin"
	"github.com/tolk-project/tolk/edge"
	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/machinery"
)

// machineryRoutes registers a project's machine translation settings
// (reference workspace §6.1).
func (s *Server) machineryRoutes(r *edge.Router) {
	r.Resource(projectPath+"machinery_settings/", "Machinery settings", "GET, POST, PATCH, PUT, HEAD, OPTIONS",
		edge.Handlers{Get: s.getMachinerySettings, Post: s.writeMachinerySettings(http.MethodPost),
			Patch: s.writeMachinerySettings(http.MethodPatch), Put: s.writeMachinerySettings(http.MethodPut)})
}

// machineryStore is what the machinery settings read and write.
type machineryStore interface {
	// FindMachinerySettings returns a project's services (an empty map
	// for none).
	FindMachinerySettings(ctx context.Context, projectID int64) (index.MachinerySettings, error)
	// UpdateMachinerySettings stores what decide returns given the
	// stored services, in one transaction.
	UpdateMachinerySettings(ctx context.Context, projectID int64,
		decide func(index.MachinerySettings) (index.MachinerySettings, error)) (index.MachinerySettings, error)
}

// machineryDenied is the reference's message for a caller without
// project.edit, for every method.
const machineryDenied = "Can not retrieve/edit machinery configuration"

// machineryProject resolves the path's project and checks project.edit.
func (s *Server) machineryProject(c *gin.Context) (index.Project, error) {
	p, err := s.edge.FindProject(c)
	if err == nil {
		err = edge.Authorize(c, index.PermProjectEdit, p.ID, machineryDenied)
	}
	return p, err
}

// getMachinerySettings serves GET .../machinery_settings/: the project's
// own services as stored, keys included, as the reference's
// ProjectMachinerySettingsSerializer does; only project.edit may read it,
// so keys reach nobody else. The site-wide services are not shown.
func (s *Server) getMachinerySettings(c *gin.Context) {
	p, err := s.machineryProject(c)
	var settings index.MachinerySettings
	if err == nil {
		settings, err = s.store.FindMachinerySettings(c.Request.Context(), p.ID)
	}
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	s.edge.WriteJSON(c, http.StatusOK, settings)
}

// writeMachinerySettings serves POST, PATCH and PUT of
// .../machinery_settings/, with the reference's bodies and messages:
//   - POST {"service", "configuration"} installs a service: 201 "Service
//     installed: <name>", or 400 {"service": ["Service already exists"]};
//   - PATCH {"service", "configuration"} replaces its configuration (200
//     "Service updated: <name>"), or with an empty one removes it (200
//     "Service removed: <name>");
//   - PUT {service: configuration, ...} replaces them all: 201 "Services
//     installed: a, b".
//
// A configuration may be an object or, as the reference reads form
// bodies, a string holding one. An unknown service or a configuration the
// service refuses is a 400 naming the field ("configuration.url").
// Better than the reference: the URL of a service must not name a
// private or loopback address unless the server allows it, checked again
// at every connection.
func (s *Server) writeMachinerySettings(method string) gin.HandlerFunc {
	return func(c *gin.Context) {
		p, err := s.machineryProject(c)
		var body *payload
		if err == nil {
			body, err = readPayload(c)
		}
		var decide func(index.MachinerySettings) (index.MachinerySettings, error)
		var message string
		if err == nil {
			decide, message, err = s.machineryChange(method, body)
		}
		if err == nil {
			_, err = s.store.UpdateMachinerySettings(c.Request.Context(), p.ID, decide)
		}
		if err != nil {
			s.edge.Fail(c, err)
			return
		}
		status := http.StatusOK
		if method != http.MethodPatch {
			status = http.StatusCreated
		}
		s.edge.WriteJSON(c, status, gin.H{"message": message})
	}
}

// machineryChange reads a write's body: how it changes the stored
// services, and the message that answers it.
func (s *Server) machineryChange(method string, body *payload) (func(index.MachinerySettings) (index.MachinerySettings, error), string, error) {
	if method == http.MethodPut {
		next := index.MachinerySettings{}
		ids := slices.Sorted(maps.Keys(body.fields))
		if body.fields == nil {
			ids = slices.Sorted(maps.Keys(body.form))
		}
		for _, id := range ids {
			raw, _ := body.lookup(id)
			if cfg, ok := s.machineryConfig(body, id, id, raw); ok {
				next[id] = cfg
			}
		}
		if err := body.err(); err != nil {
			return nil, "", err
		}
		return func(index.MachinerySettings) (index.MachinerySettings, error) { return next, nil },
			"Services installed: " + strings.Join(ids, ", "), nil
	}
	id, _ := body.text("service", true, false)
	if body.err() != nil {
		return nil, "", body.err()
	}
	raw, given := body.lookup("configuration")
	if !given {
		raw = json.RawMessage(`{}`)
	}
	cfg, ok := map[string]any{}, true
	if !(method == http.MethodPatch && emptyConfig(raw)) {
		cfg, ok = s.machineryConfig(body, id, "configuration", raw)
	} else if _, known := machinery.Lookup(id); !known {
		body.fail("service", "invalid_choice", fmt.Sprintf("%q is not a valid choice.", id))
	}
	if !ok || body.err() != nil {
		return nil, "", body.err()
	}
	svc, _ := machinery.Lookup(id)
	switch {
	case method == http.MethodPost:
		return func(cur index.MachinerySettings) (index.MachinerySettings, error) {
			if _, exists := cur[id]; exists {
				return nil, index.FieldErr("service", "invalid", "Service already exists")
			}
			cur[id] = cfg
			return cur, nil
		}, "Service installed: " + svc.Name, nil
	case len(cfg) == 0:
		return func(cur index.MachinerySettings) (index.MachinerySettings, error) {
			delete(cur, id)
			return cur, nil
		}, "Service removed: " + svc.Name, nil
	}
	return func(cur index.MachinerySettings) (index.MachinerySettings, error) {
		cur[id] = cfg
		return cur, nil
	}, "Service updated: " + svc.Name, nil
}

// emptyConfig reports whether a configuration is empty: {}, "", "{}"
// or null, which PATCH reads as "remove the service".
func emptyConfig(raw json.RawMessage) bool {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return false
	}
	switch v := v.(type) {
	case nil:
		return true
	case string:
		s := strings.TrimSpace(v)
		return s == "" || s == "{}"
	case map[string]any:
		return len(v) == 0
	}
	return false
}

// machineryConfig reads the configuration of service id from raw (an
// object, or a string holding one) and checks it, recording problems
// under field: "configuration.url" for a key, field itself for the rest.
func (s *Server) machineryConfig(body *payload, id, field string, raw json.RawMessage) (map[string]any, bool) {
	v, err := decodeNumbers(raw)
	if err != nil {
		body.fail(field, "invalid", "Invalid data. Expected a dictionary.")
		return nil, false
	}
	if str, isString := v.(string); isString {
		if strings.TrimSpace(str) == "" {
			str = "{}"
		}
		if v, err = decodeNumbers([]byte(str)); err != nil {
			body.fail(field, "invalid", "Invalid JSON in the configuration.")
			return nil, false
		}
	}
	cfg, isObject := v.(map[string]any)
	if !isObject {
		body.fail(field, "invalid", fmt.Sprintf("Invalid data. Expected a dictionary, but got %s.", jsonKind(v)))
		return nil, false
	}
	clean := true
	for k, val := range cfg {
		if str, ok := val.(string); ok {
			clean = body.noNull(field+"."+k, str) && clean
		}
	}
	if !clean {
		return nil, false
	}
	problems := s.opts.Machinery.Check(id, cfg)
	for _, fe := range problems {
		if fe.Key == "service" {
			name := field // PUT: the service's own key
			if field == "configuration" {
				name = "service"
			}
			body.fail(name, "invalid_choice", fe.Message)
			continue
		}
		body.fail(field+"."+fe.Key, "invalid", fe.Message)
	}
	return cfg, len(problems) == 0
}

// decodeNumbers decodes one JSON value, numbers as json.Number, so that
// one too big for a float64 is a value of the wrong type, not a parse
// error.
func decodeNumbers(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}
