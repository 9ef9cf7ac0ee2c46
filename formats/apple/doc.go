// Package apple reads and writes Apple's localization files: .strings
// (file_format "strings", UTF-16, and "strings-utf8") and .stringsdict
// ("stringsdict"), both used monolingually with a template (Base.lproj or
// en.lproj), and names the languages of .lproj folders (CodeFromLproj,
// Lproj). One package holds both because they come as a pair in every
// Xcode project, share the .lproj naming and the splice writer, and a
// component of each is configured side by side; each format still has
// its own Codec value: Strings, StringsUTF8, Stringsdict.
//
// # .strings
//
// What is read: "key" = "value"; pairs, keys and values quoted or bare
// (old-style property-list tokens), spread over lines, with raw line
// breaks inside quotes, and "key"; (value = key). Escapes \" \\ \n \t \r
// \a \b \f \v, \UXXXX and \uXXXX (surrogate pairs joined) and octal \NNN
// are decoded. /* */ and // comments between two pairs, and one on the
// same line after a pair's ';', are the pair's Note, markers stripped and
// joined by "\n"; Xcode's "No comment provided by engineer." is no note,
// as in the reference. A blank line ends a note: comments above it head
// the file or a section (Xcode's "Localizable.strings" banner) and are
// neither the next pair's note nor removed with it. A repeated key: the last pair is the unit, as
// Foundation loads it. The file may be UTF-8 (with or without BOM) or
// UTF-16 (either byte order, with or without BOM); Decode finds out which
// whatever the codec, and every write goes back in the file's encoding.
//
// What is written: Apply splices into the decoded text and re-encodes it,
// so in every encoding only the edited value's bytes change (inside its
// quotes; a bare value becomes quoted). Values are escaped as the
// reference escapes them (\\ \" \n \t \r). A value equal to the current
// one is not rewritten, so raw line breaks survive untouched values. New
// keys go after the last pair as "key" = "value"; with the spacing around
// '=' of the last pair and the gap (one line break or a blank line) the
// file leaves between its last two pairs. Nil data is a new file: the
// reference's "\n", in UTF-16 LE with BOM for Strings, UTF-8 for
// StringsUTF8. Remove takes out a pair with its comments as whole lines,
// and one blank line around it when pairs are separated by blank lines.
// Emptied (Templater) writes the template with every value "", as the
// reference does when "template for new translations" is the template
// (translate-toolkit writes "key" = "";). Its documented typical setup
// leaves that setting empty and writes "\n" instead, which Apply(nil)
// gives; note that iOS shows a present empty value as "", where a missing
// key falls back to the development language.
//
// # .stringsdict
//
// Units follow translate-toolkit's StringsDictFile, which the reference
// uses: each top-level key gives a unit with Context "key" whose Target is
// its NSStringLocalizedFormatKey (the format string is translatable: word
// order around %#@var@ differs between languages), then one plural unit
// per variable with Context "key:variable" and one Target form per
// category of File.Target.Plurals. On the corpus that is 923 format units
// + 953 variable units = 1,876, the count SOURCE.md gives for
// translate-toolkit. Categories the language does not use (the English
// template's few/many) are neither read nor touched. The reference
// gives every language an extra "zero" form in front for this format
// (weblate's StringsdictFormat.get_plural); so does Tolk: the registry
// row says ZeroPlural, and sync and the index give the translations of a
// stringsdict component their language's rule with a zero form in front
// (sync.FormatPlural, index.Plural.WithZero), which File.Target.Plurals
// then lists. WithZero builds that list for callers of the codec alone.
//
// The XML is walked with encoding/xml, whose InputOffset gives each
// token's byte range; nothing is re-serialized. Apply replaces only the
// text of edited <string> elements (XML-escaped: & < >); a category the
// variable lacks is inserted in CLDR order before the next category's
// line, or after the last child, with the indentation found there; an
// empty form removes its <key>/<string> lines, as the reference writes no
// empty forms. A missing variable or key is added after the last one with
// the file's indentation step (tabs in Base, two spaces in the
// translations); a new variable's NSStringFormatValueTypeKey is the last
// one the file declares ("d" if none), and a key added without a format
// string edit gets "%#@variable@". Nil data is the reference's new file.
// An empty <dict/> cannot take children, so when a file has one, Apply
// with edits writes every <dict/> as <dict></dict>: the one change beyond
// the edited values (Xcode and the reference never write <dict/>).
// Emptied removes every category of every variable and keeps the format
// strings and value types.
//
// # Where we differ from the reference, and why
//
//   - translate-toolkit joins the lines of a value with raw line breaks
//     ("a\n b" reads as "a b"); Foundation keeps the break, so do we (225
//     corpus values have one).
//   - The reference re-serializes whole files (plistlib for stringsdict,
//     with its own indentation); we keep every byte but the edited ones.
//   - Non-plural variables (NSStringFormatSpecTypeKey other than
//     NSStringPluralRuleType) are a ParseError, as in the reference;
//     values other than <string> inside a variable are skipped, not
//     errors.
//   - .strings is declared monolingual: the reference also allows it
//     bilingual (key as source), which we do not.
//
// Malformed input is a *formats.ParseError with a line and a column
// (counted in characters). The package imports nothing of Tolk's but
// formats. Start reading at strings_codec.go and stringsdict_codec.go.
package apple
