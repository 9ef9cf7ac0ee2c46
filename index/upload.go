package index

import (
	"fmt"
	"slices"
	"strconv"
	"unicode/utf8"
)

// UploadMethod is what an upload does with the file's units, with the
// reference's names (../shared/reference/weblate-writes.md, §3.1).
type UploadMethod string

const (
	// UploadTranslate merges the file's translations as translated.
	UploadTranslate UploadMethod = "translate"
	// UploadFuzzy merges them as needing editing.
	UploadFuzzy UploadMethod = "fuzzy"
	// UploadApprove merges them as approved.
	UploadApprove UploadMethod = "approve"
	// UploadSuggest makes each differing target a suggestion.
	UploadSuggest UploadMethod = "suggest"
	// UploadAdd adds the file's strings that the translation lacks.
	UploadAdd UploadMethod = "add"
	// UploadReplace replaces the file as a whole (a commit).
	UploadReplace UploadMethod = "replace"
	// UploadSource updates the source strings of a bilingual component.
	UploadSource UploadMethod = "source"
)

// UploadMethods are the methods the API accepts, in the reference's order.
var UploadMethods = []UploadMethod{UploadTranslate, UploadApprove, UploadSuggest, UploadFuzzy,
	UploadReplace, UploadSource, UploadAdd}

// Merges reports whether the method merges translations unit by unit.
func (m UploadMethod) Merges() bool {
	return m == UploadTranslate || m == UploadFuzzy || m == UploadApprove
}

// Conflicts says which translated units an upload may overwrite.
type Conflicts string

const (
	// ConflictsIgnore leaves translated units alone (the reference also
	// accepts "ignore" for it).
	ConflictsIgnore Conflicts = ""
	// ConflictsReplaceTranslated overwrites translated units, not approved ones.
	ConflictsReplaceTranslated Conflicts = "replace-translated"
	// ConflictsReplaceApproved overwrites approved units too.
	ConflictsReplaceApproved Conflicts = "replace-approved"
)

// FuzzyUploads says what an upload does with units the file marks as
// needing editing.
type FuzzyUploads string

const (
	// FuzzySkip leaves them out.
	FuzzySkip FuzzyUploads = ""
	// FuzzyProcess imports them as needing editing.
	FuzzyProcess FuzzyUploads = "process"
	// FuzzyApprove imports them as translated (approved with UploadApprove).
	FuzzyApprove FuzzyUploads = "approve"
)

// Upload is a parsed translation file to apply to one translation.
type Upload struct {
	Method    UploadMethod
	Conflicts Conflicts
	Fuzzy     FuzzyUploads
	// Units are every unit of the file, in file order. For a monolingual
	// component Source is empty except in the template, where it equals
	// Target; units are matched by id_hash either way.
	Units []ImportUnit
	// UserID is who uploads. The edits are credited to the user with
	// AuthorEmail when it is set (the store finds that user or creates an
	// inactive one named AuthorName), else to the uploader.
	UserID                  int64
	AuthorName, AuthorEmail string
}

// UploadResult counts what an upload did, as the reference reports it:
// Total is every unit of the file; of the units the merge considered,
// NotFound matched no unit of the translation, Skipped were left alone
// and Accepted were written.
type UploadResult struct {
	NotFound, Skipped, Accepted, Total int
}

// Considers reports whether the merge looks at an uploaded unit at all:
// translated ones, and ones needing editing unless they are skipped
// (FuzzySkip). fuzzy says the file marks the unit as needing editing.
// Untranslated units only count towards Total.
func (up *Upload) Considers(in *ImportUnit) (ok, fuzzy bool) {
	if !slices.ContainsFunc(in.Target, func(s string) bool { return s != "" }) {
		return false, false
	}
	if in.State == StateFuzzy {
		return up.Fuzzy != FuzzySkip, true
	}
	return true, false
}

// MergeEdit returns what a considered uploaded unit makes of the stored
// unit u, or false when the merge skips u, as the reference's
// merge_translations decides: a translated unit is kept unless conflicts
// allow replacing it, an approved one unless they allow replacing approved
// ones, a read-only one always, and so is a unit that already holds the
// result. Tolk grants permissions per project, so the reference's
// per-unit edit permission reduces to these rules.
func (up *Upload) MergeEdit(u *Unit, in *ImportUnit, fuzzy bool) (UnitEdit, bool) {
	state := StateTranslated
	switch {
	case up.Method == UploadFuzzy || (fuzzy && up.Fuzzy == FuzzyProcess):
		state = StateFuzzy
	case up.Method == UploadApprove:
		state = StateApproved
	}
	switch {
	case u.State == StateReadOnly,
		u.State.Translated() && up.Conflicts == ConflictsIgnore,
		u.State == StateApproved && up.Conflicts != ConflictsReplaceApproved,
		u.State == state && slices.Equal(u.Target, in.Target):
		return UnitEdit{}, false
	}
	return UnitEdit{Target: slices.Clone(in.Target), State: state}, true
}

// PluralForms is how many target forms unit u takes in a language with
// the given number of plural forms: one for a string without plurals.
func PluralForms(u *Unit, number int) int {
	if len(u.Source) <= 1 {
		return 1
	}
	return number
}

// CheckUploadText applies CheckText to a text an upload is about to
// store from the file's unit in: forms against source, nil for a source
// string (a template's, or one an add upload adds). A text at fault
// refuses the whole file, as a plural mismatch does: a 400 on "file"
// naming the string as the file names it, and nothing stored (the
// upload is one transaction). The reference would store the text, or
// fail on its database with a message it hides; skipping the string
// instead would hide the refusal in a 200's counts.
func CheckUploadText(in *ImportUnit, forms, source []string) error {
	_, p, ok := CheckText(forms, source)
	if ok {
		return nil
	}
	return &FieldError{Fields: map[string]FieldProblem{"file": {Code: p.Code,
		Detail: fmt.Sprintf("String %s: %s", uploadName(in), p.Detail)}}}
}

// uploadName names an uploaded string in a message: its key, or its
// source text, shortened and quoted so that any bytes stay readable.
func uploadName(in *ImportUnit) string {
	name := in.Context
	if name == "" && len(in.Source) > 0 {
		name = in.Source[0]
	}
	const most = 60
	if len(name) > most {
		cut := most
		for cut > 0 && !utf8.RuneStart(name[cut]) {
			cut--
		}
		name = name[:cut] + "…"
	}
	return strconv.Quote(name)
}
