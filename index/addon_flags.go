package index

import (
	"slices"
	"strings"
)

// The flag add-ons (the reference's weblate.flags.*): each marks the
// strings an import creates in translations as needing editing: all of
// them (target_edit), or those whose target is the source unchanged
// (same_edit). They have no configuration. weblate.flags.source_edit,
// which marks new strings of the source template, is not offered: Tolk
// keeps source strings read-only (state 100), with no needs-editing
// state to give them yet.
const (
	AddonFlagsTargetEdit = "weblate.flags.target_edit"
	AddonFlagsSameEdit   = "weblate.flags.same_edit"
)

func init() {
	AddonNames = append(AddonNames, AddonFlagsTargetEdit, AddonFlagsSameEdit)
}

// NewUnitFlags says which flag add-ons apply to a component's imports.
type NewUnitFlags struct {
	TargetEdit, SameEdit bool
}

// IsFlagAddon reports whether name is one of the flag add-ons.
func IsFlagAddon(name string) bool {
	return name == AddonFlagsTargetEdit || name == AddonFlagsSameEdit
}

// Set turns on the add-on name's flag.
func (f *NewUnitFlags) Set(name string) {
	switch name {
	case AddonFlagsTargetEdit:
		f.TargetEdit = true
	case AddonFlagsSameEdit:
		f.SameEdit = true
	}
}

// State is the state a new unit imported as in gets, in a source
// translation or not: StateFuzzy where an add-on says so (for
// translated, not read-only units of translations, as the reference's
// unit_pre_create hooks), in's own otherwise.
func (f NewUnitFlags) State(in ImportUnit, source bool) State {
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

// hasFlag reports whether a comma-separated flag list names flag.
func hasFlag(flags, flag string) bool {
	for f := range strings.SplitSeq(flags, ",") {
		if strings.TrimSpace(f) == flag {
			return true
		}
	}
	return false
}
