package checks

// Kind says which units a check runs on.
type Kind int

const (
	// Target checks compare a translation with its source.
	Target Kind = iota
	// Source checks run on the source-language unit.
	Source
	// Glossary checks run only in glossary components.
	Glossary
)

func (k Kind) String() string {
	switch k {
	case Target:
		return "target"
	case Source:
		return "source"
	case Glossary:
		return "glossary"
	}
	return "unknown"
}

// Check describes one of Weblate's quality checks.
type Check struct {
	ID          string // as Weblate stores and searches it: "end_stop", "max-length"
	Name        string
	Description string
	Kind        Kind
	Default     bool   // runs unless ignored, without an enable flag
	Flag        string // the flag that turns it on, if any ("max-length", "c-format")
	Implemented bool   // Run computes it; otherwise it is only registered
}

// EnableFlag is the flag name derived from the id: underscores become
// dashes ("end_stop" → "end-stop").
func (c Check) EnableFlag() string { return dashed(c.ID) }

// IgnoreFlag is the flag that silences the check ("ignore-end-stop").
func (c Check) IgnoreFlag() string { return "ignore-" + dashed(c.ID) }

func dashed(id string) string {
	b := []byte(id)
	for i, c := range b {
		if c == '_' {
			b[i] = '-'
		}
	}
	return string(b)
}

// All returns every check of Weblate's default check list, in that list's
// order. The slice is a copy; callers may modify it.
func All() []Check {
	out := make([]Check, len(registry))
	copy(out, registry)
	for i := range out {
		_, out[i].Implemented = implemented[out[i].ID]
	}
	return out
}

// ByID returns the check with the given id, spelt exactly as Weblate does.
func ByID(id string) (Check, bool) {
	i, ok := byID[id]
	if !ok {
		return Check{}, false
	}
	c := registry[i]
	_, c.Implemented = implemented[c.ID]
	return c, true
}

var byID = func() map[string]int {
	m := make(map[string]int, len(registry))
	for i, c := range registry {
		m[c.ID] = i
	}
	return m
}()

// on and flag build registry rows: on for checks that run by default,
// flag for those a flag turns on.
func on(id, name, desc string, kind Kind) Check {
	return Check{ID: id, Name: name, Description: desc, Kind: kind, Default: true}
}

func flag(id, name, desc string, kind Kind, f string) Check {
	if f == "" {
		f = dashed(id)
	}
	return Check{ID: id, Name: name, Description: desc, Kind: kind, Flag: f}
}

