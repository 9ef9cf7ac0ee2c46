// Package checks computes Weblate's quality checks for one unit: given the
// source forms, the target forms, the target language and the unit's
// merged flags, Run reports which check ids fail.
//
// Check ids are Weblate's, spelt exactly as Weblate stores and searches
// them (a mix of snake_case and kebab-case: "end_stop", "newline-count").
// All lists every id of Weblate's default check list, including those this
// package does not compute yet; Check.Implemented tells them apart.
//
// The package is pure: it does no I/O, imports only the standard library
// and keeps no state, so every function is safe for concurrent use.
// It is not yet stored or wired: storing one row per failing check,
// dismissing, batch checks across components and the API's
// has_failing_check come in later slices of the quality-checks issue.
//
// Run computes the target checks, RunSource the source checks. Each file
// of checks registers its functions with register (format.go the format
// strings, markup.go the markup, text.go and markdown.go the rest), so a
// new family of checks is a new file.
//
// Regular expressions given by the regex flag are compiled with Go's
// regexp package (RE2), so matching is linear in the input's length.
package checks
