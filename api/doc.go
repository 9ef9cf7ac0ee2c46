// Package api serves Tolk's Web API, compatible with Weblate's REST API
// (../shared/spec/api-spec.md is the contract). It turns the index's
// domain types into Weblate's wire format: field names, nulls, absolute
// URLs, pagination and error envelopes.
//
// The package imports index for the vocabulary and gin for routing; it
// never imports an index engine, sync, vcs or formats. The store it reads
// from is the Store interface, which *sqlite.DB satisfies. gin stays
// behind Server: callers use New and Handler only.
//
// Start reading at server.go (the route table, composed from one list
// per resource file), then errors.go, urls.go and pagination.go, which
// hold the three cross-cutting rules in one place each. Who may do what
// is in auth.go (tokens, the principal, permissions), visibility.go
// (private projects: 404 by path, left out of lists) and ratelimit.go.
// Every resource
// has one file holding its routes, the store methods it reads, its
// handlers, wire struct and converter: root.go (/api/), projects.go,
// components.go, translations.go, units.go, changes.go, languages.go,
// users.go, statistics.go (every statistics object) and addons.go (add-ons,
// their configuration and their deliveries, which package webhook sends).
// web.go serves the human-facing pages the API's web_url fields link to,
// from the templates, stylesheet and script embedded from webui/;
// web_editor.go the editor and its save, web_files.go the translation
// page's upload, web_auth.go signing in (sessions whose principal is a
// token's, CSRF tokens, the failed-login limit). Writes live in
// <resource>_write.go beside them; payload.go reads their bodies the way
// the reference's serializers do. upload.go takes file uploads; the
// parsing and the rendering of downloads with pending edits are asked of
// TranslationFiles, and the checks and background imports of component
// writes (reported by tasks.go) of Components, both satisfied by
// *sync.Service. hooks.go takes the Git hosts' push notifications under
// /hooks/<service>/, outside /api/: it matches components, checks the
// hosts' signatures against the hook secrets, and asks HookUpdater
// (*sync.Service) to pull and re-import. health.go serves the probes
// /healthz and /readyz, also outside /api/; readiness is the start-up
// import Startup (*sync.Service) reports.
package api
