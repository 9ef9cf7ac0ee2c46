package index

import (
	"strings"
	"unicode/utf8"
)

// AddonPseudolocale fills a translation of a component with its source
// strings wrapped in a prefix and a suffix (the reference's
// weblate.generate.pseudolocale), for testing that an application shows
// translations and leaves room for longer ones.
const AddonPseudolocale = "weblate.generate.pseudolocale"

func init() { AddonNames = append(AddonNames, AddonPseudolocale) }

// MaxPseudoMultiplier bounds Pseudolocale.VarMultiplier. The reference
// has none; a multiplier of a million would make every string megabytes.
const MaxPseudoMultiplier = 10

// Pseudolocale is the configuration of a weblate.generate.pseudolocale
// add-on. Source and Target are translations of the add-on's component
// (by id, as the reference stores them).
type Pseudolocale struct {
	Source, Target       int64
	Prefix, Suffix       string
	VarPrefix, VarSuffix string
	VarMultiplier        float64 // the reference's default 0.1
	IncludeReadOnly      bool
}

// Forms are the pseudo-translation of source (a string's forms in the
// source translation) for a unit with n plural forms: each form is
// prefix, var_prefix and var_suffix repeated int(multiplier × length)
// times around the text, then suffix; forms the source lacks, or has
// empty, repeat the last non-empty one, as the reference.
func (p Pseudolocale) Forms(source []string, n int) []string {
	n = max(n, 1)
	out := make([]string, n)
	last := ""
	for i := range n {
		s := ""
		if i < len(source) {
			s = source[i]
		}
		if s == "" {
			s = last
		}
		last = s
		multi := int(p.VarMultiplier * float64(utf8.RuneCountInString(s)))
		out[i] = p.Prefix + strings.Repeat(p.VarPrefix, multi) + s + strings.Repeat(p.VarSuffix, multi) + p.Suffix
	}
	return out
}
