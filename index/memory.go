package index

// Translation memory (../shared/reference/weblate-workspace.md §5).
//
// Tolk's memory is mostly a view: every translated unit is an entry, read
// from units when a lookup or list asks, so nothing is copied or kept up
// to date on an edit or an import. Only imported entries (TMX, JSON) are
// stored apart. The ids of the two kinds are interleaved so that one
// number names either: MemoryUnitID and MemoryImportedID.

// MemoryEntry is one entry of the translation memory.
type MemoryEntry struct {
	// ID is the entry's id in the API: even for a unit (2×unit id), odd
	// for an imported entry (2×row id+1).
	ID             int64
	SourceLanguage string
	TargetLanguage string
	Source         string // plural forms joined as Unit.Source
	Target         string
	Context        string
	// Origin is where the entry comes from: "project/component" for a
	// unit, what the import named (file name or the TMX's o-tmf) for an
	// imported entry.
	Origin string
	// ProjectID is the project the entry belongs to; 0 for a site-wide
	// imported entry.
	ProjectID   int64
	ProjectSlug string
	Status      MemoryStatus
	// Imported is true for an entry stored from a file (from_file in the
	// reference's API); false for a unit's current translation.
	Imported bool
	// Shared is true when the entry is in the shared pool: a unit of a
	// project that contributes to it, or a site-wide imported entry.
	Shared bool
	// Personal is true, in a lookup's answer, for an entry found only
	// through the asking user's personal scope (MemoryQuery.UserID): a
	// string of another project whose current translation the user made.
	Personal bool
}

// MemoryStatus is an entry's status with the reference's values.
type MemoryStatus int

const (
	MemoryPending MemoryStatus = 0
	MemoryActive  MemoryStatus = 1
)

// MemoryStatusOf is the reference's status of a unit's translation
// (§5.2): active when review is off and the string is translated, or
// review is on and it is approved; pending otherwise.
func MemoryStatusOf(s State, review bool) MemoryStatus {
	if s == StateReadOnly || (review && s == StateApproved) || (!review && s.Translated()) {
		return MemoryActive
	}
	return MemoryPending
}

// MemoryUnitID is the memory id of a unit's entry.
func MemoryUnitID(unitID int64) int64 { return unitID * 2 }

// MemoryImportedID is the memory id of an imported entry's row.
func MemoryImportedID(rowID int64) int64 { return rowID*2 + 1 }

// SplitMemoryID tells a memory id's kind and row: a unit id (imported
// false) or an imported entry's row id.
func SplitMemoryID(id int64) (row int64, imported bool) { return id / 2, id%2 == 1 }

// MemoryFilter narrows memory lists and exports; empty fields narrow
// nothing.
type MemoryFilter struct {
	Source         string // case-insensitive substring of the source
	SourceLanguage string
	TargetLanguage string
	ProjectID      int64
	// Hidden are projects whose entries are left out: those the reader
	// may not see.
	Hidden []int64
}

// MemoryQuery is one lookup: the text to match and where it is asked
// from.
type MemoryQuery struct {
	// ProjectID is the project asking: its own strings, its imported
	// entries and (when it uses the pool) the shared pool answer. 0 asks
	// the shared pool and site-wide imports only.
	ProjectID      int64
	SourceLanguage string
	TargetLanguage string
	Text           string
	Context        string
	// NoContext says the query has no unit, so no context to compare:
	// entries are not penalized for theirs (the API's lookup).
	NoContext bool
	// Threshold is the lowest quality returned, 1–100; 0 means
	// MemoryDefaultThreshold.
	Threshold int
	// Exclude is a unit left out of the answer: the unit being
	// translated, whose own translation is no suggestion.
	Exclude int64
	// UserID, when not 0, adds the user's personal scope (the
	// reference's personal memory, §5.1): strings of other projects
	// whose current translation is one the user saved (MemoryMadeBy),
	// even where neither project shares its memory. Hidden are the
	// projects the user may not read: their strings stay out.
	UserID int64
	Hidden []int64
}

// MemoryMadeBy are the actions by which a user makes a translation their
// own for the personal scope: a save (new, changed, marked for editing,
// approved), an accepted suggestion, a revert, an upload and a
// propagation of their save. Automatic translation (6) is not the
// user's work, as the reference skips bots.
var MemoryMadeBy = []Action{ActionNew, ActionChange, ActionMarkedEdit, ActionApprove, ActionSuggestionAccept,
	ActionRevert, ActionUpload, ActionPropagated}

// MemoryOriginDisplay is how the reference names an entry's origin in
// the editor's suggestions (Memory.get_origin_display): "Project: …" for
// an entry of the asking project (or imported into it), "Personal: …",
// "Shared: …" for the shared pool, "File: …" for a site-wide import.
func MemoryOriginDisplay(e MemoryEntry, askingProject int64) string {
	switch {
	case e.Personal:
		return "Personal: " + e.Origin
	case e.ProjectID != 0 && e.ProjectID == askingProject:
		return "Project: " + e.Origin
	case e.Imported && e.ProjectID == 0:
		return "File: " + e.Origin
	case e.Shared:
		return "Shared: " + e.Origin
	}
	return "Project: " + e.Origin
}

// Lookup bounds of the reference (§5.3).
const (
	MemoryDefaultThreshold = 80 // MACHINERY_DEFAULT_THRESHOLD
	MemoryLookupLimit      = 50 // MEMORY_LOOKUP_LIMIT
)

// MemoryMatch is one result of a lookup.
type MemoryMatch struct {
	MemoryEntry
	// Quality is the reference's 0–100: the similarity of the sources,
	// ×0.7 for a pending entry, ×0.95 for a different context.
	Quality int
	Exact   bool // the sources are equal
}

// MemoryImportEntry is one entry read from an imported file.
type MemoryImportEntry struct {
	SourceLanguage, TargetLanguage string
	Source, Target, Context        string
	Origin                         string
}
