package index

import (
	"slices"
	"strings"
)

// The flag add-ons (the reference's weblate.flags.*): each marks some
// strings an import creates as needing editing: new source strings of a
// template whose component lets them be edited (source_edit), all new
// strings of translations (target_edit), or those whose target is the
// source unchanged (same_edit). They have no configuration.
const (
	AddonFlagsSourceEdit = "weblate.flags.source_edit"
	AddonFlagsTargetEdit = "weblate.flags.target_edit"
	AddonFlagsSameEdit   = "weblate.flags.same_edit"
)

func init() {
	AddonNames = append(AddonNames, AddonFlagsSourceEdit, AddonFlagsTargetEdit, AddonFlagsSameEdit)
	noConfigAddons[AddonFlagsSourceEdit] = true
}

// FuzzyFormats are the file formats whose files mark strings needing
// editing themselves, on which the flag add-ons are not installed (the
// reference's ts, po, po-mono, of those Tolk has).
var FuzzyFormats = []string{"po", "po-mono"}

// NewUnitFlags says which flag add-ons apply to a component's imports.
type NewUnitFlags struct {
	SourceEdit, TargetEdit, SameEdit bool
}

// IsFlagAddon reports whether name is one of the flag add-ons.
func IsFlagAddon(name string) bool {
	return name == AddonFlagsSourceEdit || name == AddonFlagsTargetEdit || name == AddonFlagsSameEdit
}

// Set turns on the add-on name's flag for component c's imports.
// source_edit applies only where c's template strings can be edited
// (monolingual, edit_template on), as the reference's compat
// (edit_template) says; a project's add-on skips the others.
func (f *NewUnitFlags) Set(name string, c *Component) {
	switch name {
	case AddonFlagsSourceEdit:
		f.SourceEdit = f.SourceEdit || (c.IsMonolingual() && c.EditTemplate)
	case AddonFlagsTargetEdit:
		f.TargetEdit = true
	case AddonFlagsSameEdit:
		f.SameEdit = true
	}
}

// State is the state a new unit imported as in gets: StateFuzzy where
// an add-on says so, in's own otherwise. In a template (the source
// translation of a monolingual component), source_edit marks the new
// strings that are not flagged read-only and have text, which the
// import reads as read-only (state 100, as every template string)
// until someone edits them. In other translations, target_edit and
// same_edit mark translated, not read-only units, as the reference's
// unit_pre_create hooks. A bilingual source translation's strings are
// never marked.
func (f NewUnitFlags) State(in ImportUnit, source, template bool) State {
	if template && f.SourceEdit && !hasFlag(in.Flags, "read-only") && !IsBlank(in.Target) {
		return StateFuzzy
	}
	if source || in.State < StateTranslated || in.State == StateReadOnly {
		return in.State
	}
	switch {
	case f.TargetEdit:
		return StateFuzzy
	case f.SameEdit && slices.Equal(in.Source, in.Target) && !hasFlag(in.Flags, "ignore-same"):
		return StateFuzzy
	}
	return in.State
}

// FlagAddonMisfit is why a flag add-on cannot be installed on component
// c, "" when it can: the reference's FlagBase.can_install refuses the
// formats that say "needs editing" themselves (gettext's fuzzy flag),
// and source_edit needs template strings that can be edited (its compat:
// edit_template).
func FlagAddonMisfit(name string, c *Component) string {
	switch {
	case !IsFlagAddon(name):
		return ""
	case slices.Contains(FuzzyFormats, c.FileFormat):
		return "This add-on can not be installed on this component: its file format marks strings as needing editing itself."
	case name == AddonFlagsSourceEdit && (!c.IsMonolingual() || !c.EditTemplate):
		return "This add-on can not be installed on this component: it needs a monolingual base file that can be edited (edit_template)."
	}
	return ""
}

// hasFlag reports whether a comma-separated flag list names flag.
func hasFlag(flags, flag string) bool {
	for f := range strings.SplitSeq(flags, ",") {
		if strings.TrimSpace(f) == flag {
			return true
		}
	}
	return false
}
