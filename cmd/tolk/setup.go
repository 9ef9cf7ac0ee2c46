package main

import (
	"flag"
	"fmt"
	"iter"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/machinery"
	tolksync "github.com/tolk-project/tolk/sync"
)

// Setup is what the setup file (--config) says beyond the settings of
// tolk serve: its projects and components, decoded once by
// decodeSetupFile. Open applies them on top of what the index holds
// (Setup.specs), which only the open index can tell; every other key of
// the file is settled into Config before Open.
type Setup struct {
	// File names the setup file in messages; nothing reads it again.
	File     string
	projects []projectSetup
	// lines holds the line of each key the file gives, by its path
	// ("projects[0].components[1].vcs"), and of each project and
	// component ("projects[0]"), so that a problem found when the file is
	// applied still points into it.
	lines map[string]int
	// Machinery are the site-wide machine translation services (the
	// file's machinery key), which loadConfig moves into Config.
	Machinery map[string]machinery.Config
}

// projectSetup is a project as the setup file gives it: its keys decoded
// onto the defaults, and which keys the file names, so that it applies on
// top of a stored project without resetting what the file leaves out.
type projectSetup struct {
	path       string // "projects[0]"
	config     projectConfig
	given      []string
	components []componentSetup
}

// componentSetup is a component as the setup file gives it, as
// projectSetup is a project.
type componentSetup struct {
	path   string // "projects[0].components[1]"
	config componentConfig
	given  []string
}

// decodeSetupFile decodes a setup file, whose bytes the caller read
// once: the settings it gives, as a layer for settle, and its projects.
// It reports every problem at once, as a *configError naming the file,
// the line and the key.
func decodeSetupFile(name string, data []byte) (layer, *Setup, error) {
	settings := newLayer()
	setup := &Setup{File: name, lines: map[string]int{}}
	cerr := &configError{file: name, lines: setup.lines}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		line, msg := yamlErrorLine(err)
		cerr.addAt(line, "", "not valid YAML: %s", msg)
		return settings, nil, cerr
	}
	if len(root.Content) == 0 {
		cerr.add("projects", "the file is empty")
		return settings, nil, cerr
	}
	top := root.Content[0]
	if top.Kind != yaml.MappingNode {
		cerr.addAt(top.Line, "", "want a mapping of settings and projects, got %s", describeNode(top))
		return settings, nil, cerr
	}
	// The settings go through their flags, so that the file reads a
	// value as the command line does.
	fs := serveFlags(&settings.cfg, new(string))
	var projects *yaml.Node
	for key, v := range cerr.entries(top, "", append(settingKeys(), "projects", "machinery")) {
		switch key {
		case "projects":
			projects = v
			continue
		case "machinery":
			setup.Machinery = cerr.decodeMachinery(v)
			continue
		}
		s, _ := settingByKey(key)
		settings.decodeSetting(fs, s, v, cerr)
	}
	setup.projects = cerr.decodeProjects(projects)
	if len(cerr.problems) > 0 {
		return settings, nil, cerr
	}
	return settings, setup, nil
}

// decodeSetting gives the setting s the value v, as s's flag would read
// it; a list takes a sequence or one comma-separated string. A null
// value (a key with nothing after it), like an empty one, gives nothing.
func (l *layer) decodeSetting(fs *flag.FlagSet, s setting, v *yaml.Node, cerr *configError) {
	key := s.fileKey()
	values := []*yaml.Node{v}
	switch {
	case v.Kind == yaml.ScalarNode && v.Tag == "!!null":
		return
	case v.Kind == yaml.SequenceNode && s.isList():
		values = v.Content
	case v.Kind != yaml.ScalarNode:
		cerr.addAt(v.Line, key, "want %s, got %s", s.wanted(), describeNode(v))
		return
	}
	for _, n := range values {
		if n.Kind != yaml.ScalarNode {
			cerr.addAt(n.Line, key, "want %s, got a list holding %s", s.wanted(), describeNode(n))
			return
		}
		if err := fs.Set(s.name, n.Value); err != nil {
			cerr.addAt(n.Line, key, "want %s, got %q", s.wanted(), n.Value)
			return
		}
	}
	if !s.isEmpty(&l.cfg) {
		l.given[s.name] = fmt.Sprintf("%s:%d: %s", cerr.file, cerr.lines[key], key)
	}
}

