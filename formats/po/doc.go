// Package po reads and writes gettext PO files: the reference's
// bilingual "po" format (msgid is the source string, Codec{}) and its
// monolingual "po-mono" (msgid is a key, the template gives the source,
// Codec{Monolingual: true}). Codec implements formats.Codec and
// formats.Templater.
//
// # What is read
//
// A line parser (parse.go) keeps the byte offsets of every entry, its
// comment lines and its msgstr lines. Each live entry is one unit (see
// Codec.Decode for the field mapping): msgctxt and msgid make its key;
// msgid_plural makes Source two forms; msgstr[N] give as many Target
// forms as the header's Plural-Forms nplurals (split over lines or not,
// with or without its final ";", any rule), padded with "" when the
// entry lacks some. "#, fuzzy" is Unit.Fuzzy and not a flag; the other
// "#," flags (c-format, rust-format, no-c-format…) are Flags, which the
// reference adds to the unit's check flags. Note is the translator
// comments then the extracted "#." comments, one per line: Translate
// Toolkit's getnotes, which is what the reference shows as the string's
// comment (it has no separate explanation for PO, so Explanation stays
// ""). "#:" references are Location, joined with ", ". Strings are C
// strings: continuation lines are concatenated and \n \t \r \" \\ \a \b
// \f \v \? \' octal and \x escapes decoded. A UTF-8 BOM, CRLF line ends
// and a missing final newline are accepted and kept.
//
// Not units: the header (the first msgid "" without msgctxt or
// msgid_plural), obsolete "#~" entries, comments that precede no entry,
// and repeated entries. msgfmt rejects a file that defines one msgctxt
// and msgid twice; the decoder keeps the first as the unit, ignores the
// later ones, and the writers leave their bytes alone (Remove deletes
// them with the first). The same msgid under another msgctxt is another
// unit.
//
// Malformed input (an unterminated string, an unknown escape, msgstr
// without msgid, msgstr[N] out of order or without msgid_plural, a
// comment between msgid and msgstr, text that is no PO, invalid UTF-8)
// is a *formats.ParseError with a 1-based line and a column counted in
// characters. The declared charset is not consulted: files are UTF-8,
// as the reference writes them.
//
// # What is written
//
// Apply rewrites only the msgstr lines of entries whose value changes,
// and adds or removes only the "fuzzy" flag (dropping "#|" previous
// msgid lines when an entry stops being fuzzy, as msgmerge and the
// reference do). A rewritten value takes the file's style: when no
// msgid or msgstr line of the file is wider than 79 columns, it is
// wrapped as gettext wraps (msgstr "" and continuation lines broken
// after each \n and after spaces, at 79 display columns, wide and
// zero-width characters counted as gettext counts them; the corpus's own
// wrapping is reproduced, except where gettext breaks inside a long word
// such as a URL, which we never do); otherwise on one line. Entries the
// file lacks are appended after the last live entry, before the
// obsolete ones, with msgctxt, msgid and msgid_plural from the edit.
//
// An Apply that changes the file also updates the header: PO-Revision-Date
// (File.Revised, "2006-01-02 15:04-0700"), Last-Translator
// (File.Translator), Language (File.Target.Code), Content-Type
// "text/plain; charset=UTF-8" only when absent, Plural-Forms only when
// the header has none it can use (not the POT's "nplurals=INTEGER"), and
// X-Generator "Tolk" where the reference writes "Weblate" and its version.
// Changed fields' lines are rewritten in place; a missing field goes
// where gettext's field order puts it. A header whose fields do not sit
// on lines of their own is rewritten one field per line. An Apply that
// changes nothing returns the input unchanged, header included. Nil
// data is a new file: a header with Project-Id-Version, the fields
// above, MIME-Version, Content-Type (UTF-8) and
// Content-Transfer-Encoding (8bit); Plural-Forms defaults to
// "nplurals=2; plural=n != 1;" when File.Target has no rule.
//
// Edit.Approved is ignored: PO has no approved state. po-mono adds an
// entry for an untranslated edit too, since a PO file lists its keys
// whether translated or not.
//
// Remove deletes an entry's whole block, its comments and the blank
// line after it, and leaves the header alone. Emptied makes a new
// translation from a template (a POT for po, the source-language file
// for po-mono): msgstr emptied with the target's number of plural
// forms, fuzzy flags and "#|" lines dropped, the header's own fuzzy flag
// dropped and its fields set as msginit and the reference set them
// (Last-Translator "Automatically generated" when File.Translator is
// empty).
//
// # Where we differ from the reference
//
// The reference rewrites the whole file through Translate Toolkit on
// every save, re-wrapping every entry; we change only what an edit
// changes. Plural forms stay in the file's order (the reference takes
// each PO file's plural rule from its header, as we do, so there is no
// reordering to CLDR). A new monolingual plural entry gets msgid_plural
// equal to its key. For po-mono without new_base the reference starts a
// translation from a bare header; Emptied keeps the template's entries,
// emptied, as the reference does when the template is the new base.
//
// The package imports nothing of Tolk's but formats, and does no
// logging. Start reading at Codec.Decode (po.go), then parse (parse.go),
// Codec.Apply (apply.go) and headerPatches (header.go).
package po
