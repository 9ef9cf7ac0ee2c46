package checks

// Size bounds (issue requirement: hostile strings never stall a write).
// Every check is linear in its input: the scanners are single-pass,
// regular expressions are RE2 and the XML decoder streams. What differs
// is the constant: the regular-expression families run Go's NFA with
// submatches, tens of nanoseconds per byte and alternative, so a
// 100,000-character Markdown string costs them 100 ms and more where a
// typical unit costs microseconds. Those checks run only on forms up to
// a bound and otherwise report themselves skipped (RunDetailed). The
// placeholders check's cost is entries × length, so it is bounded on the
// product.

// bound is one check's limit.
type bound struct {
	// Bytes is the longest source or target form the check runs on.
	Bytes int
	// Work, when set, bounds len(placeholders) × form length instead.
	Work int
}

func (b bound) exceeded(u *Unit) bool {
	n := 0
	for _, s := range u.Source {
		n = max(n, len(s))
	}
	for _, t := range u.Target {
		n = max(n, len(t))
	}
	if b.Work > 0 {
		return len(u.Flags.params["placeholders"])*n > b.Work
	}
	return b.Bytes > 0 && n > b.Bytes
}

// markupBytes bounds the regular-expression markup families: 10,000
// bytes is a long documentation paragraph, and costs each check a few
// milliseconds at most.
const markupBytes = 10_000

var bounds = map[string]bound{
	"md-reflink": {Bytes: markupBytes},
	"md-link":    {Bytes: markupBytes},
	"md-syntax":  {Bytes: markupBytes},
	"safe-html":  {Bytes: markupBytes},
	// The reStructuredText scanners try each role from its backtick;
	// BBCode looks for each opening tag's closing one on its line.
	"rst-references": {Bytes: markupBytes},
	"rst-syntax":     {Bytes: markupBytes},
	"bbcode":         {Bytes: markupBytes},
	// The Fluent checks build each variant's text.
	"fluent-target-syntax":     {Bytes: markupBytes},
	"fluent-parts":             {Bytes: markupBytes},
	"fluent-references":        {Bytes: markupBytes},
	"fluent-target-inner-html": {Bytes: markupBytes},
	"placeholders":             {Work: 20_000_000},
}
