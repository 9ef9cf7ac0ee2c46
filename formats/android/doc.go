// Package android reads and writes Android string resources
// (res/values*/strings.xml), the reference's file_format "aresource": a
// monolingual format whose template is the default values/strings.xml.
//
// What is read (Codec.Decode): every <string> directly under <resources>
// is a unit whose Context is its name and whose Target is the text a
// translator sees, read as translate-toolkit's aresource module reads it
// (its current get_xml_text_value and process_string): Android's quoting
// ("…" keeps white space, unquoted white space collapses to one space and
// is trimmed at the ends) and escapes (\' \" \@ \? \\ \n \t \uXXXX; any
// other escaped character is dropped, as Android drops it) are resolved;
// XML entities are resolved in a value of text only; a value holding
// elements (<b>, <a href>, <xliff:g>) keeps its markup, and its entities,
// as written, with the Android reading applied to the text between tags.
// Every <plurals> is a plural unit whose Target has one form per category
// of File.Target.Plurals, "" where the file has no such item. A
// translatable="false" string is a unit with the flag "read-only", as the
// reference reads it (TTKitUnit.is_readonly). The comments right before
// an element are its Note. <string-array> and the other resource types
// are not units, as in translate-toolkit; nothing in them is touched.
//
// What is written (Codec.Apply): only the content of an edited <string>
// or the items of an edited <plurals> change, and not at all when the
// edit equals what the file reads as; attributes (translatable,
// formatted, tools:ignore), comments, order and layout stay. Text is
// escaped as translate-toolkit escapes it: quotes, backslashes, newlines
// and tabs escaped, a leading @ or ? escaped, text with leading, trailing
// or doubled spaces quoted; markup in the text is written as markup when
// it is well-formed XML, and as &lt; entities otherwise or when the value
// had them. A missing key is added after the last resource with its
// indentation; a new file is the reference's new_translation skeleton.
// Plural items follow translate-toolkit: one per category with a
// non-empty form, in CLDR order, plus other when a language has many but
// no other. Codec.Remove deletes elements with their comments and lines;
// Codec.Emptied makes a new translation with no resources.
//
// Where this differs from the reference, on purpose:
//   - Only ASCII white space is collapsed. translate-toolkit collapses
//     every Unicode space (Python's \s), which turns the no-break spaces
//     of French typography into plain spaces; Android keeps them.
//   - A surrogate pair written as two \u escapes is one character, where
//     Python makes two lone surrogates.
//   - Emptied writes no untranslated strings, rather than the template
//     with empty values that the reference's Remove blank strings add-on
//     (auto-installed on aresource components) then deletes.
//   - translate-toolkit re-serializes the whole document through lxml;
//     Tolk changes only the edited values' bytes.
//
// A DOCTYPE may declare plain internal entities (<!ENTITY appName
// "Linphone">), which values keep as written (&appName;); any other
// declaration (external or parameter entities, entities referring to
// others, markup declarations) is a *formats.ParseError wrapping
// formats.ErrDoctype (formats.DoctypeEntities), so no file can make the
// decoder read files or expand entities.
//
// Language codes in paths: CodeFromQualifier maps a values-* qualifier to
// a language code and Qualifier back, as the reference's android
// language_code_style does.
//
// The package imports nothing of Tolk's but formats, and does no logging.
// Start reading at Codec.Decode (android.go), then readValue (value.go),
// escape.go and Codec.Apply (write.go).
package android
