package index

import (
	"fmt"
	"regexp"
	"strings"
)

// AddonDiscovery creates the components of a repository from the paths
// of its files (the reference's weblate.discovery.discovery): installed
// on a component, it matches every path of that component's checkout
// against a regular expression whose named groups "component" and
// "language" say which component a file is of and in which language,
// and creates each component found that the project lacks, sharing the
// checkout through a weblate:// link.
const AddonDiscovery = "weblate.discovery.discovery"

func init() { AddonNames = append(AddonNames, AddonDiscovery) }

// MaxDiscoveryPaths bounds the repository walk of a discovery: a tree
// with more entries is refused, with a message, rather than walked.
const MaxDiscoveryPaths = 100000

// Discovery is the configuration of a weblate.discovery.discovery add-on,
// with the reference's field names in the API.
type Discovery struct {
	Match            string // match
	FileFormat       string // file_format
	NameTemplate     string // name_template, "{{ component }}" by default
	BaseFileTemplate string // base_file_template
	NewBaseTemplate  string // new_base_template
	LanguageRegex    string // language_regex, "^[^.]+$" by default
	// Remove removes, at each run, the components this add-on created
	// whose files went away (sync's DiscoverCreate says which).
	Remove bool // remove

	Confirm bool // confirm: false previews, creating nothing
}

// templateVar is a {{ name }} of the discovery's templates.
var templateVar = regexp.MustCompile(`\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}`)

// RenderDiscovery fills the {{ name }} of a discovery template with the
// match's named groups. The reference renders Django templates; Tolk
// takes its variables only, and an unknown name is an error, so that a
// typo is a 400 at install rather than a component named "".
func RenderDiscovery(tmpl string, groups map[string]string) (string, error) {
	var missing string
	out := templateVar.ReplaceAllStringFunc(tmpl, func(m string) string {
		name := templateVar.FindStringSubmatch(m)[1]
		v, ok := groups[name]
		if !ok && missing == "" {
			missing = name
		}
		return v
	})
	if missing != "" {
		return "", fmt.Errorf("unknown variable %q: the match has no such group", missing)
	}
	return out, nil
}

// Slugify makes a slug of a name: lower-case letters, digits, "-" and
// "_", runs of anything else one "-", as the reference's slugify.
func Slugify(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(name) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '_':
			b.WriteRune(r)
			dash = false
		case !dash && b.Len() > 0:
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.Trim(b.String(), "-")
}

// Discovered is one component a discovery found.
type Discovered struct {
	Name, Slug   string
	Filemask     string
	Template     string // base_file_template rendered
	NewBase      string // new_base_template rendered
	Languages    []string
	Exists       bool // the project has a component of this slug or file mask
	ExistingSlug string
}
