// Package corpusspec describes the components of the shared corpus
// (shared/corpus, one folder per project): for each, the settings its
// SOURCE.md gives, so that the tests and tolk-bench read the same files
// the same way.
package corpusspec

// Component is one corpus folder read as one component.
type Component struct {
	Name     string // unique among Components: the folder, or folder/part when it holds several
	Folder   string // under shared/corpus
	Filemask string
	Template string // "" for a bilingual component without one
	NewBase  string // new_base, "" for none
	Format   string // file_format
	Source   string // source language code
}

// Components lists one component per corpus folder and format, every
// format Tolk registers having at least one.
var Components = []Component{
	{Name: "jellyfin-web", Folder: "jellyfin-web", Filemask: "src/strings/*.json", Template: "src/strings/en-us.json",
		Format: "json", Source: "en-us"},
	{Name: "kavita", Folder: "kavita", Filemask: "UI/Web/src/assets/langs/*.json", Template: "UI/Web/src/assets/langs/en.json",
		Format: "json", Source: "en"},
	{Name: "tbx/slicer", Folder: "tbx/slicer", Filemask: "glossary/*.tbx", Format: "tbx", Source: "en"},
	// Bilingual PO: the POT is new_base, not a template.
	{Name: "kooha", Folder: "kooha", Filemask: "po/*.po", NewBase: "po/kooha.pot", Format: "po", Source: "en"},
	// The template values/ is outside values-*/.
	{Name: "newpipe", Folder: "newpipe", Filemask: "app/src/main/res/values-*/strings.xml",
		Template: "app/src/main/res/values/strings.xml", Format: "aresource", Source: "en"},
	{Name: "kimai/messages", Folder: "kimai", Filemask: "translations/messages.*.xlf",
		Template: "translations/messages.en.xlf", Format: "xliff", Source: "en"},
	{Name: "kimai/validators", Folder: "kimai", Filemask: "translations/validators.*.xlf",
		Template: "translations/validators.en.xlf", Format: "xliff", Source: "en"},
	{Name: "pkspot", Folder: "pkspot", Filemask: "src/locale/messages.*.xlf", Template: "src/locale/messages.xlf",
		Format: "xliff2", Source: "en"},
	// Base.lproj is the template; en.lproj is English beside it.
	{Name: "mastodon-ios/strings", Folder: "mastodon-ios",
		Filemask: "MastodonSDK/Sources/MastodonLocalization/Resources/*.lproj/Localizable.strings",
		Template: "MastodonSDK/Sources/MastodonLocalization/Resources/Base.lproj/Localizable.strings",
		Format:   "strings-utf8", Source: "en"},
	{Name: "mastodon-ios/stringsdict", Folder: "mastodon-ios",
		Filemask: "MastodonSDK/Sources/MastodonLocalization/Resources/*.lproj/Localizable.stringsdict",
		Template: "MastodonSDK/Sources/MastodonLocalization/Resources/Base.lproj/Localizable.stringsdict",
		Format:   "stringsdict", Source: "en"},
	{Name: "diaspora", Folder: "diaspora", Filemask: "config/locales/diaspora/*.yml", Template: "config/locales/diaspora/en.yml",
		Format: "ruby-yaml", Source: "en"},
	{Name: "fluffychat", Folder: "fluffychat", Filemask: "lib/l10n/intl_*.arb", Template: "lib/l10n/intl_en.arb",
		Format: "arb", Source: "en"},
	{Name: "jitsi", Folder: "jitsi",
		Filemask: "modules/plugin/defaultresourcepack/src/main/resources/resources/languages/resources_*.properties",
		Template: "modules/plugin/defaultresourcepack/src/main/resources/resources/languages/resources.properties",
		Format:   "properties-utf8", Source: "en"},
	{Name: "portfolio-performance", Folder: "portfolio-performance",
		Filemask: "name.abuchen.portfolio.ui/src/name/abuchen/portfolio/ui/messages_*.properties",
		Template: "name.abuchen.portfolio.ui/src/name/abuchen/portfolio/ui/messages.properties",
		Format:   "properties", Source: "en"},
	// One file holds every language: the filemask is its path.
	{Name: "icecubesapp", Folder: "icecubesapp", Filemask: "IceCubesApp/Resources/Localization/Localizable.xcstrings",
		Format: "xcstrings", Source: "en"},
}
