package machinery

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
)

// DeepL glossaries, as the reference uses them (its
// GlossaryMachineTranslationMixin and DeepL's documented v2 glossary
// API): the project's glossary for a language pair is uploaded once as
// a DeepL glossary named by the project, the pair and a checksum of its
// content, and each translation names it by glossary_id. The calls:
//
//   - GET {url}/glossary-language-pairs → {"supported_languages":
//     [{"source_lang", "target_lang"}]}: the pairs DeepL keeps
//     glossaries for (base codes, "en" → "de");
//   - GET {url}/glossaries → {"glossaries": [{"glossary_id", "name",
//     "creation_time", ...}]};
//   - POST {url}/glossaries with JSON {"name", "source_lang",
//     "target_lang", "entries", "entries_format": "tsv"} → 201 with the
//     glossary, its "glossary_id" included;
//   - DELETE {url}/glossaries/{id} → 204.
//
// A glossary whose content changed is replaced: the project's older
// glossaries for the pair are deleted before the new one is made, and
// when the account's limit is near (1,000 glossaries; a free account
// has 1) the oldest goes. Where the reference names its glossaries
// "weblate:…", Tolk's are "tolk:…", so that a Tolk and a Weblate sharing
// one DeepL account never delete each other's.
//
// Better than the reference: a glossary that cannot be listed, made or
// used never fails the translation, which is then made without it (the
// reference's request fails), and the id DeepL gave on creation is used
// at once instead of listing every glossary again.

const (
	// deeplGlossaryLimit is how many glossaries a DeepL account keeps
	// (the reference's glossary_count_limit); a free account keeps one.
	deeplGlossaryLimit     = 1000
	deeplFreeGlossaryLimit = 1
	// deeplGlossaryListTTL is how long the list of the account's
	// glossaries is trusted, as the reference caches it (a day); a
	// translation that fails with a glossary drops it.
	deeplGlossaryListTTL = 24 * time.Hour
)

// deeplGlossary is one glossary of the account.
type deeplGlossary struct {
	ID      string `json:"glossary_id"`
	Name    string `json:"name"`
	Created string `json:"creation_time"`
}

// deeplGlossaries is an engine's knowledge of its account's glossaries,
// guarded by its one-slot semaphore: one glossary is made at a time.
type deeplGlossaries struct {
	mu     chan struct{}
	pairs  *pairCache // the pairs DeepL keeps glossaries for
	list   []deeplGlossary
	listed time.Time
}

func newDeepLGlossaries() *deeplGlossaries {
	return &deeplGlossaries{mu: make(chan struct{}, 1), pairs: newPairCache()}
}

// deeplBase is a DeepL code without its variant: glossaries are kept
// for languages ("PT"), not variants ("PT-BR").
func deeplBase(code string) string {
	base, _, _ := strings.Cut(code, "-")
	return base
}

// glossaryName is the name of the project's glossary for pair with
// content checksum sum; with sum "", the prefix of every version of it.
func glossaryName(project int64, pair Pair, sum string) string {
	return fmt.Sprintf("tolk:%d:%s:%s:%s", project, pair.Source, pair.Target, sum)
}

// glossaryID returns the id of the DeepL glossary holding the project's
// glossary for req's languages, made or replaced as needed; "" when the
// project has none, DeepL keeps none for the pair, or it could not be
// had (logged, without the key): the translation is then made without.
func (d *deepl) glossaryID(ctx context.Context, req Request, pair Pair) string {
	terms, err := d.glossary.terms(ctx, req)
	if err == nil && len(terms) == 0 {
		return ""
	}
	var id string
	if err == nil {
		id, err = d.ensureGlossary(ctx, req.ProjectID, pair, glossaryTSV(terms))
	}
	if err != nil {
		d.log.Warn("DeepL glossary not used", "project", req.ProjectID, "source", pair.Source,
			"target", pair.Target, "err", err)
		return ""
	}
	return id
}

