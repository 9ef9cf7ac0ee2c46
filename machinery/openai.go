package machinery

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
)

// The LLM services: OpenAI's chat completions API and Azure OpenAI's,
// as the reference's openai.py has them (reference workspace §6.1),
// written against OpenAI's documented API
// (https://platform.openai.com/docs/api-reference/chat):
//
//   - POST {base_url}/chat/completions, header "Authorization: Bearer
//     KEY", JSON {"model", "messages": [{"role": "system", "content":
//     prompt}, {"role": "user", "content": texts}], "temperature": 0,
//     "frequency_penalty": 0, "presence_penalty": 0} →
//     {"choices": [{"message": {"content"}}]}; errors as {"error":
//     {"message"}};
//   - GET {base_url}/models → {"data": [{"id"}]}: the models the key may
//     use, read to pick one for "auto" and to refuse one it may not;
//   - Azure: POST {azure_endpoint}/openai/deployments/{deployment}/chat/completions?api-version=2024-06-01,
//     header "api-key: KEY", the same body and answer.
//
// The prompt is the reference's: the two languages, the project's
// persona and style, the texts of a batch joined by a separator line
// the answer repeats, and the glossary terms found in the texts as
// tab-separated pairs. Max score 90, the reference's. Unlike the
// reference, whose client retries for minutes, one call is bounded by
// Options.LLMTimeout.
var (
	openAIService = &Service{ID: "openai", Name: openAIName, MaxScore: llmMaxScore, LLM: true,
		Keys: []Key{{Name: "key", Required: true, Secret: true}, {Name: "base_url", URL: true},
			{Name: "model", Choices: openAIModels}, {Name: "custom_model"}, {Name: "persona"}, {Name: "style"}},
		check: checkOpenAI, newEngine: newOpenAI}
	azureOpenAIService = &Service{ID: "azure-openai", Name: azureOpenAIName, MaxScore: llmMaxScore, LLM: true,
		Keys: []Key{{Name: "key", Required: true, Secret: true}, {Name: "azure_endpoint", Required: true, URL: true},
			{Name: "deployment", Required: true}, {Name: "persona"}, {Name: "style"}},
		newEngine: newAzureOpenAI}
)

// openAIModels are the reference's model choices, in its order of
// preference for "auto".
var openAIModels = []string{"auto", "gpt-4o-mini", "gpt-4o", "o3-mini", "o3", "o1-mini", "o1", "gpt-4.5-preview",
	"gpt-4-turbo", "gpt-4", "gpt-3.5-turbo", "custom"}

const (
	openAIName       = "OpenAI"
	azureOpenAIName  = "Azure OpenAI"
	llmMaxScore      = 90
	openAIURL        = "https://api.openai.com/v1"
	azureAPIVersion  = "2024-06-01"
	llmBatch         = 20 // texts per request
	openAIModelsTTL  = time.Hour
	llmSeparator     = "\n==WEBLATE_PART==\n"
	msgCustomMissing = "Missing custom model name."
	msgCustomUnused  = "Choose custom model here to enable it."
)

// llmSeparatorRe splits an answer at the separator, with the spaces
// models put around it (the reference's SEPARATOR_RE).
var llmSeparatorRe = regexp.MustCompile(`\n *==WEBLATE_PART== *\n`)

// checkOpenAI: "custom" needs custom_model, and custom_model needs
// "custom", as the reference's form says.
func checkOpenAI(cfg Config) []FieldError {
	custom := cfg.String("custom_model") != ""
	switch model := cfg.String("model"); {
	case model == "custom" && !custom:
		return []FieldError{{"custom_model", msgCustomMissing}}
	case model != "custom" && custom:
		return []FieldError{{"model", msgCustomUnused}}
	}
	return nil
}

// llm is an OpenAI-compatible chat completions engine.
type llm struct {
	name           string // the service's
	persona, style string
	key            string
	http           *httpClient
	glossary       *glossaryReader
	// endpoint is the chat completions URL; auth sets the key's header.
	endpoint string
	auth     func(h http.Header)
	// model picks the model of each request.
	model func(ctx context.Context) (string, error)
}

func newOpenAI(cfg Config, env *env) (Engine, error) {
	base := cfg.String("base_url")
	if base == "" {
		base = openAIURL
	}
	key := cfg.String("key")
	e := &llm{name: openAIName, persona: cfg.String("persona"), style: cfg.String("style"), key: key,
		http: env.llm, glossary: env.glossary, endpoint: joinURL(base, "chat/completions"),
		auth: func(h http.Header) { h.Set("Authorization", "Bearer "+key) }}
	models := &openAIModelList{url: joinURL(base, "models"), e: e}
	model, custom := cfg.String("model"), cfg.String("custom_model")
	if model == "" {
		model = "auto"
	}
	e.model = func(ctx context.Context) (string, error) { return models.pick(ctx, model, custom) }
	return e, nil
}

func newAzureOpenAI(cfg Config, env *env) (Engine, error) {
	key, deployment := cfg.String("key"), cfg.String("deployment")
	endpoint := joinURL(cfg.String("azure_endpoint"), "openai", "deployments", url.PathEscape(deployment),
		"chat/completions") + "?api-version=" + azureAPIVersion
	return &llm{name: azureOpenAIName, persona: cfg.String("persona"), style: cfg.String("style"), key: key,
		http: env.llm, glossary: env.glossary, endpoint: endpoint,
		auth:  func(h http.Header) { h.Set("api-key", key) },
		model: func(context.Context) (string, error) { return deployment, nil }}, nil
}

