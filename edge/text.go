package edge

import (
	"strconv"
	"unicode/utf8"
)

// MaxListedText bounds a text shown in a list of many: a change list's
// target, a string's history in the editor. Writes cap a form at 64 KiB
// (index.MaxTextBytes), but older data and imports may hold more, and a
// page of a hundred changes would carry each text whole: every reader
// would pay for the longest. 4 KiB is three times the longest value of a
// JSON file in the test corpus, so real texts are rarely cut.
const MaxListedText = 4 << 10

// ShortText is s when it is at most MaxListedText bytes, else its start,
// cut before a character, and a marker saying how long s is
// ("… [truncated: 9437184 bytes]"). cut reports whether it was shortened.
// Where the whole text is to be read is the caller's to say (a change's
// own URL).
func ShortText(s string) (short string, cut bool) {
	if len(s) <= MaxListedText {
		return s, false
	}
	n := MaxListedText
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "… [truncated: " + strconv.Itoa(len(s)) + " bytes]", true
}
