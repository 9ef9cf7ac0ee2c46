package index

import (
	"slices"
	"strings"
)

// The flag add-ons (the reference's weblate.flags.*): each marks the
// strings an import creates as needing editing: in translations all of
// them (target_edit), or those whose target is the source unchanged
// (same_edit); in the template of a monolingual component whose
// template is editable (edit_template, the reference's compat rule),
// its new source strings not flagged read-only (source_edit: the
// source-string review, source_review, then takes them on). They have
// no configuration. As the reference, they are refused on components of
// the formats that keep their own fuzzy flag (po, po-mono).
const (
	AddonFlagsSourceEdit = "weblate.flags.source_edit"
	AddonFlagsTargetEdit = "weblate.flags.target_edit"
	AddonFlagsSameEdit   = "weblate.flags.same_edit"
)

func init() {
	AddonNames = append(AddonNames, AddonFlagsSourceEdit, AddonFlagsTargetEdit, AddonFlagsSameEdit)
}

// FuzzyFormats are the file formats whose files mark strings needing
// editing themselves, on which the flag add-ons are not installed (the
// reference's ts, po, po-mono, of those Tolk has).
var FuzzyFormats = []string{"po", "po-mono"}

// NewUnitFlags says which flag add-ons apply to a component's imports.
type NewUnitFlags struct {
	// SourceEdit is set only for a monolingual component with
	// edit_template on (sync's flagAddons).
	SourceEdit, TargetEdit, SameEdit bool
}

// IsFlagAddon reports whether name is one of the flag add-ons.
func IsFlagAddon(name string) bool {
	return name == AddonFlagsSourceEdit || name == AddonFlagsTargetEdit || name == AddonFlagsSameEdit
}

// Set turns on the add-on name's flag.
func (f *NewUnitFlags) Set(name string) {
	switch name {
	case AddonFlagsSourceEdit:
		f.SourceEdit = true
	case AddonFlagsTargetEdit:
		f.TargetEdit = true
	case AddonFlagsSameEdit:
		f.SameEdit = true
	}
}

// State is the state a new unit imported as in gets, in a source
// translation or not: StateFuzzy where an add-on says so (for
// translated, not read-only units, as the reference's unit_pre_create
// hooks; a template's units come in as StateReadOnly, read-only by
// their flag only), in's own otherwise.
func (f NewUnitFlags) State(in ImportUnit, source bool) State {
	if source {
		if f.SourceEdit && in.State >= StateTranslated && !hasFlag(in.Flags, "read-only") {
			return StateFuzzy
		}
		return in.State
	}
	if in.State < StateTranslated || in.State == StateReadOnly {
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

// hasFlag reports whether a comma-separated flag list names flag.
func hasFlag(flags, flag string) bool {
	for f := range strings.SplitSeq(flags, ",") {
		if strings.TrimSpace(f) == flag {
			return true
		}
	}
	return false
}
