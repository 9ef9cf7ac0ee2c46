// Package index holds Tolk's domain vocabulary: projects, components,
// translations, units, changes, languages, users, statistics, add-ons and
// their deliveries (addon.go), and the error kinds every layer shares.
//
// The package does no I/O and imports only the standard library. The
// storage engine lives in a subpackage, index/sqlstore (SQLite or
// PostgreSQL); consumers such as api and sync declare the small interfaces they need
// and depend on this vocabulary, never on an engine. Start reading at
// unit.go and stats.go.
package index
