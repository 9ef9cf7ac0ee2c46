// Package xcstrings reads and writes Apple String Catalogs (.xcstrings),
// the JSON file Xcode 15 and later keep every language of an app in.
// It imports only the standard library and formats; start with Codec.
//
// # Identifier
//
// The reference has no String Catalog format: Weblate's file formats and
// translate-toolkit 3.8.4 have no .xcstrings reader (translate/translate
// issue 5190 asks for one), so "xcstrings" is Tolk's own file_format
// name. The registry row makes it bilingual (Monolingual false): the
// source text is in the file itself, the sourceLanguage's value or else
// the key, so a component needs no template; like a multi-language TBX it
// has one file for all languages (formats.Format.OneFile: the filemask is
// the file's path, and FileLanguages lists its languages). The format's
// units carry "objc-format" (its registry row's Flags), the flag the
// reference gives Apple's .strings and .stringsdict, whose %@ and
// %lld specifiers String Catalogs share.
//
// # One file, many languages
//
// Every call works on one language, formats.File.Target (an index code
// such as "pt_BR" is the catalog's "pt-BR"). Decode returns one unit per
// entry of "strings" whether or not that language has a localization of
// it: absence is how Xcode says untranslated. Languages lists the
// languages a catalog holds, for discovering a component's translations.
// Emptied returns the template as it is: a new language needs nothing in
// the file until a value of it is translated, and Apply then adds its
// localizations.
//
// # What is read (see Codec.Decode for the details)
//   - a stringUnit's value, or one form per plural category in
//     File.Target.Plurals order from variations.plural;
//   - device variations as one unit per device, "KEY|device:ipad";
//   - each substitution argument ("%#@followers@") as a plural unit
//     "KEY|%#@followers@" after the string's own unit, whose value keeps
//     the "%#@followers@" placeholder;
//   - needs_review and new as Fuzzy; stale (the string left the code) as
//     translated; shouldTranslate false as the "read-only" flag;
//     comment as Note. extractionState manual is not read-only: it only
//     says Xcode did not extract the key from code (433 of the corpus's
//     733 keys are manual and all are translated);
//   - Source from the sourceLanguage's value at the same place, else the
//     key.
//
// # What is written
//
// The parser keeps the byte span of every value, and the writer patches
// spans: Apply with no edits returns the input, an edit replaces one
// value (and its state), and an added localization, plural category or
// key is written in Xcode's style (two-space indentation, the file's
// " : " separator, keys sorted as Xcode sorts them, only '"', '\\' and
// control characters escaped). Other languages' bytes, unknown fields,
// formatSpecifier and everything the package does not model are kept
// byte for byte.
//
// Left to Xcode, with a clear error: adding a localization to a string
// whose source has device variations or substitutions, adding a device
// or substitution the language lacks, and plural forms for a string
// whose localization is a single stringUnit. A new key is appended at the
// end of "strings" (Xcode's own key order is not code-point order, so
// there is no sorted place to find) with extractionState manual.
//
// Remove in the source language (or the template) deletes whole entries;
// in another language only that language's localization of each entry.
package xcstrings
