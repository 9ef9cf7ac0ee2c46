package index

import "time"

// Translation is one language of a component, backed by one file.
type Translation struct {
	ID           int64
	ComponentID  int64
	LanguageCode string
	Filename     string
	// Revision identifies the file content the index reflects: the blob
	// hash of the file and of the template, joined by a comma.
	Revision   string
	IsSource   bool
	IsTemplate bool
	// LoadError is the last parse failure of the file, or "".
	LoadError string
	Stats     Stats

	// Filled by finders.
	Component Component
	Language  Language
}

// SkippedFile is a repository file matching a component's filemask that
// the import left out, with a reason fit to show a user: an odd file
// name, a symbolic link leaving the repository.
type SkippedFile struct {
	Filename string
	Reason   string
}

// Stats are counts over a set of units. They are stored with each
// translation and aggregated per component, project and language, updated
// in the same transaction as the write that changes them.
type Stats struct {
	Total, TotalWords, TotalChars                int
	Translated, TranslatedWords, TranslatedChars int
	Fuzzy, FuzzyWords, FuzzyChars                int
	Failing, FailingWords, FailingChars          int
	Approved, ApprovedWords, ApprovedChars       int
	Readonly, ReadonlyWords, ReadonlyChars       int
	Suggestions, Comments                        int
	// LastChange is the time of the newest change, or zero.
	LastChange time.Time
	// LastAuthor is the display name of the newest content change's
	// author, or "".
	LastAuthor string
	// RecentChanges counts changes in the last 24 hours as of the read.
	RecentChanges int
}

// Add accumulates the counts of o into s (not the last-change fields).
func (s *Stats) Add(o Stats, sign int) {
	s.Total += sign * o.Total
	s.TotalWords += sign * o.TotalWords
	s.TotalChars += sign * o.TotalChars
	s.Translated += sign * o.Translated
	s.TranslatedWords += sign * o.TranslatedWords
	s.TranslatedChars += sign * o.TranslatedChars
	s.Fuzzy += sign * o.Fuzzy
	s.FuzzyWords += sign * o.FuzzyWords
	s.FuzzyChars += sign * o.FuzzyChars
	s.Failing += sign * o.Failing
	s.FailingWords += sign * o.FailingWords
	s.FailingChars += sign * o.FailingChars
	s.Approved += sign * o.Approved
	s.ApprovedWords += sign * o.ApprovedWords
	s.ApprovedChars += sign * o.ApprovedChars
	s.Readonly += sign * o.Readonly
	s.ReadonlyWords += sign * o.ReadonlyWords
	s.ReadonlyChars += sign * o.ReadonlyChars
	s.Suggestions += sign * o.Suggestions
	s.Comments += sign * o.Comments
}

// Count adds one unit to s, with its failing check and its unresolved
// comment.
func (s *Stats) Count(u *Unit) {
	s.CountUnit(u.State, u.NumWords, u.NumChars())
	if u.HasFailingCheck {
		s.CountFailing(u.NumWords, u.NumChars(), 1)
	}
	if u.HasSuggestion {
		s.Suggestions++
	}
	if u.HasComment {
		s.Comments++
	}
}

// CountFailing adds (sign 1) or takes away (-1) one unit with a failing
// check of the given words and characters.
func (s *Stats) CountFailing(words, chars, sign int) {
	s.Failing += sign
	s.FailingWords += sign * words
	s.FailingChars += sign * chars
}

// CountUnit adds one unit of the given state, words and characters to s.
func (s *Stats) CountUnit(state State, words, chars int) {
	s.Total++
	s.TotalWords += words
	s.TotalChars += chars
	switch {
	case state.Fuzzy():
		s.Fuzzy++
		s.FuzzyWords += words
		s.FuzzyChars += chars
	case state.Translated():
		s.Translated++
		s.TranslatedWords += words
		s.TranslatedChars += chars
	}
	if state == StateApproved {
		s.Approved++
		s.ApprovedWords += words
		s.ApprovedChars += chars
	}
	if state == StateReadOnly {
		s.Readonly++
		s.ReadonlyWords += words
		s.ReadonlyChars += chars
	}
}

// Percent returns part/total as a percentage truncated (not rounded) to
// one decimal, as the spec shows (1 of 6 is 16.6). Zero total gives 0.
func Percent(part, total int) float64 {
	if total <= 0 {
		return 0
	}
	return float64(part*1000/total) / 10
}
