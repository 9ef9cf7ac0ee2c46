package machinery

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
)

// libreTranslateService is LibreTranslate, a free engine one can run,
// written against its documented API (https://libretranslate.com/docs):
// GET {url}/languages → [{"code", "name", "targets"}], POST
// {url}/translate with JSON {"q": [texts], "source", "target", "format":
// "text", "api_key"} → {"translatedText": [texts]}, errors as
// {"error": "..."}. Max score 89 as in the reference.
var libreTranslateService = &Service{ID: "libretranslate", Name: "LibreTranslate", MaxScore: 89,
	Keys:      []Key{{Name: "url", Required: true, URL: true}, {Name: "key", Secret: true}},
	newEngine: newLibreTranslate}

// libreCodes are the codes LibreTranslate gives languages whose Tolk
// code it does not use itself.
var libreCodes = map[string][]string{"zh_Hans": {"zh-Hans", "zh"}, "zh_Hant": {"zh-Hant", "zt"},
	"pt_BR": {"pt-BR", "pb", "pt"}}

// libreBatch bounds the texts of one request.
const libreBatch = 50

type libreTranslate struct {
	url, key string
	http     *httpClient
	pairs    *pairCache
}

func newLibreTranslate(cfg Config, env *env) (Engine, error) {
	return &libreTranslate{url: cfg.String("url"), key: cfg.String("key"), http: env.http, pairs: newPairCache()}, nil
}

func (l *libreTranslate) download(ctx context.Context) ([]Pair, error) {
	req, err := http.NewRequest(http.MethodGet, joinURL(l.url, "languages"), nil)
	if err != nil {
		return nil, err
	}
	var langs []struct {
		Code    string   `json:"code"`
		Targets []string `json:"targets"`
	}
	if err := l.http.call(ctx, req, &langs, l.key); err != nil {
		return nil, err
	}
	var out []Pair
	for _, s := range langs {
		targets := s.Targets
		if targets == nil { // before LibreTranslate 1.3: any pair
			for _, t := range langs {
				targets = append(targets, t.Code)
			}
		}
		for _, t := range targets {
			if t != s.Code {
				out = append(out, Pair{s.Code, t})
			}
		}
	}
	return out, nil
}

// candidates are the codes LibreTranslate may know a Tolk code by, best
// first.
func libreCandidates(code string) []string {
	out := libreCodes[code]
	dashed := strings.ReplaceAll(code, "_", "-")
	base, _, _ := strings.Cut(dashed, "-")
	return append(out, code, dashed, strings.ToLower(dashed), base)
}

func (l *libreTranslate) Translate(ctx context.Context, req Request) ([][]Translation, error) {
	pairs, err := l.pairs.get(ctx, l.download)
	if err != nil {
		return nil, err
	}
	pair, ok := findPair(pairs, libreCandidates(req.SourceLanguage), libreCandidates(req.TargetLanguage))
	if !ok {
		return nil, ErrUnsupported
	}
	out := make([][]Translation, 0, len(req.Texts))
	for start := 0; start < len(req.Texts); start += libreBatch {
		texts := req.Texts[start:min(start+libreBatch, len(req.Texts))]
		got, err := l.translate(ctx, pair, texts)
		if err != nil {
			return nil, err
		}
		out = append(out, got...)
	}
	return out, nil
}

func (l *libreTranslate) translate(ctx context.Context, pair Pair, texts []string) ([][]Translation, error) {
	body, err := json.Marshal(map[string]any{"q": texts, "source": pair.Source, "target": pair.Target,
		"format": "text", "api_key": l.key})
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequest(http.MethodPost, joinURL(l.url, "translate"), bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	var ans struct {
		TranslatedText []string `json:"translatedText"`
	}
	if err := l.http.call(ctx, req, &ans, l.key); err != nil {
		return nil, err
	}
	if len(ans.TranslatedText) != len(texts) {
		return nil, errUnexpected
	}
	out := make([][]Translation, len(texts))
	for i, text := range ans.TranslatedText {
		out[i] = []Translation{{Text: text, Quality: libreTranslateService.MaxScore,
			Service: libreTranslateService.Name, Source: texts[i]}}
	}
	return out, nil
}

// findPair returns the first pair of candidate codes the engine
// translates.
func findPair(pairs map[Pair]bool, sources, targets []string) (Pair, bool) {
	for _, s := range sources {
		for _, t := range targets {
			if pairs[Pair{s, t}] {
				return Pair{s, t}, true
			}
		}
	}
	return Pair{}, false
}