func (d *deepl) ensureGlossary(ctx context.Context, project int64, pair Pair, tsv string) (string, error) {
	if tsv == "" {
		return "", nil
	}
	pairs, err := d.glossaries.pairs.get(ctx, d.downloadGlossaryPairs)
	if err != nil {
		return "", err
	}
	if !pairs[Pair{deeplBase(pair.Source), deeplBase(pair.Target)}] {
		return "", nil
	}
	g := d.glossaries
	select {
	case g.mu <- struct{}{}:
	case <-ctx.Done():
		return "", fmt.Errorf("no answer in time: %w", context.DeadlineExceeded)
	}
	defer func() { <-g.mu }()
	if g.list == nil || time.Since(g.listed) >= deeplGlossaryListTTL {
		if err := d.listGlossaries(ctx); err != nil {
			return "", err
		}
	}
	name := glossaryName(project, pair, glossaryChecksum(tsv))
	for _, gl := range g.list {
		if gl.Name == name {
			return gl.ID, nil
		}
	}
	// The project's older glossaries for the pair are stale.
	prefix := glossaryName(project, pair, "")
	for _, gl := range slices.Clone(g.list) {
		if strings.HasPrefix(gl.Name, prefix) {
			if err := d.deleteGlossary(ctx, gl.ID); err != nil {
				return "", err
			}
		}
	}
	limit := deeplGlossaryLimit
	if strings.HasPrefix(d.url, deeplFreeURL) {
		limit = deeplFreeGlossaryLimit
	}
	if len(g.list) > 0 && len(g.list)+1 > limit {
		oldest := slices.MinFunc(g.list, func(a, b deeplGlossary) int { return strings.Compare(a.Created, b.Created) })
		if err := d.deleteGlossary(ctx, oldest.ID); err != nil {
			return "", err
		}
	}
	req, err := d.request(http.MethodPost, "glossaries", map[string]string{"name": name,
		"source_lang": deeplBase(pair.Source), "target_lang": deeplBase(pair.Target), "entries": tsv,
		"entries_format": "tsv"})
	if err != nil {
		return "", err
	}
	var made deeplGlossary
	if err := d.http.call(ctx, req, &made, d.key); err != nil {
		return "", err
	}
	if made.ID == "" {
		return "", errUnexpected
	}
	made.Name = name
	g.list = append(g.list, made)
	return made.ID, nil
}

// forgetGlossaries drops the list of the account's glossaries, to be
// listed again: a translation naming one failed (deleted outside Tolk).
func (d *deepl) forgetGlossaries() {
	select {
	case d.glossaries.mu <- struct{}{}:
		d.glossaries.list = nil
		<-d.glossaries.mu
	default: // being listed or changed now: fresh enough
	}
}

func (d *deepl) downloadGlossaryPairs(ctx context.Context) ([]Pair, error) {
	req, err := d.request(http.MethodGet, "glossary-language-pairs", nil)
	if err != nil {
		return nil, err
	}
	var ans struct {
		Supported []struct {
			Source string `json:"source_lang"`
			Target string `json:"target_lang"`
		} `json:"supported_languages"`
	}
	if err := d.http.call(ctx, req, &ans, d.key); err != nil {
		return nil, err
	}
	out := make([]Pair, 0, len(ans.Supported))
	for _, p := range ans.Supported {
		out = append(out, Pair{strings.ToUpper(p.Source), strings.ToUpper(p.Target)})
	}
	return out, nil
}

// listGlossaries reads the account's glossaries (with g.mu held).
func (d *deepl) listGlossaries(ctx context.Context) error {
	req, err := d.request(http.MethodGet, "glossaries", nil)
	if err != nil {
		return err
	}
	var ans struct {
		Glossaries []deeplGlossary `json:"glossaries"`
	}
	if err := d.http.call(ctx, req, &ans, d.key); err != nil {
		return err
	}
	d.glossaries.list, d.glossaries.listed = ans.Glossaries, time.Now()
	if d.glossaries.list == nil {
		d.glossaries.list = []deeplGlossary{}
	}
	return nil
}

// deleteGlossary deletes a glossary (with g.mu held); one already gone
// is no error.
func (d *deepl) deleteGlossary(ctx context.Context, id string) error {
	req, err := d.request(http.MethodDelete, "glossaries/"+url.PathEscape(id), nil)
	if err != nil {
		return err
	}
	if err := d.http.call(ctx, req, nil, d.key); err != nil && !isStatus(err, http.StatusNotFound) {
		return err
	}
	d.glossaries.list = slices.DeleteFunc(d.glossaries.list, func(g deeplGlossary) bool { return g.ID == id })
	return nil
}
