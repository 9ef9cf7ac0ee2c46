package index

// The cleanup add-ons (the reference's weblate.cleanup.*): they rewrite
// the translation files of a component with a monolingual base file,
// through the format's byte-preserving Remove, and commit what they
// changed as the component's add-on commit. Neither has configuration.
const (
	// AddonCleanup removes from each translation file the strings its
	// template no longer has (after each commit and each update).
	AddonCleanup = "weblate.cleanup.generic"
	// AddonCleanupBlank removes from each translation file the strings
	// without a translation (after each commit and each update).
	AddonCleanupBlank = "weblate.cleanup.blank"
)

func init() {
	AddonNames = append(AddonNames, AddonCleanup, AddonCleanupBlank)
	noConfigAddons[AddonCleanup], noConfigAddons[AddonCleanupBlank] = true, true
}

// AddonVerbose is the name the reference gives an add-on in the commits
// it makes ({{ addon_name }} of the component's add-on message).
var AddonVerbose = map[string]string{
	AddonCleanup:      "Cleanup translation files",
	AddonCleanupBlank: "Remove blank strings",
}

// NeedsTemplate reports whether the add-on name works only on
// components with a monolingual base file (the reference refuses to
// install it on others).
func NeedsTemplate(name string) bool { return name == AddonCleanup || name == AddonCleanupBlank }
