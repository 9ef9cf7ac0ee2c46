package machinery

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
)

// deeplService is DeepL, written against its documented API
// (https://developers.deepl.com/docs/api-reference): the key goes in the
// header "Authorization: DeepL-Auth-Key KEY"; GET {url}/languages?type=
// source|target → [{"language": "EN", "name", "supports_formality"}];
// POST {url}/translate with JSON {"text": [texts], "source_lang",
// "target_lang", "formality"} → {"translations": [{"text"}]}, at most 50
// texts a request; errors as {"message": "..."}, 456 when the quota is
// spent. The project's glossary goes with each request as a DeepL
// glossary (deepl_glossary.go). A key ending in ":fx" is a free account's, served by
// api-free.deepl.com, as the reference switches. Max score 91 as in the
// reference.
var deeplService = &Service{ID: "deepl", Name: "DeepL", MaxScore: 91,
	Keys: []Key{{Name: "key", Required: true, Secret: true}, {Name: "url", URL: true},
		{Name: "formality", Choices: []string{"default", "more", "less", "prefer_more", "prefer_less"}}},
	newEngine: newDeepL}

const (
	deeplURL     = "https://api.deepl.com/v2"
	deeplFreeURL = "https://api-free.deepl.com/v2"
	deeplBatch   = 50
)

type deepl struct {
	url, key, formality string
	http                *httpClient
	pairs               *pairCache
	glossary            *glossaryReader
	glossaries          *deeplGlossaries
	log                 *slog.Logger
}

func newDeepL(cfg Config, env *env) (Engine, error) {
	d := &deepl{url: cfg.String("url"), key: cfg.String("key"), formality: cfg.String("formality"),
		http: env.http, pairs: newPairCache(), glossary: env.glossary, glossaries: newDeepLGlossaries(), log: env.log}
	if d.url == "" {
		d.url = deeplURL
	}
	if strings.HasSuffix(d.key, ":fx") && strings.HasPrefix(d.url, deeplURL) {
		d.url = deeplFreeURL
	}
	return d, nil
}

func (d *deepl) request(method, path string, body any) (*http.Request, error) {
	var r *bytes.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		r = bytes.NewReader(b)
	}
	var req *http.Request
	var err error
	if r == nil {
		req, err = http.NewRequest(method, joinURL(d.url, path), nil)
	} else {
		req, err = http.NewRequest(method, joinURL(d.url, path), r)
		if req != nil {
			req.Header.Set("Content-Type", "application/json")
		}
	}
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "DeepL-Auth-Key "+d.key)
	return req, nil
}

func (d *deepl) languages(ctx context.Context, kind string) ([]string, error) {
	req, err := d.request(http.MethodGet, "languages?type="+kind, nil)
	if err != nil {
		return nil, err
	}
	var langs []struct {
		Language string `json:"language"`
	}
	if err := d.http.call(ctx, req, &langs, d.key); err != nil {
		return nil, err
	}
	out := make([]string, 0, len(langs))
	for _, l := range langs {
		out = append(out, strings.ToUpper(l.Language))
	}
	return out, nil
}

func (d *deepl) download(ctx context.Context) ([]Pair, error) {
	sources, err := d.languages(ctx, "source")
	if err != nil {
		return nil, err
	}
	targets, err := d.languages(ctx, "target")
	if err != nil {
		return nil, err
	}
	// Plain EN is not listed as a target but is taken (the reference
	// adds it too).
	targets = append(targets, "EN")
	var out []Pair
	for _, s := range sources {
		for _, t := range targets {
			out = append(out, Pair{s, t})
		}
	}
	return out, nil
}

// deeplCandidates are the codes DeepL may know a Tolk code by, best
// first: "pt_BR" is PT-BR, then PT; DeepL's source languages have no
// variants.
func deeplCandidates(code string) []string {
	full := strings.ToUpper(strings.ReplaceAll(code, "_", "-"))
	base, _, _ := strings.Cut(full, "-")
	return []string{full, base}
}

func (d *deepl) Translate(ctx context.Context, req Request) ([][]Translation, error) {
	pairs, err := d.pairs.get(ctx, d.download)
	if err != nil {
		return nil, err
	}
	pair, ok := findPair(pairs, deeplCandidates(req.SourceLanguage), deeplCandidates(req.TargetLanguage))
	if !ok {
		return nil, ErrUnsupported
	}
	glossary := d.glossaryID(ctx, req, pair)
	out := make([][]Translation, 0, len(req.Texts))
	for start := 0; start < len(req.Texts); start += deeplBatch {
		texts := req.Texts[start:min(start+deeplBatch, len(req.Texts))]
		got, err := d.translate(ctx, pair, glossary, texts)
		if err != nil {
			if glossary != "" {
				d.forgetGlossaries()
			}
			return nil, err
		}
		out = append(out, got...)
	}
	return out, nil
}

func (d *deepl) translate(ctx context.Context, pair Pair, glossary string, texts []string) ([][]Translation, error) {
	body := map[string]any{"text": texts, "source_lang": pair.Source, "target_lang": pair.Target}
	if d.formality != "" && d.formality != "default" {
		body["formality"] = d.formality
	}
	if glossary != "" {
		body["glossary_id"] = glossary
	}
	req, err := d.request(http.MethodPost, "translate", body)
	if err != nil {
		return nil, err
	}
	var ans struct {
		Translations []struct {
			Text string `json:"text"`
		} `json:"translations"`
	}
	if err := d.http.call(ctx, req, &ans, d.key); err != nil {
		return nil, err
	}
	if len(ans.Translations) != len(texts) {
		return nil, errUnexpected
	}
	out := make([][]Translation, len(texts))
	for i, t := range ans.Translations {
		out[i] = []Translation{{Text: t.Text, Quality: deeplService.MaxScore, Service: deeplService.Name,
			Source: texts[i]}}
	}
	return out, nil
}
