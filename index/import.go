package index

// TranslationImport is one translation file's content as parsed, handed to
// the index to reconcile with what it holds.
type TranslationImport struct {
	ComponentID  int64
	LanguageCode string
	Filename     string
	// Revision identifies the content (see Translation.Revision).
	Revision   string
	IsSource   bool
	IsTemplate bool
	// Monolingual decides how id_hash is computed (context alone).
	Monolingual bool
	// SourceTranslationID links units to their source units by id_hash;
	// 0 when this is the source translation itself.
	SourceTranslationID int64
	// LoadError, when set, marks the translation as failing to parse: its
	// units are left as they were and the error is recorded once.
	LoadError string
	Units     []ImportUnit
	// Base, when not nil, holds each unit's text (its target; its source
	// in a source translation) by id_hash as the file held it at the last
	// sync with upstream: the import then tells a string upstream changed
	// from one it merely still holds in its old form. Nil means unknown.
	Base map[int64]string
	// TakeUpstream settles a conflict (a string with a pending edit that
	// upstream changed as well) for upstream's text; otherwise the edit
	// wins. Either way the losing text stays in the change history.
	TakeUpstream bool
	// NewUnits is what the component's flag add-ons do to the units
	// this import creates.
	NewUnits NewUnitFlags
}

// ImportUnit is one unit as the file holds it.
type ImportUnit struct {
	Context     string
	Source      []string
	Target      []string
	Note        string
	Explanation string
	Flags       string
	Location    string
	State       State
}

// ImportResult says what an import changed.
type ImportResult struct {
	TranslationID int64
	Created       bool // the translation is new
	Added         int
	Updated       int
	Removed       int
	Duplicates    int // units dropped because their id_hash repeated
	// Changed is false when the index already held exactly this content.
	Changed bool
}
