// Package tolk holds the files the tolk binary ships with; the service
// itself starts in cmd/tolk.
package tolk

import "embed"

// DemoFiles are the translation files of the demo project: app/ holds a
// JSON component, glossary/ a TBX glossary, notifications/ an i18next v4
// component with plurals (Czech has three forms).
//
//go:embed testdata/demo
var DemoFiles embed.FS
