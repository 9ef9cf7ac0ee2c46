package index

// Component is a set of translation files in one repository. Field names
// follow the API's; defaults come from DefaultComponent.
type Component struct {
	ID        int64
	ProjectID int64
	Project   Project // filled by finders
	// CategoryID is the category the component belongs to, 0 for none;
	// stored as a column, not among the settings (SetComponentCategory).
	CategoryID int64
	// CategoryPath is the slugs of the component's categories, outermost
	// first, joined by "/" ("" for none); filled by finders, never
	// stored with the settings.
	CategoryPath string
	// LinkedID is the component whose repository this one shares, its
	// Repo being a link (LinkTarget), 0 for none; stored as a column
	// the store sets from Repo on every save, not among the settings.
	LinkedID int64
	// DiscoveredBy is the id of the weblate.discovery.discovery add-on
	// that created the component, 0 for none; only that add-on's
	// "remove" ever removes it. Kept among the settings: no client sets it.
	DiscoveredBy int64

	Name                        string
	Slug                        string
	SourceLanguage              string // language code
	VCS                         string // "git" or "local"
	Repo                        string
	Branch                      string
	PushBranch                  string
	Filemask                    string
	Template                    string
	EditTemplate                bool
	Intermediate                string
	NewBase                     string
	FileFormat                  string // the reference's file_format: "json", "i18nextv4", "tbx", … (formats.All)
	License                     string
	Agreement                   string
	NewLang                     string
	LanguageCode                string // language_code_style
	Push                        string
	CheckFlags                  string
	Priority                    int
	EnforcedChecks              []string
	Restricted                  bool
	Repoweb                     string
	ReportSourceBugs            string
	MergeStyle                  string
	CommitMessage               string
	AddMessage                  string
	DeleteMessage               string
	MergeMessage                string
	AddonMessage                string
	PullMessage                 string
	AllowTranslationPropagation bool
	ManageUnits                 bool
	EnableSuggestions           bool
	SuggestionVoting            bool
	SuggestionAutoaccept        int
	PushOnCommit                bool
	CommitPendingAge            int
	AutoLockError               bool
	LanguageRegex               string
	VariantRegex                string
	IsGlossary                  bool
	GlossaryColor               string
	Locked                      bool
	// ConflictPolicy settles a string that a translator edited since the
	// last sync and upstream changed too: ConflictTranslatorWins (the
	// default) or ConflictUpstreamWins. The losing text stays in the
	// change history either way. Tolk's own setting (configuration
	// file only): the reference locks the component instead.
	ConflictPolicy string
	// Import is how the last import or update of the repository went;
	// filled by finders, stored with RecordImport, never by a save.
	Import ImportStatus
}

// ImportStatus is how a component's last import or update went.
type ImportStatus struct {
	// Error is what stopped it ("" when it finished): a clone or fetch
	// that failed, a walk that found too much, a template missing or
	// failing to parse (no translation can be read without it). Any other
	// file that fails to parse does not stop an import: its translation
	// carries the error.
	Error string
	// Skipped are the files matching the filemask that it left out.
	Skipped []SkippedFile
}

// The values of Component.ConflictPolicy.
const (
	ConflictTranslatorWins = "translator"
	ConflictUpstreamWins   = "upstream"
)

// Default message templates (../shared/reference/weblate-core.md,
// "Component defaults").
const (
	DefaultCommitMessage = "Translated using Tolk ({{ language_name }})\n\n" +
		"Currently translated at {{ stats.translated_percent }}% ({{ stats.translated }} of {{ stats.all }} strings)\n\n" +
		"Translation: {{ project_name }}/{{ component_name }}\nTranslate-URL: {{ url }}"
	DefaultAddMessage    = "Added translation using Tolk ({{ language_name }})\n\n"
	DefaultDeleteMessage = "Deleted translation using Tolk ({{ language_name }})\n\n"
	DefaultMergeMessage  = "Merge branch '{{ component_remote_branch }}' into Tolk.\n\n"
	DefaultAddonMessage  = "Update translation files\n\nUpdated by \"{{ addon_name }}\" add-on in Tolk.\n\n" +
		"Translation: {{ project_name }}/{{ component_name }}\nTranslate-URL: {{ url }}"
	DefaultPullMessage = "Translations update from {{ site_title }}\n\n" +
		"Translations update from [{{ site_title }}]({{ site_url }}) for " +
		"[{{ project_name }}/{{ component_name }}]({{url}}).\n\n"
)

// DefaultComponent returns a component with the reference's defaults for
// every setting a configuration may leave out.
func DefaultComponent() Component {
	return Component{
		VCS:                         "git",
		FileFormat:                  "json",
		SourceLanguage:              "en",
		NewLang:                     "add",
		LanguageCode:                "posix_long",
		Priority:                    100,
		EnforcedChecks:              []string{},
		MergeStyle:                  "rebase",
		CommitMessage:               DefaultCommitMessage,
		AddMessage:                  DefaultAddMessage,
		DeleteMessage:               DefaultDeleteMessage,
		MergeMessage:                DefaultMergeMessage,
		AddonMessage:                DefaultAddonMessage,
		PullMessage:                 DefaultPullMessage,
		AllowTranslationPropagation: true,
		EnableSuggestions:           true,
		CommitPendingAge:            24,
		AutoLockError:               true,
		LanguageRegex:               "^[^.]+$",
		GlossaryColor:               "silver",
	}
}

// IsMonolingual reports whether source strings come from a template file.
func (c *Component) IsMonolingual() bool { return c.Template != "" }

// FullSlug is the component's slug behind its categories' (CategoryPath
// + "/" + Slug): the reference's full slug, which its API URLs carry as
// one path segment ("cat%2Fslug") and its pages as several.
func (c *Component) FullSlug() string { return FullSlug(c.CategoryPath, c.Slug) }

// FullSlug joins a category path and a component's slug.
func FullSlug(categoryPath, slug string) string {
	if categoryPath == "" {
		return slug
	}
	return categoryPath + "/" + slug
}
