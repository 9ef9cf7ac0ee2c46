// Package langdata is Tolk's built-in language table: codes, English names,
// text direction, speaker population, aliases and plural rules for about 800
// languages, embedded in the binary.
//
// Start with Default, then Table.Resolve, which maps a code found in a file
// name ("pt-br", "zh_CN", "nb") to its canonical language the way the
// reference does. CompilePlural evaluates gettext plural formulas, and the
// Plural* constants name the formula families stored in index.Plural.Type.
//
// The package imports only the standard library and index; it does no I/O
// beyond reading its embedded files.
//
// # Attribution
//
// The files under data/ are copied byte for byte from the
// weblate-language-data project (https://github.com/WeblateOrg/language-data,
// commit f6fa893b3dc0b1f3d0878cb939515105aad83dd4), which publishes them
// under the MIT license. data/LICENSE-MIT.txt holds that license and
// data/SOURCE.md the provenance; both are embedded with the data and must
// stay with it.
package langdata
