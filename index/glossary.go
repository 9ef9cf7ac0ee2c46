package index

// GlossaryTerm is a term of a project's glossaries in one language, as
// machine translation services are given it (the reference's
// get_glossary_units and render_glossary_units_tsv): a translated or
// read-only unit of a glossary component, with the flags that say how
// it is used.
type GlossaryTerm struct {
	// Source is the term's first source form; Target its translation's
	// first form.
	Source, Target string
	// Forbidden (flag forbidden): a translation the glossary forbids,
	// never given to a service as one to use.
	Forbidden bool
	// ReadOnly (flag read-only or state read-only): an untranslatable
	// term, kept as its source.
	ReadOnly bool
}
