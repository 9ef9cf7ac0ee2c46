// Package checks computes Weblate's quality checks and automatic fixups
// for one unit: given the source forms, the target forms, the target
// language and the unit's merged flags, Run reports which check ids fail
// and Autofix returns the target as Weblate would store it.
//
// Check ids are Weblate's, spelt exactly as Weblate stores and searches
// them (a mix of snake_case and kebab-case: "end_stop", "newline-count").
// All lists every id of Weblate's default check list, including those this
// package does not compute yet; Check.Implemented tells them apart.
//
// The package is pure: it does no I/O, imports only the standard library
// and keeps no state, so every function is safe for concurrent use.
//
// Where to start reading:
//
//   - run.go: Unit, Run and RunDetailed (failures plus the checks skipped
//     for their size bound), and how source and target forms pair.
//   - plural.go: plural pairing. Without plural data forms pair one to
//     one when the counts match, else every target form with the last
//     source form. Unit.SourcePlurals/TargetPlurals (CLDR categories)
//     pair by category; Unit.PluralMap (NewPluralMap, built once per
//     translation from the plural formulas) pairs exactly as Weblate's
//     PluralMapper does, and wins.
//   - flags.go: ParseFlags, Merge (with discard:), Flags. A regex: or
//     placeholders:r"…" that does not compile, or an empty placeholder,
//     is a *FlagError naming the flag.
//   - autofix.go: Autofix and Fixers, Weblate's AUTOFIX_LIST without
//     BleachHTML (trailing whitespace, ellipsis, zero-width space, control
//     characters, Devanagari danda, French punctuation spacing).
//   - fixup.go: Fixup, the reference's "Fix string"
//     replacements for a failing check (get_fixup), which the editor's
//     script applies on request.
//   - bounds.go: the size bounds. Every check is linear; the regexp-heavy
//     markup families (md-*, safe-html) skip forms over 10,000 bytes and
//     placeholders skips when entries × length exceeds 20 million;
//     RunDetailed reports them in Skipped, Run leaves them out.
//   - One file per family registers its functions with register:
//     chars.go and text.go (characters, punctuation, lines), same.go,
//     units.go (plurals, length, regex), format.go (printf and brace
//     formats), format_dialects.go (Perl, Lua, Scheme, Object Pascal,
//     Perl brace, Laravel, Qt plural, Automattic), placeholders.go,
//     icu.go (ICU MessageFormat), markup.go and quickxml.go (XML),
//     markdown.go, rst.go (reStructuredText), fluent.go (the Fluent
//     checks, over Tolk's own parser of a message body), rare.go (bbcode,
//     accelerator, max-size: an approximate layout, no font rendering),
//     source.go (RunSource).
//   - glossary.go: RunGlossary (prohibited_initial_character, for
//     glossary components) and check_glossary over Unit.Glossary, the
//     terms the caller reads (GlossaryMatches finds those in the source).
//   - consistency.go: translated (TranslatedInPast over Unit.History;
//     RunUntranslated for units without a translation) and reused (over
//     Unit.OtherSources): the caller reads the history and the other
//     units, the checks only decide.
//
// Stored elsewhere: index/sqlstore runs these on every write and keeps
// the failing ids as rows (dismissals there too); it also feeds the
// checks that need other units (check_glossary's terms, translated's
// history, reused's neighbours).
//
// Not here (Check.Implemented is false): the batch checks inconsistent
// (translation propagation), multiple_failures and long_untranslated
// (computed by the store's daily pass from other units' rows and
// states, index/sqlstore/checks_daily.go; Enabled applies their flags);
// safe-mdx; same's per-language word lists;
// BleachHTML; check_glossary's morphological advisories (newer Weblate
// accepts inflected forms of a term).
//
// Regular expressions given by the regex flag are compiled with Go's
// regexp package (RE2), so matching is linear in the input's length.
package checks
