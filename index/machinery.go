package index

// MachinerySettings are the machine translation services a project
// configures, as the reference's Project.machinery_settings (reference
// workspace §6.1): each service identifier ("apertium-apy", "deepl",
// "weblate") with its configuration, the JSON object a client gave
// (url, key, ...). Package machinery says which identifiers and keys are
// valid; the index stores what it is given.
type MachinerySettings map[string]map[string]any

// SameSourceFilter selects the translated strings of other components
// of a project that have a given source text, for the "weblate" machine
// translation service (reference workspace §6.1: "current translations
// in other components of the project").
type SameSourceFilter struct {
	ProjectID int64
	// ExcludeComponentID is the component asking, whose own strings are
	// not suggestions for itself.
	ExcludeComponentID int64
	// ComponentID, when not 0, restricts the matches to that component
	// (automatic translation's component field).
	ComponentID int64
	// SourceLanguage and Language are the codes of the components'
	// source language and of the translation sought.
	SourceLanguage, Language string
	// Sources are the source texts, plural forms joined (JoinPlural),
	// matched exactly and case-sensitively as the reference does.
	Sources []string
	// Limit bounds the matches returned per source text; 0 means 10.
	Limit int
}

// SameSourceMatch is one translated string of another component whose
// source text is one of SameSourceFilter.Sources.
type SameSourceMatch struct {
	Source        string // as given in SameSourceFilter.Sources
	Target        []string
	UnitID        int64
	State         State
	ComponentSlug string
	ComponentName string
}
