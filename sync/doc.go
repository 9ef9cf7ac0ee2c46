// Package sync is Tolk's porcelain: it expands a component's filemask over
// the files of its repository (vcs), parses them (formats) and reconciles
// the index with what they hold. It knows no format by name: every file
// is read and written through the component's formats.Codec, from
// formats/codecs.Lookup (files.go: codecOf, fileOf). Importers alias it tolksync, since it
// shadows the standard library's name.
//
// Data flows one way on import: remote → vcs → sync → formats → index.
// sync declares the few index methods it needs (Store); it never touches
// SQL and never serves HTTP itself (GitExport hands the API vcs's
// read-only Git handler). Start reading at service.go, then import.go;
// repository.go holds the reads the API's repository and file endpoints
// make of a checkout; files.go parses uploads and renders a translation's
// file with its pending edits (what a commit will write); check.go what
// the API's component writes ask (checking a repository before a
// component is saved, moving and removing checkouts); tasks.go the
// background imports they start; message.go gives commit message
// templates their variables and renders them with msgtemplate, the
// Django-syntax engine (a leaf: standard library only); scheduler.go runs the scheduled commits and pulls (StartScheduler);
// pull.go pulls without merging and resets; operations.go the
// repository operations cleanup, file-sync and file-scan; shared.go how
// processes sharing one database take turns on a component and keep
// their checkouts at the head the index records.
package sync
