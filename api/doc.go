// Package api serves Tolk's Web API, compatible with Weblate's REST API
// (the shared spec is the contract). It turns the index's domain types
// into Weblate's wire format: field names, nulls, absolute URLs,
// pagination and error envelopes.
//
// The package imports index for the vocabulary, edge for the shared HTTP
// edge (principal, visibility, URLs, errors, the router) and gin for
// handlers; it never imports an index engine, sync, vcs, formats or the
// pages (package web). The store it reads from is the Store interface,
// which *sqlstore.DB satisfies.
//
// Start reading at server.go (Options, New and routes, which calls one
// routes function per resource file), then pagination.go and payload.go.
// Every resource has one file holding its routes, the store methods it
// reads, its handlers, wire struct and converter: root.go (/api/),
// projects.go, components.go, translations.go, units.go, changes.go,
// languages.go, users.go, statistics.go (every statistics object),
// repository.go (repository status, files, the Git export), tasks.go
// and addons.go (add-ons, their configuration and their deliveries,
// which package webhook sends). Writes live in <resource>_write.go
// beside them; payload.go reads their bodies the way the reference's
// serializers do. upload.go answers file uploads (the form and its
// checks are the edge's, shared with the translation page); the parsing
// and the rendering of downloads with pending edits are asked of
// TranslationFiles, and the checks and background imports of component
// writes of Components, both satisfied by *sync.Service. hooks.go takes
// the Git hosts' push notifications under /hooks/<service>/, outside
// /api/: it matches components, checks the hosts' signatures against the
// hook secrets, and asks HookUpdater (*sync.Service) to pull and
// re-import.
package api
