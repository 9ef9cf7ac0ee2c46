package machinery_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tolk-project/tolk/machinery"
)

// chatRequest is what a chat completions request carries.
type chatRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"messages"`
	Temperature      *float64 `json:"temperature"`
	FrequencyPenalty *float64 `json:"frequency_penalty"`
	PresencePenalty  *float64 `json:"presence_penalty"`
}

// fakeChat speaks OpenAI's documented chat completions API
// (https://platform.openai.com/docs/api-reference/chat), as OpenAI and
// Azure OpenAI serve it: no model can be reached from here, so the
// engine's requests are checked against it. Its "model" translates a
// text by wrapping it in the target language's code, and answers with
// the separator surrounded by the spaces models add.
type fakeChat struct {
	auth   func(r *http.Request) bool
	models []string
	// answer, when set, replaces the answer's content.
	answer func(texts []string) string

	mu       sync.Mutex
	requests []chatRequest
	paths    []string
}

const separator = "\n==WEBLATE_PART==\n"

func (f *fakeChat) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !f.auth(r) {
		w.WriteHeader(401)
		fmt.Fprintf(w, `{"error":{"message":"Incorrect API key provided: %s","type":"invalid_request_error"}}`,
			r.Header.Get("Authorization")+r.Header.Get("api-key"))
		return
	}
	f.mu.Lock()
	f.paths = append(f.paths, r.Method+" "+r.URL.RequestURI())
	f.mu.Unlock()
	switch {
	case strings.HasSuffix(r.URL.Path, "/models") && r.Method == http.MethodGet:
		var data []map[string]string
		for _, m := range f.models {
			data = append(data, map[string]string{"id": m, "object": "model"})
		}
		json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data})
	case strings.HasSuffix(r.URL.Path, "/chat/completions") && r.Method == http.MethodPost:
		var req chatRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Messages) != 2 {
			w.WriteHeader(400)
			fmt.Fprint(w, `{"error":{"message":"bad request"}}`)
			return
		}
		f.mu.Lock()
		f.requests = append(f.requests, req)
		f.mu.Unlock()
		texts := strings.Split(req.Messages[1].Content, separator)
		var content string
		if f.answer != nil {
			content = f.answer(texts)
		} else {
			out := make([]string, len(texts))
			for i, t := range texts {
				out[i] = "DE(" + t + ")"
			}
			content = strings.Join(out, "\n ==WEBLATE_PART==  \n")
		}
		json.NewEncoder(w).Encode(map[string]any{"id": "chatcmpl-1", "object": "chat.completion",
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": content}}}})
	default:
		http.NotFound(w, r)
	}
}

// TestOpenAIProtocol: the OpenAI engine picks the first model of the
// reference's list the key may use, sends the reference's prompt (the
// languages, persona and style ending in a full stop, the separator for
// a batch, the glossary terms found in the batch's texts) with
// temperature 0, 20 texts a request, and splits the answer at the
// separator; a key the service refuses is an error without the key.
func TestOpenAIProtocol(t *testing.T) {
	const key = "sk-openai-secret"
	db, project := glossaryDB(t)
	fake := &fakeChat{models: []string{"whisper-1", "gpt-4o", "gpt-4"},
		auth: func(r *http.Request) bool { return r.Header.Get("Authorization") == "Bearer "+key }}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	b := mustBroker(t, machinery.Options{Glossary: db, Site: map[string]machinery.Config{"openai": {"key": key,
		"base_url": srv.URL + "/v1/", "persona": "You are a squirrel breeder", "style": "Use informal language."}}})
	texts := make([]string, 25)
	for i := range texts {
		texts[i] = fmt.Sprintf("String %d", i)
	}
	texts[3], texts[22] = "An apple a day", "Under the pear tree"
	got, err := b.Translate(context.Background(), mustFind(t, b, "openai"), machinery.Request{
		SourceLanguage: "en", TargetLanguage: "de", ProjectID: project, Texts: texts})
	if err != nil {
		t.Fatal(err)
	}
	for i, list := range got {
		if len(list) != 1 || list[0].Text != "DE("+texts[i]+")" || list[0].Quality != 90 || list[0].Service != "OpenAI" ||
			list[0].Source != texts[i] {
			t.Errorf("text %d: %+v", i, list)
		}
	}
	if want := []string{"GET /v1/models", "POST /v1/chat/completions", "POST /v1/chat/completions"}; !slices.Equal(fake.paths, want) {
		t.Errorf("requests %q, want %q", fake.paths, want)
	}
	for i, req := range fake.requests {
		sys, user := req.Messages[0], req.Messages[1]
		batch := texts[i*20 : min(i*20+20, len(texts))]
		if req.Model != "gpt-4o" || sys.Role != "system" || user.Role != "user" ||
			user.Content != strings.Join(batch, separator) || req.Temperature == nil || *req.Temperature != 0 ||
			req.FrequencyPenalty == nil || req.PresencePenalty == nil {
			t.Errorf("request %d: %+v", i, req)
		}
		for _, want := range []string{"from language 'en'\nto language 'de'", "You are a squirrel breeder.\n",
			"Use informal language.\n", "You always reply with translated string only.",
			"You receive an input as strings separated by " + separator} {
			if !strings.Contains(sys.Content, want) {
				t.Errorf("request %d: the prompt lacks %q:\n%s", i, want, sys.Content)
			}
		}
		// Each batch's glossary has the terms its texts hold.
		wantTerm, otherTerm := "apple\tApfel", "pear tree\tBirnbaum"
		if i == 1 {
			wantTerm, otherTerm = otherTerm, wantTerm
		}
		if !strings.Contains(sys.Content, "Use the following glossary during the translation:\n") ||
			!strings.Contains(sys.Content, wantTerm) || strings.Contains(sys.Content, otherTerm) {
			t.Errorf("request %d: glossary in the prompt:\n%s", i, sys.Content)
		}
	}

	// One text: no separator in the prompt, no glossary without terms.
	fake.requests = nil
	if _, err := b.Translate(context.Background(), mustFind(t, b, "openai"), machinery.Request{
		SourceLanguage: "en", TargetLanguage: "de", ProjectID: project, Texts: []string{"Hello"}}); err != nil {
		t.Fatal(err)
	}
	if sys := fake.requests[0].Messages[0].Content; strings.Contains(sys, "WEBLATE_PART") || strings.Contains(sys, "glossary") {
		t.Errorf("prompt for one text without terms:\n%s", sys)
	}

	// An answer with the wrong number of parts, or none, is an error.
	for _, answer := range []func([]string) string{
		func([]string) string { return "Hallo" },
		func([]string) string { return "" },
	} {
		fake.answer = answer
		_, err := b.Translate(context.Background(), mustFind(t, b, "openai"), machinery.Request{
			SourceLanguage: "en", TargetLanguage: "de", Texts: []string{"a", "b"}})
		if err == nil || !strings.HasPrefix(err.Error(), "OpenAI: ") {
			t.Errorf("a bad answer: %v", err)
		}
	}
	fake.answer = nil

	// A wrong key: OpenAI's error message, without the key.
	bad := mustBroker(t, machinery.Options{Site: map[string]machinery.Config{"openai": {"key": "sk-other-secret",
		"base_url": srv.URL + "/v1"}}})
	_, err = bad.Translate(context.Background(), mustFind(t, bad, "openai"), machinery.Request{
		SourceLanguage: "en", TargetLanguage: "de", Texts: []string{"x"}})
	if err == nil || !strings.Contains(err.Error(), "HTTP 401: Incorrect API key provided") || strings.Contains(err.Error(), "sk-other-secret") {
		t.Errorf("wrong key: %v", err)
	}

	// A model the key may not use, a custom model used as named.
	for _, c := range []struct {
		cfg  machinery.Config
		want string // the model asked for, or the error
	}{
		{machinery.Config{"model": "o3"}, "OpenAI: unsupported model: o3"},
		{machinery.Config{"model": "gpt-4"}, "gpt-4"},
		{machinery.Config{"model": "custom", "custom_model": "my-finetune"}, "my-finetune"},
	} {
		c.cfg["key"], c.cfg["base_url"] = key, srv.URL+"/v1"
		b := mustBroker(t, machinery.Options{Site: map[string]machinery.Config{"openai": c.cfg}})
		fake.requests = nil
		_, err := b.Translate(context.Background(), mustFind(t, b, "openai"), machinery.Request{
			SourceLanguage: "en", TargetLanguage: "de", Texts: []string{"x"}})
		got := ""
		if err != nil {
			got = err.Error()
		} else if len(fake.requests) == 1 {
			got = fake.requests[0].Model
		}
		if got != c.want {
			t.Errorf("%v: %q, want %q", c.cfg, got, c.want)
		}
	}
}

// TestAzureOpenAIProtocol: Azure OpenAI is asked at its deployment's
// path with the API version, the key in "api-key".
func TestAzureOpenAIProtocol(t *testing.T) {
	const key = "azure-secret"
	fake := &fakeChat{auth: func(r *http.Request) bool { return r.Header.Get("api-key") == key }}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	b := mustBroker(t, machinery.Options{Site: map[string]machinery.Config{"azure-openai": {"key": key,
		"azure_endpoint": srv.URL, "deployment": "my-gpt"}}})
	got, err := b.Translate(context.Background(), mustFind(t, b, "azure-openai"), machinery.Request{
		SourceLanguage: "en", TargetLanguage: "de", Texts: []string{"Hello", "World"}})
	if err != nil {
		t.Fatal(err)
	}
	if got[1][0].Text != "DE(World)" || got[1][0].Service != "Azure OpenAI" {
		t.Errorf("got %+v", got)
	}
	if want := []string{"POST /openai/deployments/my-gpt/chat/completions?api-version=2024-06-01"}; !slices.Equal(fake.paths, want) ||
		fake.requests[0].Model != "my-gpt" {
		t.Errorf("requests %q (model %q), want %q", fake.paths, fake.requests[0].Model, want)
	}
}

// TestLLMTimeout: an LLM that does not answer is cut at LLMTimeout, not
// the other engines' Timeout, and the error names it.
func TestLLMTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	b := mustBroker(t, machinery.Options{Timeout: 100 * time.Millisecond, LLMTimeout: 700 * time.Millisecond,
		Site: map[string]machinery.Config{"openai": {"key": "k", "base_url": srv.URL, "model": "custom",
			"custom_model": "m"}}})
	start := time.Now()
	_, err := b.Translate(context.Background(), mustFind(t, b, "openai"), machinery.Request{
		SourceLanguage: "en", TargetLanguage: "de", Texts: []string{"x"}})
	took := time.Since(start)
	var me *machinery.Error
	if !errors.As(err, &me) || me.Service != "OpenAI" || !strings.Contains(err.Error(), "no answer within 700ms") ||
		took < 600*time.Millisecond || took > 3*time.Second {
		t.Errorf("after %v: %v", took, err)
	}
}
