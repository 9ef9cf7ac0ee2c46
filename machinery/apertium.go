package machinery

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"sync"
)

// apertiumService is Apertium APy, a free rule-based engine one can run
// (Debian: apertium-apy and a pair such as apertium-eng-spa). Its API:
// GET {url}/listPairs and GET {url}/translate?langpair=SRC|TGT&q=TEXT
// &markUnknown=no, answering {"responseData": ..., "responseStatus": 200}
// (reference workspace §6.1; max score 88 as in the reference's 2026.8).
var apertiumService = &Service{ID: "apertium-apy", Name: "Apertium APy", MaxScore: 88,
	Keys:      []Key{{Name: "url", Required: true, URL: true}},
	newEngine: newApertium}

// apertiumCodes maps Tolk's language codes to the three-letter codes
// APy names its pairs with, for the codes it does not list as they are:
// the reference's LANGUAGE_MAP (weblate/machinery/apertium.py).
var apertiumCodes = map[string]string{
	"ca": "cat", "cy": "cym", "eo": "epo", "gl": "glg", "bs": "hbs_BS", "es": "spa", "en": "eng",
	"en_US": "eng", "en_UK": "eng", "nl": "nld", "de": "deu", "fr": "fra", "sl": "slv", "sr": "hbs",
	"nb_NO": "nob", "nn": "nno", "se": "sme", "oc": "oci", "pt": "por", "co": "cos", "fi": "fin",
	"ia": "ina", "ro": "ron", "cs": "ces", "sk": "slk", "ru": "rus", "av": "ava", "is": "isl",
	"pl": "pol", "kk": "kaz", "tt": "tat", "be": "bel", "uk": "ukr", "gn": "grn", "mt": "mlt",
	"it": "ita", "zh_Hant": "zho", "br": "bre", "qu": "qve", "an": "arg", "mr": "mar", "af": "afr",
	"fa": "pes", "el": "ell", "lv": "lvs", "as": "asm", "hi": "hin", "te": "tel", "hy": "hye",
	"th": "tha", "mk": "mkd", "la": "lat", "ga": "gle", "sw": "swa", "hu": "hun", "ml": "mal",
}

// apertiumParallel bounds the strings of one batch translated at once:
// APy translates one string per request.
const apertiumParallel = 4

type apertium struct {
	url   string
	http  *httpClient
	pairs *pairCache
}

func newApertium(cfg Config, env *env) (Engine, error) {
	return &apertium{url: cfg.String("url"), http: env.http, pairs: newPairCache()}, nil
}

// apyAnswer is the envelope of every APy answer.
type apyAnswer[T any] struct {
	ResponseData    T      `json:"responseData"`
	ResponseStatus  int    `json:"responseStatus"`
	ResponseDetails string `json:"responseDetails"`
}

func (a *apertium) listPairs(ctx context.Context) ([]Pair, error) {
	req, err := http.NewRequest(http.MethodGet, joinURL(a.url, "listPairs"), nil)
	if err != nil {
		return nil, err
	}
	var ans apyAnswer[[]struct {
		Source string `json:"sourceLanguage"`
		Target string `json:"targetLanguage"`
	}]
	if err := a.http.call(ctx, req, &ans); err != nil {
		return nil, err
	}
	out := make([]Pair, 0, len(ans.ResponseData))
	for _, p := range ans.ResponseData {
		out = append(out, Pair{p.Source, p.Target})
	}
	return out, nil
}

// code maps a Tolk code to APy's as the reference does: "-" as "_", and
// the code map for a code APy does not list itself.
func (a *apertium) code(code string, known map[string]bool) string {
	code = strings.ReplaceAll(code, "-", "_")
	if mapped, ok := apertiumCodes[code]; ok && !known[code] {
		return mapped
	}
	return code
}

func (a *apertium) Translate(ctx context.Context, req Request) ([][]Translation, error) {
	pairs, err := a.pairs.get(ctx, a.listPairs)
	if err != nil {
		return nil, err
	}
	known := map[string]bool{}
	for p := range pairs {
		known[p.Source], known[p.Target] = true, true
	}
	pair := Pair{a.code(req.SourceLanguage, known), a.code(req.TargetLanguage, known)}
	if !pairs[pair] {
		return nil, ErrUnsupported
	}
	out := make([][]Translation, len(req.Texts))
	errs := make([]error, len(req.Texts))
	sem := make(chan struct{}, apertiumParallel)
	var wg sync.WaitGroup
	for i, text := range req.Texts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				errs[i] = ctx.Err()
				return
			}
			defer func() { <-sem }()
			out[i], errs[i] = a.translate(ctx, pair, text)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (a *apertium) translate(ctx context.Context, pair Pair, text string) ([]Translation, error) {
	q := url.Values{"langpair": {pair.Source + "|" + pair.Target}, "q": {text}, "markUnknown": {"no"}}
	req, err := http.NewRequest(http.MethodGet, joinURL(a.url, "translate")+"?"+q.Encode(), nil)
	if err != nil {
		return nil, err
	}
	var ans apyAnswer[struct {
		TranslatedText *string `json:"translatedText"`
	}]
	if err := a.http.call(ctx, req, &ans); err != nil {
		return nil, err
	}
	if ans.ResponseData.TranslatedText == nil {
		return nil, errUnexpected
	}
	return []Translation{{Text: *ans.ResponseData.TranslatedText, Quality: apertiumService.MaxScore,
		Service: apertiumService.Name, Source: text}}, nil
}
