package index

// AddonLanguages keeps the languages of a project's components the same
// (the reference's weblate.consistency.languages): every language any
// component of the project has is added to the components that lack it.
// Like the reference's, it acts on the whole project wherever it is
// installed, and it has no configuration. sync runs it after each import
// that leaves the project's languages changed, after a translation is
// added, and when it is installed or triggered.
const AddonLanguages = "weblate.consistency.languages"

func init() { AddonNames = append(AddonNames, AddonLanguages) }

// noConfigAddons are the add-ons without configuration; whatever a
// client posts as theirs is ignored, as the reference's empty forms do.
var noConfigAddons = map[string]bool{
	AddonFlagsSourceEdit: true, AddonFlagsTargetEdit: true, AddonFlagsSameEdit: true, AddonLanguages: true,
}

// HasNoConfig reports whether the add-on name has no configuration.
func HasNoConfig(name string) bool { return noConfigAddons[name] }
