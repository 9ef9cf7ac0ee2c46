// Package machinery asks machine translation services for suggestions:
// the reference's "machinery" (reference workspace §6.1). A service is
// described once in the registry (Services, Lookup): its identifier, the
// reference's ("apertium-apy", "libretranslate", "deepl", "weblate",
// "weblate-translation-memory"), its name, max score, rank boost and
// configuration keys. An Engine is a configured service; a Broker builds
// engines from a project's settings laid over the site's, and queries
// them, each under its own deadline, response size cap and HTTP client
// that refuses private addresses for project settings.
//
// The package does no SQL and knows nothing of HTTP routing: the
// "weblate" service reads through the small SameSourceFinder interface
// (index/sqlstore implements it), the translation memory plugs in as a
// Memory (Options.Memory), and api and web turn results into the wire
// shapes. It must not import api, web, edge, sync, vcs, formats or
// index/sqlstore.
//
// Start reading at Engine and Service in machinery.go, then Broker in
// broker.go; the engines are one file each.
package machinery