// decodeMachinery decodes the machinery key: a mapping of service
// identifiers to mappings of their settings, whose values are strings
// (or numbers and booleans, kept as written), as the API's
// machinery_settings take them:
//
//	machinery:
//	  apertium-apy: {url: "http://127.0.0.1:2737"}
//	  deepl: {key: "..."}
//
// Which services and keys are valid is checked with the other settings
// (machinery.Options.Validate).
func (e *configError) decodeMachinery(n *yaml.Node) map[string]machinery.Config {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return nil
	}
	if n.Kind != yaml.MappingNode {
		e.addAt(n.Line, "machinery", "want a mapping of services to their settings, got %s", describeNode(n))
		return nil
	}
	out := map[string]machinery.Config{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		id, v := n.Content[i].Value, n.Content[i+1]
		key := "machinery." + id
		cfg := machinery.Config{}
		switch {
		case v.Kind == yaml.ScalarNode && v.Tag == "!!null":
		case v.Kind != yaml.MappingNode:
			e.addAt(v.Line, key, "want a mapping of settings, got %s", describeNode(v))
			continue
		}
		for j := 0; j+1 < len(v.Content); j += 2 {
			k, val := v.Content[j].Value, v.Content[j+1]
			if val.Kind != yaml.ScalarNode {
				e.addAt(val.Line, key+"."+k, "want a string, got %s", describeNode(val))
				continue
			}
			cfg[k] = val.Value
		}
		out[id] = cfg
	}
	return out
}

// decodeProjects decodes the projects key's value (nil when the file
// has none), each project and component onto its defaults.
func (e *configError) decodeProjects(n *yaml.Node) []projectSetup {
	if n == nil || n.Kind != yaml.SequenceNode {
		e.add("projects", "a list of projects is required")
		return nil
	}
	var projects []projectSetup
	for i, pn := range n.Content {
		ps := projectSetup{path: fmt.Sprintf("projects[%d]", i), config: defaultProjectConfig()}
		e.lines[ps.path] = pn.Line
		var comps *yaml.Node
		ps.given, comps = e.decodeMapping(pn, ps.path, &ps.config, "components")
		if comps != nil && comps.Kind != yaml.SequenceNode {
			e.addAt(comps.Line, ps.path+".components", "want a list of components, got %s", describeNode(comps))
			comps = nil
		}
		if comps != nil {
			for j, cn := range comps.Content {
				cs := componentSetup{path: fmt.Sprintf("%s.components[%d]", ps.path, j), config: defaultComponentConfig()}
				e.lines[cs.path] = cn.Line
				cs.given, _ = e.decodeMapping(cn, cs.path, &cs.config, "")
				ps.components = append(ps.components, cs)
			}
		}
		projects = append(projects, ps)
	}
	return projects
}

// decodeMapping decodes the mapping n, at path, onto the struct v points
// to, one key at a time, so that a value that does not fit its field
// names its key and the other keys still decode. The keys are v's yaml
// tags and, when not "", the key sub, whose value it returns undecoded.
// It returns the keys it decoded.
func (e *configError) decodeMapping(n *yaml.Node, path string, v any, sub string) (given []string, subValue *yaml.Node) {
	rv := reflect.ValueOf(v).Elem()
	fields := map[string]reflect.Value{}
	for i := range rv.NumField() {
		fields[yamlKey(rv.Type().Field(i))] = rv.Field(i)
	}
	known := slices.Collect(maps.Keys(fields))
	if sub != "" {
		known = append(known, sub)
	}
	for key, val := range e.entries(n, path, known) {
		if key == sub {
			subValue = val
			continue
		}
		f := fields[key]
		if err := val.Decode(f.Addr().Interface()); err != nil {
			e.addAt(val.Line, path+"."+key, "want %s, got %s", wantType(f.Type()), describeNode(val))
			continue
		}
		given = append(given, key)
	}
	return given, subValue
}

// entries yields the keys of the mapping n (at path) with their values.
// It reports instead a key not in known, naming the closest known key or
// all of them, and a key given twice; it records the line of each key.
func (e *configError) entries(n *yaml.Node, path string, known []string) iter.Seq2[string, *yaml.Node] {
	return func(yield func(string, *yaml.Node) bool) {
		if n.Kind == yaml.AliasNode {
			n = n.Alias
		}
		if n.Kind != yaml.MappingNode {
			e.addAt(n.Line, path, "want a mapping of keys, got %s", describeNode(n))
			return
		}
		seen := map[string]int{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			key := k.Value
			if path != "" {
				key = path + "." + k.Value
			}
			if first, ok := seen[k.Value]; ok {
				e.addAt(k.Line, key, "given twice (first on line %d)", first)
				continue
			}
			seen[k.Value] = k.Line
			if !slices.Contains(known, k.Value) {
				e.addAt(k.Line, key, "unknown key; %s", suggest(k.Value, known))
				continue
			}
			e.lines[key] = k.Line
			if v.Kind == yaml.AliasNode {
				v = v.Alias
			}
			if !yield(k.Value, v) {
				return
			}
		}
	}
}

