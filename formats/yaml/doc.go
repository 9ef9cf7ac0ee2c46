// Package yaml reads and writes YAML translation files: Rails i18n YAML,
// the reference's "ruby-yaml" (the Ruby codec), and plain YAML, "yaml"
// (the Plain codec). Importers alias it (tolkyaml) when they also use a
// YAML library.
//
// What is read. The file is parsed with go.yaml.in/yaml/v3 into nodes,
// which carry each scalar's line and column. Every non-null scalar is one
// formats.Unit whose Context is the path of mapping keys above it joined
// by "->", the separator of translate-toolkit's YAMLUnitId (and so of the
// reference's contexts; "admins->stats->week", sequence items
// "list->[0]"). A Ruby file's single top-level key names its language and
// is no part of the contexts. In a Ruby file a mapping whose keys are all
// CLDR plural categories (zero, one, two, few, many, other) is one plural
// unit, its forms in the order of File.Target.Plurals, "" for a category
// it lacks; categories the language does not use (Rails' "zero" in
// English) are not read, as in translate-toolkit, and stay in the file.
// Note is the comment block directly above a key; Line the key's line.
// Numbers and booleans are units with their text as written ("5",
// "true"; translate-toolkit gives Python's "True"). Merge keys ("<<")
// are skipped. Characters YAML forbids (NUL, DEL, C0 and C1 controls)
// are a *formats.ParseError, since yaml.v3 checks them unevenly. A unit
// reached through an alias carries the flag "read-only": its text is its
// anchor's. Counts match SOURCE.md
// exactly (925 units, 30 plural, in diaspora's en.yml; 12,271 in all).
//
// What is written. Apply finds each edited scalar's bytes from its node's
// position and style (quotes, a block scalar's indicator and indented
// lines, a plain scalar up to a comment), checks that those bytes read
// back as the node's value, and replaces only them: in the scalar's own
// style when the new value reads back the same in it (plain, '…', "…",
// literal "|" and "|-"), double-quoted otherwise. Plain values are also
// kept away from what YAML 1.1, which Ruby's Psych reads, takes for
// booleans and numbers ("yes", "no", "on", "1.0"). A unit the file lacks
// is added after the last key of the deepest existing mapping on its
// path, at that mapping's indentation with the file's indentation step,
// double-quoted when most of the file's values are, else plain where
// safe; a plural category a hash lacks is added the same way. Aliases
// are never written through: an edit of an aliased unit is ErrAlias
// (edit the anchor, which every alias then reads). Remove deletes a
// key's lines, its subtree's and the comment lines directly above it.
// A new file (nil data) is "{}\n", the reference's new_translation;
// with edits, a Ruby file gets the root key File.PathCode (the language
// as the file's name spells it), or File.Target.Code without one. Emptied
// gives the template with every value emptied (an empty quoted string)
// and, for Ruby, the root key renamed the same way.
//
// Where we differ from the reference (translate-toolkit dumps the whole
// document again with ruamel.yaml): we keep every byte we do not edit,
// so quoting, comments, key order and line width stay as they were; a
// plural form the hash lacks reads as "" in its place rather than
// shifting the later forms; repeated keys, which ruamel rejects, are read
// with the last winning; the language key is written as File.PathCode,
// the file name's spelling, when the caller gives it (diaspora spells its
// codes "pt-BR", the index "pt_BR"; sync passes the filemask's `*`
// segment), else as File.Target.Code. Apply and Emptied read their
// result back and compare every unit with what the edits say before
// returning it, so a file is never written that says something else.
// Cases the writer cannot do in place (a key inside a flow mapping or a
// sequence, a block scalar with an explicit indentation indicator that
// does not read back) are errors, never guesses.
//
// Start reading at Codec.Decode (yaml.go), then the spans (span.go),
// Codec.Apply (encode.go) and the scalar styles (render.go).
package yaml
