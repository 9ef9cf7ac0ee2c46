package index

// UnitCheck is one quality check failing on a unit, as the index keeps
// it (reference workspace §1.1): Name is the check's id as the reference
// spells it ("end_stop", "max-length"). A dismissed check keeps its row
// but no longer counts as failing.
type UnitCheck struct {
	Name      string
	Dismissed bool
}

// CheckCount counts a check's rows in one language of a component: the
// units it fails on that count as failing, and those where it was
// dismissed.
type CheckCount struct {
	Name         string
	LanguageCode string
	Failing      int
	Dismissed    int
}