// specs applies the setup's projects on top of what the index holds
// (existing) and validates the result; resolve tells whether a language
// code is known. A key the file gives wins; what it leaves out keeps the
// stored value, or the default for what is new, so that a restart
// changes only what the file names. Problems name the file, the line and
// the key.
func (s *Setup) specs(resolve func(string) (index.Language, bool), existing existingIndex) ([]tolksync.ProjectSpec, error) {
	cerr := &configError{file: s.File, lines: s.lines}
	var specs []tolksync.ProjectSpec
	slugs := map[string]bool{}
	for _, ps := range s.projects {
		pc := ps.config
		if existing.project != nil {
			if p, ok := existing.project(pc.Slug); ok {
				pc = projectConfigOf(p)
				overlay(&pc, ps.config, ps.given)
			}
		}
		p := pc.project()
		validateProject(p, ps.path, slugs, cerr)
		spec := tolksync.ProjectSpec{Project: p}
		compSlugs := map[string]bool{}
		for _, cs := range ps.components {
			cc := cs.config
			if existing.component != nil {
				if c, ok := existing.component(pc.Slug, cc.Slug); ok {
					cc = componentConfigOf(c)
					overlay(&cc, cs.config, cs.given)
				}
			}
			c := cc.component()
			validateComponent(&c, cs.path, compSlugs, resolve, cerr)
			validateMessages(&c, cs.given, cs.path, cerr)
			spec.Components = append(spec.Components, c)
		}
		specs = append(specs, spec)
	}
	if len(cerr.problems) > 0 {
		return nil, cerr
	}
	return specs, nil
}

// existingIndex looks up the projects and components the index already
// holds (either may be nil: nothing exists), for Setup.specs.
type existingIndex struct {
	project   func(slug string) (index.Project, bool)
	component func(projectSlug, slug string) (index.Component, bool)
}

// overlay sets each field of dst whose yaml key is in given to src's.
func overlay[T any](dst *T, src T, given []string) {
	d, s := reflect.ValueOf(dst).Elem(), reflect.ValueOf(src)
	for i := range d.NumField() {
		if slices.Contains(given, yamlKey(d.Type().Field(i))) {
			d.Field(i).Set(s.Field(i))
		}
	}
}

func yamlKey(f reflect.StructField) string {
	key, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
	return key
}

// configError lists every problem of a setup file, one a line, each
// naming the file, the line and the key:
//
//	tolk.yaml:12: projects[0].components[0].vcs: unsupported value "svn" (want git or local)
type configError struct {
	file string
	// lines holds the line of each key path (Setup.lines).
	lines    map[string]int
	problems []string
}

func (e *configError) Error() string { return strings.Join(e.problems, "\n") }

// add reports a problem of key (a path such as "projects[0].web") at the
// line the file gives it, or, for a key the file leaves out, at the line
// of the nearest project or component that holds it.
func (e *configError) add(key, format string, args ...any) {
	line := 0
	for k := key; k != "" && line == 0; k = k[:max(strings.LastIndexAny(k, ".["), 0)] {
		line = e.lines[k]
	}
	e.addAt(line, key, format, args...)
}

// addAt reports a problem of key at line; a line of 0 or a key of ""
// is left out of the message.
func (e *configError) addAt(line int, key, format string, args ...any) {
	msg := e.file
	if line > 0 {
		msg += ":" + strconv.Itoa(line)
	}
	if key != "" {
		msg += ": " + key
	}
	e.problems = append(e.problems, msg+": "+fmt.Sprintf(format, args...))
}

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// yamlErrorLine splits a YAML syntax error into its line (0 when it
// names none) and its message.
func yamlErrorLine(err error) (int, string) {
	if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
		line, _ := strconv.Atoi(m[1])
		return line, m[2]
	}
	return 0, strings.TrimPrefix(err.Error(), "yaml: ")
}

// describeNode says what a YAML value is, for a message: a scalar is
// quoted, anything else named by its kind.
func describeNode(n *yaml.Node) string {
	switch n.Kind {
	case yaml.ScalarNode:
		return strconv.Quote(n.Value)
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a mapping"
	}
	return "an alias"
}

// wantType says what a value of a setup file's field of type t must be.
func wantType(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int64:
		return "an integer"
	case reflect.Slice:
		return "a list of " + strings.TrimPrefix(wantType(t.Elem()), "a ") + "s"
	}
	return t.String()
}

// suggest names the known key closest to key when it is close enough
// to be a slip of the keyboard, or else lists every known key.
func suggest(key string, known []string) string {
	best, bestDist := "", len(key)
	for _, k := range known {
		if d := editDistance(key, k); d < bestDist {
			best, bestDist = k, d
		}
	}
	if bestDist <= 2 && 3*bestDist <= len(key) {
		return fmt.Sprintf("did you mean %q?", best)
	}
	sorted := slices.Sorted(slices.Values(known))
	return "known keys: " + strings.Join(sorted, ", ")
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}
