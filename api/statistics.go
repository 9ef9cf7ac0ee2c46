package api

import (
	"net/http"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/tolk-project/tolk/edge"
	"github.com/tolk-project/tolk/index"
)

// percent is a percentage written with exactly one decimal, as the
// reference writes its floats (16.6, 100.0, 0.0). Values come from
// index.Percent, which truncates.
type percent float64

func (p percent) MarshalJSON() ([]byte, error) { return p.append(nil), nil }

func (p percent) append(b []byte) []byte { return strconv.AppendFloat(b, float64(p), 'f', 1, 64) }

func pct(part, total int) percent { return percent(index.Percent(part, total)) }

// timestampLayout is the spec's <timestamp>: UTC with microseconds and Z.
const timestampLayout = "2006-01-02T15:04:05.000000Z"

func timestamp(t time.Time) string { return string(appendTimestamp(make([]byte, 0, 32), t)) }

// timestampOrNull is a timestamp, or null for the zero time.
func timestampOrNull(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	return ptr(timestamp(t))
}

// stringOrNull is s, or null when empty.
func stringOrNull(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// statsJSON holds the fields both statistics levels share (spec,
// "Statistics"). last_author is not in the spec's table, but the
// reference sends it and older clients fail without it
// (../shared/reference/weblate-core.md, "What the reference's own
// client needs").
type statsJSON struct {
	Total                  int     `json:"total"`
	TotalWords             int     `json:"total_words"`
	TotalChars             int     `json:"total_chars"`
	LastChange             *string `json:"last_change"`
	RecentChanges          int     `json:"recent_changes"`
	Translated             int     `json:"translated"`
	TranslatedWords        int     `json:"translated_words"`
	TranslatedChars        int     `json:"translated_chars"`
	TranslatedPercent      percent `json:"translated_percent"`
	TranslatedWordsPercent percent `json:"translated_words_percent"`
	TranslatedCharsPercent percent `json:"translated_chars_percent"`
	Fuzzy                  int     `json:"fuzzy"`
	FuzzyPercent           percent `json:"fuzzy_percent"`
	Failing                int     `json:"failing"`
	FailingPercent         percent `json:"failing_percent"`
	Approved               int     `json:"approved"`
	ApprovedPercent        percent `json:"approved_percent"`
	Readonly               int     `json:"readonly"`
	ReadonlyPercent        percent `json:"readonly_percent"`
	Suggestions            int     `json:"suggestions"`
	Comments               int     `json:"comments"`
	LastAuthor             *string `json:"last_author"`
}

func newStatsJSON(st *index.Stats) statsJSON {
	return statsJSON{
		Total:                  st.Total,
		TotalWords:             st.TotalWords,
		TotalChars:             st.TotalChars,
		LastChange:             timestampOrNull(st.LastChange),
		RecentChanges:          st.RecentChanges,
		Translated:             st.Translated,
		TranslatedWords:        st.TranslatedWords,
		TranslatedChars:        st.TranslatedChars,
		TranslatedPercent:      pct(st.Translated, st.Total),
		TranslatedWordsPercent: pct(st.TranslatedWords, st.TotalWords),
		TranslatedCharsPercent: pct(st.TranslatedChars, st.TotalChars),
		Fuzzy:                  st.Fuzzy,
		FuzzyPercent:           pct(st.Fuzzy, st.Total),
		Failing:                st.Failing,
		FailingPercent:         pct(st.Failing, st.Total),
		Approved:               st.Approved,
		ApprovedPercent:        pct(st.Approved, st.Total),
		Readonly:               st.Readonly,
		ReadonlyPercent:        pct(st.Readonly, st.Total),
		Suggestions:            st.Suggestions,
		Comments:               st.Comments,
		LastAuthor:             stringOrNull(st.LastAuthor),
	}
}

// translationStatsJSON is the translation-level Statistics object.
type translationStatsJSON struct {
	statsJSON
	Code         string `json:"code"`
	Name         string `json:"name"`
	URL          string `json:"url"` // the translation's human-facing page
	TranslateURL string `json:"translate_url"`
}

// newTranslationStatsJSON converts the statistics of translation t.
func newTranslationStatsJSON(u edge.URLs, t *index.Translation, st *index.Stats) translationStatsJSON {
	p, comp, l := t.Component.Project.Slug, t.Component.FullSlug(), t.LanguageCode
	return translationStatsJSON{
		statsJSON:    newStatsJSON(st),
		Code:         t.Language.Code,
		Name:         t.Language.Name,
		URL:          u.TranslationWeb(p, comp, l),
		TranslateURL: u.Translate(p, comp, l),
	}
}

// namedStatsJSON is the Statistics object of an aggregate with a name
// and a page but no language code: a language (spec, "Statistics
// (language level)") or a project, which the reference serializes alike.
type namedStatsJSON struct {
	statsJSON
	Name string `json:"name"`
	URL  string `json:"url"` // the aggregate's human-facing page
}

// projectLanguageStatsJSON is one language of a project: the reference
// names it by its language's code and name. Its page is the project's
// page in that language (the share URL); it has no translate page.
type projectLanguageStatsJSON struct {
	statsJSON
	Code string `json:"code"`
	Name string `json:"name"`
	URL  string `json:"url"`
}

// The statistics objects write their own JSON (jsonAppender): they are
// small, and encoding/json's reflection over their 22 fields was a tenth
// of a statistics request.

// appendFields appends the shared fields, without braces. (Not
// appendJSON: every type embedding statsJSON would inherit it.)
func (s *statsJSON) appendFields(b []byte) []byte {
	b = append(b, `"total":`...)
	b = appendJSONInt(b, int64(s.Total))
	b = append(b, `,"total_words":`...)
	b = appendJSONInt(b, int64(s.TotalWords))
	b = append(b, `,"total_chars":`...)
	b = appendJSONInt(b, int64(s.TotalChars))
	b = append(b, `,"last_change":`...)
	b = appendJSONStringOrNull(b, s.LastChange)
	b = append(b, `,"recent_changes":`...)
	b = appendJSONInt(b, int64(s.RecentChanges))
	b = append(b, `,"translated":`...)
	b = appendJSONInt(b, int64(s.Translated))
	b = append(b, `,"translated_words":`...)
	b = appendJSONInt(b, int64(s.TranslatedWords))
	b = append(b, `,"translated_chars":`...)
	b = appendJSONInt(b, int64(s.TranslatedChars))
	b = append(b, `,"translated_percent":`...)
	b = s.TranslatedPercent.append(b)
	b = append(b, `,"translated_words_percent":`...)
	b = s.TranslatedWordsPercent.append(b)
	b = append(b, `,"translated_chars_percent":`...)
	b = s.TranslatedCharsPercent.append(b)
	b = append(b, `,"fuzzy":`...)
	b = appendJSONInt(b, int64(s.Fuzzy))
	b = append(b, `,"fuzzy_percent":`...)
	b = s.FuzzyPercent.append(b)
	b = append(b, `,"failing":`...)
	b = appendJSONInt(b, int64(s.Failing))
	b = append(b, `,"failing_percent":`...)
	b = s.FailingPercent.append(b)
	b = append(b, `,"approved":`...)
	b = appendJSONInt(b, int64(s.Approved))
	b = append(b, `,"approved_percent":`...)
	b = s.ApprovedPercent.append(b)
	b = append(b, `,"readonly":`...)
	b = appendJSONInt(b, int64(s.Readonly))
	b = append(b, `,"readonly_percent":`...)
	b = s.ReadonlyPercent.append(b)
	b = append(b, `,"suggestions":`...)
	b = appendJSONInt(b, int64(s.Suggestions))
	b = append(b, `,"comments":`...)
	b = appendJSONInt(b, int64(s.Comments))
	b = append(b, `,"last_author":`...)
	return appendJSONStringOrNull(b, s.LastAuthor)
}

func (s translationStatsJSON) AppendJSON(b []byte) []byte {
	return appendStatsObject(b, &s.statsJSON, "code", s.Code, "name", s.Name, "url", s.URL, "translate_url", s.TranslateURL)
}

func (s namedStatsJSON) AppendJSON(b []byte) []byte {
	return appendStatsObject(b, &s.statsJSON, "name", s.Name, "url", s.URL)
}

func (s projectLanguageStatsJSON) AppendJSON(b []byte) []byte {
	return appendStatsObject(b, &s.statsJSON, "code", s.Code, "name", s.Name, "url", s.URL)
}

// appendStatsObject appends an object of st's fields followed by string
// fields, given as name and value in turn.
func appendStatsObject(b []byte, st *statsJSON, fields ...string) []byte {
	b = st.appendFields(append(b, '{'))
	for i := 0; i+1 < len(fields); i += 2 {
		b = append(b, `,"`...)
		b = append(b, fields[i]...)
		b = append(b, `":`...)
		b = appendJSONString(b, fields[i+1])
	}
	return append(b, '}')
}

// getTranslationStatistics serves GET .../translations/P/C/L/statistics/.
func (s *Server) getTranslationStatistics(c *gin.Context) {
	ctx := c.Request.Context()
	t, err := s.edge.FindTranslation(c)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	st, err := s.store.TranslationStats(ctx, t.ID)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	s.edge.WriteJSON(c, http.StatusOK, newTranslationStatsJSON(s.edge.URLsFor(c), &t, &st))
}

// listComponentStatistics serves GET .../components/P/C/statistics/: the
// reference's paginated list of the component's translation-level
// statistics, in ascending translation id order, read from the kept rows.
func (s *Server) listComponentStatistics(c *gin.Context) {
	comp, err := s.edge.FindComponent(c)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	trs, pg, err := fetchPageOf(c, largePages, func(p index.Page) ([]index.Translation, int, error) {
		return s.store.FindTranslationPage(c.Request.Context(), comp.ID, p)
	})
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	u := s.edge.URLsFor(c)
	out := make([]translationStatsJSON, len(trs))
	for i := range trs {
		out[i] = newTranslationStatsJSON(u, &trs[i], &trs[i].Stats)
	}
	s.edge.WriteJSON(c, http.StatusOK, newList(c, u, pg, out))
}

// getLanguageStatistics serves GET /api/languages/:code/statistics/.
func (s *Server) getLanguageStatistics(c *gin.Context) {
	l, st, err := s.edge.LanguageStats(c)
	if err != nil {
		s.edge.Fail(c, err)
		return
	}
	s.edge.WriteJSON(c, http.StatusOK, namedStatsJSON{
		statsJSON: newStatsJSON(&st),
		Name:      l.Name,
		URL:       s.edge.URLsFor(c).LanguageWeb(l.Code),
	})
}
