package machinery

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/tolk-project/tolk/checks"
	"github.com/tolk-project/tolk/index"
)

// Glossary is a project's glossaries as the services that take one read
// them (DeepL, the LLMs; reference workspace §6.1): the translated and
// read-only terms of the project's glossary components from one source
// language to one language. Reads only.
//
// The index's store is one (sqlstore.DB.GlossaryTerms): cmd/tolk gives
// it as Options.Glossary. Without one, the services translate without a
// glossary.
type Glossary interface {
	GlossaryTerms(ctx context.Context, projectID int64, sourceLanguage, language string) ([]index.GlossaryTerm, error)
}

// glossaryTTL is how long a project's terms are kept before they are
// read again: a term edited in the glossary reaches the services within
// it. The reference keeps its TSV a day and drops it on every glossary
// change; a few seconds of staleness is the price of not reading every
// term of a glossary for every string a translator opens.
const glossaryTTL = 30 * time.Second

// maxCachedGlossaries bounds the (project, language pair) term lists
// kept; past it they are all read afresh.
const maxCachedGlossaries = 256

// glossaryReader reads terms through a Glossary, keeping each list for
// glossaryTTL. It is safe for concurrent use.
type glossaryReader struct {
	g Glossary

	mu    sync.Mutex // guards lists
	lists map[glossaryKey]cachedTerms
}

type glossaryKey struct {
	project                int64
	sourceLanguage, target string
}

type cachedTerms struct {
	terms []index.GlossaryTerm
	read  time.Time
}

// terms returns the project's terms from req's source language to its
// target language; none without a Glossary or a project.
func (r *glossaryReader) terms(ctx context.Context, req Request) ([]index.GlossaryTerm, error) {
	if r == nil || r.g == nil || req.ProjectID == 0 {
		return nil, nil
	}
	key := glossaryKey{req.ProjectID, req.SourceLanguage, req.TargetLanguage}
	r.mu.Lock()
	c, ok := r.lists[key]
	r.mu.Unlock()
	if ok && time.Since(c.read) < glossaryTTL {
		return c.terms, nil
	}
	terms, err := r.g.GlossaryTerms(ctx, req.ProjectID, req.SourceLanguage, req.TargetLanguage)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	if len(r.lists) >= maxCachedGlossaries {
		clear(r.lists)
	}
	r.lists[key] = cachedTerms{terms: terms, read: time.Now()}
	r.mu.Unlock()
	return terms, nil
}

// glossaryTSV renders terms as the tab-separated glossary DeepL takes
// and the LLM prompts carry, by the reference's rules
// (render_glossary_units_tsv, after DeepL's specification): forbidden
// terms left out; an untranslatable (read-only) term is its own
// translation; each side without control characters (categories Cc and
// Zl, tab and newline included), trimmed of Unicode white space and of
// leading characters spreadsheets read as formulas; a pair with a blank
// side, or whose source came before, left out; one pair a line.
func glossaryTSV(terms []index.GlossaryTerm) string {
	var b strings.Builder
	seen := map[string]bool{}
	for _, t := range terms {
		if t.Forbidden {
			continue
		}
		source := cleanTerm(t.Source)
		target := source
		if !t.ReadOnly {
			target = cleanTerm(t.Target)
		}
		if source == "" || target == "" || seen[source] {
			continue
		}
		seen[source] = true
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(source)
		b.WriteByte('\t')
		b.WriteString(target)
	}
	return b.String()
}

// cleanTerm is one side of a glossary pair as glossaryTSV writes it.
func cleanTerm(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.Is(unicode.Cc, r) || unicode.Is(unicode.Zl, r) {
			return -1
		}
		return r
	}, s)
	s = strings.TrimSpace(s)
	for checks.ProhibitedInitial(s) {
		_, size := utf8.DecodeRuneInString(s)
		s = s[size:]
	}
	return s
}

// glossaryChecksum names a glossary's content: a service's copy of the
// glossary is reused while the content is the same, replaced when it
// changes (the reference's tsv_checksum; its hash differs).
func glossaryChecksum(tsv string) string {
	sum := sha256.Sum256([]byte(tsv))
	return hex.EncodeToString(sum[:8])
}

// termsIn returns the terms that occur in any of texts, matched as
// check_glossary matches them (checks.GlossaryMatches), in the order
// given: what an LLM's prompt carries of the glossary (the reference's
// get_glossary_terms per unit).
func termsIn(texts []string, sourceLanguage string, terms []index.GlossaryTerm) []index.GlossaryTerm {
	if len(terms) == 0 {
		return nil
	}
	cand := make([]checks.Term, len(terms))
	for i, t := range terms {
		cand[i] = checks.Term{Source: t.Source}
	}
	found := map[string]bool{}
	for _, text := range texts {
		for _, m := range checks.GlossaryMatches([]string{text}, sourceLanguage, cand) {
			found[strings.ToLower(m.Source)] = true
		}
	}
	var out []index.GlossaryTerm
	for _, t := range terms {
		if found[strings.ToLower(t.Source)] {
			out = append(out, t)
		}
	}
	return out
}
