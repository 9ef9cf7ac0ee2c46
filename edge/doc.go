// Package edge is the HTTP edge every request to Tolk passes, shared by
// the audiences that serve it: package api (Weblate's REST API, for
// tools) and package web (the pages and the editor, for people). Neither
// of those imports the other; both import this one, and cmd/tolk mounts
// both on one Server.
//
// What is here, one file each:
//   - server.go: Options, the Server and its gin engine with the
//     middleware chain every request runs through, in order:
//     requestScope (request ID, headers, the request log line, metrics),
//     recovery (a panic becomes a JSON 500), checkHost (the allowed Host
//     headers) and authenticate (a token, or a session cookie with its
//     CSRF token, then the rate limits).
//   - router.go: the Router the audiences register their routes on
//     (Resource for an API resource with its Allow and OPTIONS, Page for
//     a page, Handle for anything else), the trailing-slash redirect, 404
//     and 405.
//   - auth.go and session.go: the request's principal (NewContext,
//     FromContext, Principal), tokens, sessions and CSRF, Authorize.
//   - visibility.go and lookup.go: private projects (404 by path, left
//     out of lists) and the objects a request path names.
//   - errors.go and render.go: the one place that maps an error to a
//     status and the reference's JSON envelope, and the JSON writer.
//   - urls.go: every absolute URL a body or a page holds.
//   - hosts.go, ratelimit.go (one count per client for the API, the
//     pages and the Git export), middleware.go, health.go (/healthz,
//     /readyz, outside the chain).
//   - upload.go, upload_perms.go, multipart.go: reading and checking an
//     uploaded translation file, for the API's file endpoint and the
//     translation page's form alike.
package edge
