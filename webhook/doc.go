// Package webhook delivers the events of webhook add-ons: the outbox rows
// (index.Delivery) that the index writes in the same transaction as each
// change a hook wants, sent as Standard Webhooks requests
// (https://www.standardwebhooks.com/) with the reference's payload
// (../shared/reference/weblate-writes.md §8), at least once.
//
// Start reading at Sender: Run is the background job tolk serve starts.
// payload.go builds and signs a request, dial.go keeps requests off
// loopback, link-local and private addresses.
//
// It imports index and the standard library only: never api, sync, vcs
// or formats. cmd/tolk wires it to the SQLite index.
package webhook
