package index

import "strings"

// AddonJSONCustomize lays out the JSON files Tolk writes (the
// reference's weblate.json.customize): indentation, its style and key
// order.
const AddonJSONCustomize = "weblate.json.customize"

func init() { AddonNames = append(AddonNames, AddonJSONCustomize) }

// The indentation styles of a JSON customize add-on.
const (
	JSONSpaces = "spaces"
	JSONTabs   = "tabs"
)

// JSONStyles are JSONCustomize.Style's values.
var JSONStyles = []string{JSONSpaces, JSONTabs}

// MaxJSONIndent bounds JSONCustomize.Indent. The reference has no bound;
// a client's indent of a billion would make every file gigabytes, so
// Tolk refuses more than this.
const MaxJSONIndent = 16

// JSONCustomize is the configuration of a weblate.json.customize add-on.
type JSONCustomize struct {
	SortKeys bool
	Indent   int    // 0..MaxJSONIndent, of Style's character
	Style    string // JSONSpaces or JSONTabs
}

// IndentText is one level of indentation.
func (j JSONCustomize) IndentText() string {
	if j.Style == JSONTabs {
		return strings.Repeat("\t", j.Indent)
	}
	return strings.Repeat(" ", j.Indent)
}

// JSONFormats are the file formats the add-on applies to, as the
// reference's compat list, of those Tolk has.
var JSONFormats = []string{"json", "i18next", "i18nextv4", "go-i18n-json", "go-i18n-json-v2", "webextension", "arb"}
