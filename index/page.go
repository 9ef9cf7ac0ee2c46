package index

// Page selects a slice of an ordered list by 1-based page number. Engines
// must answer deep pages as cheaply as the first (keyset lookups behind
// the page number), not with OFFSET scans.
type Page struct {
	Number int // 1-based
	Size   int
}

// Offset returns how many items precede the page.
func (p Page) Offset() int { return (p.Number - 1) * p.Size }
