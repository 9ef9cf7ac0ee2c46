package index

// Language is a natural language with its plural rules.
type Language struct {
	Code       string
	Name       string
	Direction  string // "ltr" or "rtl"
	Population int64
	Aliases    []string
	Plural     Plural
}

// Plural describes a language's plural forms.
type Plural struct {
	ID      int64
	Source  int    // 0 default (language data), 1 gettext, 2 CLDR, ...
	Number  int    // number of forms
	Formula string // C expression over n
	Type    int    // formula family
}
