package apple

import (
	"sort"
	"strings"
)

// rep replaces text[start:end] with s. A writer collects reps and splices
// them in one pass, so the bytes between them stay as they were.
type rep struct {
	start, end int
	s          string
}

// splice applies reps to text. Overlapping reps are merged into one that
// covers both and writes both texts (removals, whose s is "", overlap when
// neighbouring units' blank lines are taken out together).
func splice(text string, reps []rep) string {
	if len(reps) == 0 {
		return text
	}
	// Insertions go before a removal that starts where they do.
	sort.SliceStable(reps, func(i, j int) bool {
		if reps[i].start != reps[j].start {
			return reps[i].start < reps[j].start
		}
		return reps[i].end == reps[i].start && reps[j].end != reps[j].start
	})
	var b strings.Builder
	b.Grow(len(text) + 64)
	pos := 0
	for _, r := range reps {
		if r.start < pos { // overlaps what was already cut
			if r.end > pos {
				pos = r.end
			}
			b.WriteString(r.s)
			continue
		}
		b.WriteString(text[pos:r.start])
		b.WriteString(r.s)
		pos = r.end
	}
	b.WriteString(text[pos:])
	return b.String()
}

// lineSpan widens [start, end) to whole lines when nothing but blanks
// shares those lines with it, so that removing a unit removes its lines.
// A unit that is the last thing in a file without a final newline takes
// the line break and blank lines before it instead. When blank lines
// surround the unit, one of them goes too, so the file's spacing between
// units stays what it was.
func lineSpan(text string, start, end int) (int, int) {
	ls := strings.LastIndexByte(text[:start], '\n') + 1
	if strings.TrimLeft(text[ls:start], " \t") == "" {
		start = ls
	}
	e := end
	for e < len(text) && (text[e] == ' ' || text[e] == '\t' || text[e] == '\r') {
		e++
	}
	switch {
	case e < len(text) && text[e] == '\n':
		end = e + 1
	case e == len(text) && start == ls:
		end = e
		// The last unit of a file without a final newline: take the
		// whitespace in front of it, so the file still ends where the
		// previous unit ends.
		for start > 0 && strings.ContainsRune(" \t\r\n", rune(text[start-1])) {
			start--
		}
		return start, end
	default:
		return start, end
	}
	if start != ls {
		return start, end
	}
	blankBefore := start == 0 || isBlankLineBefore(text, start)
	if blankBefore {
		// Take one blank line after the unit, if there is one.
		e := end
		for e < len(text) && (text[e] == ' ' || text[e] == '\t' || text[e] == '\r') {
			e++
		}
		if e < len(text) && text[e] == '\n' {
			end = e + 1
		}
	}
	return start, end
}

// isBlankLineBefore reports whether the line before the one starting at
// ls is empty or blanks only.
func isBlankLineBefore(text string, ls int) bool {
	if ls == 0 {
		return false
	}
	prev := strings.LastIndexByte(text[:ls-1], '\n') + 1
	return strings.Trim(text[prev:ls-1], " \t\r") == ""
}