// registry follows Weblate's CHECK_LIST (reference §1.3). Run reports
// failures in this order.
var registry = []Check{
	// Characters, punctuation, length.
	on("same", "Unchanged translation", "Source and translation are identical", Target),
	on("begin_newline", "Starting newline", "Source and translation do not both start with a newline", Target),
	on("end_newline", "Trailing newline", "Source and translation do not both end with a newline", Target),
	on("begin_space", "Starting spaces", "Source and translation do not both start with the same number of spaces", Target),
	on("end_space", "Trailing space", "Source and translation do not both end with the same number of spaces", Target),
	on("double_space", "Double space", "Translation contains double space", Target),
	on("end_stop", "Mismatched full stop", "Source and translation do not both end with a full stop", Target),
	on("end_colon", "Mismatched colon", "Source and translation do not both end with a colon", Target),
	on("end_question", "Mismatched question mark", "Source and translation do not both end with a question mark", Target),
	on("end_exclamation", "Mismatched exclamation mark", "Source and translation do not both end with an exclamation mark", Target),
	on("end_ellipsis", "Mismatched ellipsis", "Source and translation do not both end with an ellipsis", Target),
	on("end_semicolon", "Mismatched semicolon", "Source and translation do not both end with a semicolon", Target),
	on("end_interrobang", "Mismatched interrobang", "Source and translation do not both end with an interrobang", Target),
	on("escaped_newline", `Mismatched \n`, `Number of \n in translation does not match source`, Target),
	on("newline-count", "Mismatching line breaks", "Number of new lines in translation does not match source", Target),
	on("zero-width-space", "Zero-width space", "Translation contains extra zero-width space character", Target),
	on("kashida", "Kashida letter used", "The decorative kashida letters should not be used", Target),
	on("punctuation_spacing", "Punctuation spacing", "Missing non-breakable space before double punctuation sign", Target),
	on("kabyle-characters", "Kabyle characters", "Greek look-alike letters used instead of Kabyle ones", Target),
	on("multiple_capital", "Multiple capitals", "Words with misplaced multiple capital letters", Target),
	flag("max-length", "Maximum length of translation", "Translation should not exceed given length", Target, ""),
	flag("max-lines", "Maximum lines", "Number of lines in translation exceeds the limit", Target, ""),
	flag("accelerator", "Accelerator", "Inconsistent accelerator markers", Target, ""),

	// Format strings.
	flag("c_format", "C format", "C format string does not match source", Target, ""),
	flag("objc_format", "Objective-C format", "Objective-C format string does not match source", Target, ""),
	flag("php_format", "PHP format", "PHP format string does not match source", Target, ""),
	flag("python_format", "Python format", "Python format string does not match source", Target, ""),
	flag("perl_format", "Perl format", "Perl format string does not match source", Target, ""),
	flag("javascript_format", "JavaScript format", "JavaScript format string does not match source", Target, ""),
	flag("lua_format", "Lua format", "Lua format string does not match source", Target, ""),
	flag("object_pascal_format", "Object Pascal format", "Object Pascal format string does not match source", Target, ""),
	flag("scheme_format", "Scheme format", "Scheme format string does not match source", Target, ""),
	flag("laravel_format", "Laravel format", "Laravel format string does not match source", Target, ""),
	flag("java_printf_format", "Java format", "Java format string does not match source", Target, ""),
	flag("java_format", "Java MessageFormat", "Java MessageFormat string does not match source", Target, ""),
	flag("python_brace_format", "Python brace format", "Python brace format string does not match source", Target, ""),
	flag("perl_brace_format", "Perl brace format", "Perl brace format string does not match source", Target, ""),
	flag("c_sharp_format", "C# format", "C# format string does not match source", Target, ""),
	flag("i18next_interpolation", "i18next interpolation", "The i18next interpolation does not match source", Target, ""),
	flag("es_format", "ECMAScript template literals", "ECMAScript template literals do not match source", Target, ""),
	flag("percent_placeholders", "Percent placeholders", "The percent placeholders do not match source", Target, ""),
	flag("vue_format", "Vue I18n formatting", "The Vue I18n formatting does not match source", Target, ""),
	flag("angularjs_format", "AngularJS interpolation string", "AngularJS interpolation strings do not match source", Target, ""),
	flag("qt_format", "Qt format", "Qt format string does not match source", Target, ""),
	flag("qt_plural_format", "Qt plural format", "Qt plural format string does not match source", Target, ""),
	flag("ruby_format", "Ruby format", "Ruby format string does not match source", Target, ""),
	flag("automattic_components_format", "Automattic components formatting", "Automattic component tags do not match source", Target, ""),
	flag("icu_message_format", "ICU MessageFormat", "Syntax errors and/or placeholder mismatches in ICU MessageFormat strings", Target, "icu-message-format"),

	// Markup, links, placeholders.
	on("xml-invalid", "Invalid XML markup", "The translation is not valid XML", Target),
	on("xml-tags", "XML markup", "XML tags in translation do not match source", Target),
	on("xml-chars-around-tags", "XML characters around tags", "Characters hugging XML tags differ from source", Target),
	flag("bbcode", "BBCode markup", "BBCode in translation does not match source", Target, "bbcode-text"),
	flag("md-reflink", "Markdown references", "Markdown link references do not match source", Target, "md-text"),
	flag("md-link", "Markdown links", "Markdown links do not match source", Target, "md-text"),
	flag("md-syntax", "Markdown syntax", "Markdown syntax does not match source", Target, "md-text"),
	flag("rst-references", "reStructuredText references", "reStructuredText references do not match source", Target, "rst-text"),
	flag("rst-syntax", "reStructuredText syntax", "reStructuredText syntax error in translation", Target, "rst-text"),
	flag("url", "URL", "The translation does not contain a URL", Target, ""),
	flag("safe-html", "Unsafe HTML", "The translation uses unsafe HTML markup", Target, ""),
	flag("safe-mdx", "Unsafe MDX", "JSX expressions in translation do not match source", Target, ""),
	flag("placeholders", "Placeholders", "Translation is missing some placeholders", Target, ""),
	flag("regex", "Regular expression", "Translation does not match regular expression", Target, ""),
	flag("max-size", "Maximum size of translation", "Translation rendered text should not exceed given size", Target, ""),

	// Consistency and duplicates.
	on("plurals", "Missing plurals", "Some plural forms are untranslated", Target),
	on("same-plurals", "Same plurals", "Some plural forms are translated in the same way", Target),
	on("inconsistent", "Inconsistent", "This string has more than one translation in this project or is untranslated in some components", Target),
	on("reused", "Reused translation", "Different strings are translated the same", Target),
	on("translated", "Has been translated", "This string has been translated in the past", Target),
	on("duplicate", "Consecutive duplicated words", "Text contains the same word twice in a row", Target),

	// Source checks.
	on("optional_plural", "Unpluralised", "The string is used as plural, but not using plural forms", Source),
	on("ellipsis", "Ellipsis", "The string uses three dots (...) instead of an ellipsis character (…)", Source),
	flag("source-max-length", "Maximum length of source", "Source string is close to or over the maximum length", Source, "max-length"),
	on("multiple_failures", "Multiple failing checks", "The translations in several languages have failing checks", Source),
	on("long_untranslated", "Long untranslated", "The string has not been translated for a long time", Source),
	// unnamed_format runs when any format flag is set; it has no flag of
	// its own, so it is on and reads the format flags itself.
	{ID: "unnamed_format", Name: "Unnamed format", Description: "Multiple unnamed variables cannot be reordered by translators", Kind: Source, Default: true},
	flag("icu_message_format_syntax", "ICU MessageFormat syntax", "Syntax errors in ICU MessageFormat strings", Source, "icu-message-format"),
	flag("fluent-source-syntax", "Fluent source syntax", "Fluent syntax error in source", Source, ""),
	flag("fluent-source-inner-html", "Fluent source inner HTML", "Fluent source should be valid inner HTML", Source, ""),

	// Glossary and Fluent.
	flag("check_glossary", "Does not follow glossary", "The translation does not follow terms defined in a glossary", Target, "check-glossary"),
	{ID: "prohibited_initial_character", Name: "Prohibited initial character", Description: "The term or translation starts with a character that spreadsheets read as a formula", Kind: Glossary, Default: true},
	flag("fluent-target-syntax", "Fluent translation syntax", "Fluent syntax error in translation", Target, ""),
	flag("fluent-parts", "Fluent parts", "Fluent attributes differ from source", Target, ""),
	flag("fluent-references", "Fluent references", "Fluent references differ from source", Target, ""),
	flag("fluent-target-inner-html", "Fluent translation inner HTML", "Fluent translation should be valid inner HTML", Target, ""),
}