// openAIModelList is the models an OpenAI key may use, read once an
// hour.
type openAIModelList struct {
	url string
	e   *llm

	mu      sync.Mutex // guards ids and fetched; held while reading them
	ids     []string
	fetched time.Time
}

// pick returns the model a request uses: the configured one if the key
// may use it, for "auto" the first of openAIModels it may use, for
// "custom" custom as given (the reference's get_model).
func (l *openAIModelList) pick(ctx context.Context, model, custom string) (string, error) {
	if model == "custom" {
		return custom, nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ids == nil || time.Since(l.fetched) >= openAIModelsTTL {
		req, err := http.NewRequest(http.MethodGet, l.url, nil)
		if err != nil {
			return "", err
		}
		l.e.auth(req.Header)
		var ans struct {
			Data []struct {
				ID string `json:"id"`
			} `json:"data"`
		}
		if err := l.e.http.call(ctx, req, &ans, l.e.key); err != nil {
			return "", err
		}
		l.ids = make([]string, 0, len(ans.Data))
		for _, m := range ans.Data {
			l.ids = append(l.ids, m.ID)
		}
		l.fetched = time.Now()
	}
	if slices.Contains(l.ids, model) {
		return model, nil
	}
	if model == "auto" {
		for _, m := range openAIModels[1 : len(openAIModels)-1] {
			if slices.Contains(l.ids, m) {
				return m, nil
			}
		}
	}
	return "", fmt.Errorf("unsupported model: %s", model)
}

// Translate asks the model for the texts, llmBatch at a time: any pair
// (the model is asked in the languages' codes, as the reference does).
func (e *llm) Translate(ctx context.Context, req Request) ([][]Translation, error) {
	terms, err := e.glossary.terms(ctx, req)
	if err != nil {
		return nil, err
	}
	model, err := e.model(ctx)
	if err != nil {
		return nil, err
	}
	out := make([][]Translation, 0, len(req.Texts))
	for texts := range slices.Chunk(req.Texts, llmBatch) {
		prompt := llmPrompt(req.SourceLanguage, req.TargetLanguage, e.persona, e.style, len(texts),
			glossaryTSV(termsIn(texts, req.SourceLanguage, terms)))
		got, err := e.complete(ctx, model, prompt, texts)
		if err != nil {
			return nil, err
		}
		out = append(out, got...)
	}
	return out, nil
}

// llmPrompt is the system message of a request for n texts (the
// reference's PROMPT, SEPARATOR_PROMPT and GLOSSARY_PROMPT).
func llmPrompt(source, target, persona, style string, n int, glossary string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\nYou are a highly skilled translation assistant, adept at translating text\n"+
		"from language '%s'\nto language '%s'\nwith precision and nuance.\n", source, target)
	b.WriteString(promptPart(persona) + "\n" + promptPart(style) + "\n")
	b.WriteString("You always reply with translated string only.\nYou do not include transliteration.\n")
	if n > 1 {
		b.WriteString("\nYou receive an input as strings separated by " + llmSeparator + " and\n" +
			"your answer separates strings by " + llmSeparator + ".\n")
	}
	b.WriteString("\n")
	if glossary != "" {
		b.WriteString("\nUse the following glossary during the translation:\n" + glossary + "\n")
	}
	return b.String()
}

// promptPart is a persona or style as the prompt has it: trimmed, ending
// with a full stop.
func promptPart(s string) string {
	s = strings.TrimSpace(s)
	if s != "" && !strings.HasSuffix(s, ".") {
		s += "."
	}
	return s
}

// complete sends one chat completion and splits its answer into one
// translation per text.
func (e *llm) complete(ctx context.Context, model, prompt string, texts []string) ([][]Translation, error) {
	body, err := json.Marshal(map[string]any{"model": model, "messages": []map[string]string{
		{"role": "system", "content": prompt}, {"role": "user", "content": strings.Join(texts, llmSeparator)}},
		"temperature": 0, "frequency_penalty": 0, "presence_penalty": 0})
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequest(http.MethodPost, e.endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	e.auth(req.Header)
	var ans struct {
		Choices []struct {
			Message struct {
				Content *string `json:"content"`
			} `json:"message"`
		} `json:"choices"`
	}
	if err := e.http.call(ctx, req, &ans, e.key); err != nil {
		return nil, err
	}
	if len(ans.Choices) == 0 || ans.Choices[0].Message.Content == nil || *ans.Choices[0].Message.Content == "" {
		return nil, errors.New("blank assistant reply")
	}
	parts := llmSeparatorRe.Split(*ans.Choices[0].Message.Content, -1)
	if len(parts) != len(texts) {
		return nil, fmt.Errorf("could not parse assistant reply, expected=%d, received=%d", len(texts), len(parts))
	}
	out := make([][]Translation, len(texts))
	for i, p := range parts {
		out[i] = []Translation{{Text: p, Quality: llmMaxScore, Service: e.name, Source: texts[i]}}
	}
	return out, nil
}
