package machinery_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/internal/apytest"
	"github.com/tolk-project/tolk/machinery"
)

// site returns a Broker whose only services are the site-wide ones
// given, which may name loopback (the test servers).
func mustBroker(t *testing.T, opts machinery.Options) *machinery.Broker {
	t.Helper()
	b, err := machinery.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustFind(t *testing.T, b *machinery.Broker, id string) machinery.Configured {
	t.Helper()
	c, err := b.Find(nil, id)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestApertiumReal translates English into Spanish with a real APy
// (apertium-eng-spa), through the reference's code mapping: Tolk's "en"
// and "es" are APy's "eng" and "spa".
func TestApertiumReal(t *testing.T) {
	url := apytest.Start(t)
	b := mustBroker(t, machinery.Options{Site: map[string]machinery.Config{"apertium-apy": {"url": url}}})
	c := mustFind(t, b, "apertium-apy")
	got, err := b.Translate(context.Background(), c, machinery.Request{SourceLanguage: "en", TargetLanguage: "es",
		Texts: []string{"The page was not found.", "Hello world"}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"La página no fue encontrada.", "Hola Mundo"}
	for i, w := range want {
		if len(got[i]) != 1 || got[i][0].Text != w || got[i][0].Quality != 88 || got[i][0].Service != "Apertium APy" {
			t.Errorf("text %d: got %+v, want %q at quality 88 from Apertium APy", i, got[i], w)
		}
	}
	// A pair APy lacks is unsupported, named.
	_, err = b.Translate(context.Background(), c, machinery.Request{SourceLanguage: "en", TargetLanguage: "de",
		Texts: []string{"Hello"}})
	var me *machinery.Error
	if !errors.Is(err, machinery.ErrUnsupported) || !errors.As(err, &me) || me.Service != "Apertium APy" {
		t.Errorf("en→de: %v, want ErrUnsupported from Apertium APy", err)
	}
}

// fakeLibre is a server speaking LibreTranslate's documented protocol
// (https://libretranslate.com/docs): no LibreTranslate can be installed
// here, so its parsing is tested against this.
func fakeLibre(t *testing.T, key string) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/languages":
			fmt.Fprint(w, `[{"code":"en","name":"English","targets":["en","es","pt-BR"]},{"code":"es","name":"Spanish","targets":["en"]}]`)
		case "/translate":
			var req struct {
				Q              []string `json:"q"`
				Source, Target string
				Format         string
				APIKey         string `json:"api_key"`
			}
			if err := json.NewDecoder(r.Body).Decode(&req); err != nil || r.Method != http.MethodPost {
				w.WriteHeader(400)
				fmt.Fprint(w, `{"error":"bad request"}`)
				return
			}
			if req.APIKey != key {
				w.WriteHeader(403)
				fmt.Fprintf(w, `{"error":"Invalid API key %s"}`, req.APIKey)
				return
			}
			out := make([]string, len(req.Q))
			for i, q := range req.Q {
				out[i] = req.Source + ">" + req.Target + ":" + strings.ToUpper(q)
			}
			json.NewEncoder(w).Encode(map[string]any{"translatedText": out})
		default:
			http.NotFound(w, r)
		}
	}))
}

func TestLibreTranslateProtocol(t *testing.T) {
	srv := fakeLibre(t, "right-key")
	defer srv.Close()
	b := mustBroker(t, machinery.Options{Site: map[string]machinery.Config{
		"libretranslate": {"url": srv.URL + "/", "key": "right-key"}}})
	texts := make([]string, 120) // more than one batch
	for i := range texts {
		texts[i] = fmt.Sprintf("text %d", i)
	}
	got, err := b.Translate(context.Background(), mustFind(t, b, "libretranslate"),
		machinery.Request{SourceLanguage: "en", TargetLanguage: "pt_BR", Texts: texts})
	if err != nil {
		t.Fatal(err)
	}
	for i, list := range got {
		want := "en>pt-BR:" + strings.ToUpper(texts[i])
		if len(list) != 1 || list[0].Text != want || list[0].Quality != 89 || list[0].Source != texts[i] {
			t.Fatalf("text %d: got %+v, want %q", i, list, want)
		}
	}
	// A wrong key: the service's message, with the key scrubbed.
	b = mustBroker(t, machinery.Options{Site: map[string]machinery.Config{
		"libretranslate": {"url": srv.URL, "key": "wrong-secret-key"}}})
	_, err = b.Translate(context.Background(), mustFind(t, b, "libretranslate"),
		machinery.Request{SourceLanguage: "en", TargetLanguage: "es", Texts: []string{"x"}})
	if err == nil || !strings.HasPrefix(err.Error(), "LibreTranslate: ") || !strings.Contains(err.Error(), "HTTP 403") ||
		strings.Contains(err.Error(), "wrong-secret-key") {
		t.Errorf("wrong key: %v; want LibreTranslate's 403 without the key", err)
	}
}

// TestDeepLProtocol checks DeepL's documented protocol against a server
// speaking it: the key in the Authorization header only, upper-case
// codes (EN source, PT-BR target), batches of 50, the service's
// message on errors without the key.
func TestDeepLProtocol(t *testing.T) {
	const key = "deepl-secret-key"
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "DeepL-Auth-Key "+key {
			w.WriteHeader(403)
			fmt.Fprintf(w, `{"message":"Wrong key %s"}`, strings.TrimPrefix(r.Header.Get("Authorization"), "DeepL-Auth-Key "))
			return
		}
		switch r.URL.Path {
		case "/v2/languages":
			if r.URL.Query().Get("type") == "source" {
				fmt.Fprint(w, `[{"language":"EN","name":"English"},{"language":"DE","name":"German"}]`)
			} else {
				fmt.Fprint(w, `[{"language":"DE","name":"German","supports_formality":true},{"language":"PT-BR","name":"Portuguese (Brazilian)"}]`)
			}
		case "/v2/translate":
			calls.Add(1)
			var req struct {
				Text       []string `json:"text"`
				SourceLang string   `json:"source_lang"`
				TargetLang string   `json:"target_lang"`
				Formality  string   `json:"formality"`
			}
			json.NewDecoder(r.Body).Decode(&req)
			if len(req.Text) > 50 {
				w.WriteHeader(413)
				return
			}
			var out []map[string]string
			for _, t := range req.Text {
				out = append(out, map[string]string{"detected_source_language": "EN",
					"text": req.SourceLang + ">" + req.TargetLang + "/" + req.Formality + ":" + t})
			}
			json.NewEncoder(w).Encode(map[string]any{"translations": out})
		}
	}))
	defer srv.Close()
	cfg := machinery.Config{"key": key, "url": srv.URL + "/v2/", "formality": "more"}
	b := mustBroker(t, machinery.Options{Site: map[string]machinery.Config{"deepl": cfg}})
	texts := make([]string, 75)
	for i := range texts {
		texts[i] = fmt.Sprint("s", i)
	}
	got, err := b.Translate(context.Background(), mustFind(t, b, "deepl"),
		machinery.Request{SourceLanguage: "en_US", TargetLanguage: "pt_BR", Texts: texts})
	if err != nil {
		t.Fatal(err)
	}
	if got[74][0].Text != "EN>PT-BR/more:s74" || got[74][0].Quality != 91 || calls.Load() != 2 {
		t.Errorf("got %+v in %d calls, want EN>PT-BR/more:s74 at 91 in 2", got[74], calls.Load())
	}
	bad := machinery.Config{"key": "other-secret", "url": srv.URL + "/v2"}
	b = mustBroker(t, machinery.Options{Site: map[string]machinery.Config{"deepl": bad}})
	_, err = b.Translate(context.Background(), mustFind(t, b, "deepl"),
		machinery.Request{SourceLanguage: "en", TargetLanguage: "de", Texts: []string{"x"}})
	if err == nil || !strings.HasPrefix(err.Error(), "DeepL: ") || strings.Contains(err.Error(), "other-secret") {
		t.Errorf("wrong key: %v; want DeepL's error without the key", err)
	}
}

// TestHostileEngines: an engine that hangs, answers garbage, a 500, a
// huge body or is unreachable gives an error naming it, within its
// timeout, and a good engine asked after them still answers.
func TestHostileEngines(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	languages := `[{"code":"en","targets":["es"]}]`
	serve := func(translate func(w http.ResponseWriter, r *http.Request)) string {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/languages" {
				fmt.Fprint(w, languages)
				return
			}
			translate(w, r)
		}))
		t.Cleanup(srv.Close)
		return srv.URL
	}
	hang := serve(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	garbage := serve(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "<html>not json") })
	wrongShape := serve(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, `{"translatedText": 42}`) })
	fiveHundred := serve(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(500) })
	huge := serve(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"translatedText": ["`)
		chunk := strings.Repeat("a", 1<<16)
		for range 200 { // 12.5 MiB, over the 4 MiB cap
			if _, err := fmt.Fprint(w, chunk); err != nil {
				return
			}
		}
		fmt.Fprint(w, `"]}`)
	})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	unreachable := "http://" + l.Addr().String()
	l.Close()
	good := fakeLibre(t, "")
	defer good.Close()

	const timeout = 500 * time.Millisecond
	b := mustBroker(t, machinery.Options{Timeout: timeout})
	cases := []struct {
		name, url, want string
	}{
		{"hang", hang, "no answer within 500ms"},
		{"garbage", garbage, "not the JSON expected"},
		{"wrong shape", wrongShape, "not the JSON expected"},
		{"500", fiveHundred, "HTTP 500"},
		{"huge", huge, "more than 4194304 bytes"},
		{"unreachable", unreachable, "not reached"},
	}
	req := machinery.Request{SourceLanguage: "en", TargetLanguage: "es", Texts: []string{"Hello"}}
	for _, tc := range cases {
		start := time.Now()
		_, err := b.Translate(context.Background(), machinery.Configured{Service: libre(t), Site: true,
			Config: machinery.Config{"url": tc.url}}, req)
		if took := time.Since(start); took > timeout+time.Second {
			t.Errorf("%s took %v with a %v timeout per engine", tc.name, took, timeout)
		}
		var me *machinery.Error
		if err == nil || !errors.As(err, &me) || me.Service != "LibreTranslate" || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error of LibreTranslate saying %q", tc.name, err, tc.want)
		}
	}
	got, err := b.Translate(context.Background(), machinery.Configured{Service: libre(t), Site: true,
		Config: machinery.Config{"url": good.URL}}, req)
	if err != nil || got[0][0].Text != "en>es:HELLO" {
		t.Errorf("the good engine after them: %+v, %v", got, err)
	}
}

func libre(t *testing.T) *machinery.Service {
	s, ok := machinery.Lookup("libretranslate")
	if !ok {
		t.Fatal("no libretranslate")
	}
	return s
}

// TestPrivateAddresses: a project's service may not name a loopback or
// private address, in its URL (Check) nor by a name or redirect that
// leads there (refused at dial time); the site's may, and so may a
// project's when the server allows it.
func TestPrivateAddresses(t *testing.T) {
	good := fakeLibre(t, "")
	defer good.Close()
	b := mustBroker(t, machinery.Options{})
	for _, u := range []string{good.URL, "http://localhost:1/", "http://10.1.2.3/", "http://[::1]:80/",
		"http://169.254.169.254/", "http://LOCALHOST./"} {
		problems := b.Check("libretranslate", machinery.Config{"url": u})
		if len(problems) != 1 || problems[0].Key != "url" || !strings.Contains(problems[0].Message, "private") {
			t.Errorf("Check(%s) = %v, want the url refused as private", u, problems)
		}
	}
	if p := b.Check("libretranslate", machinery.Config{"url": "https://libretranslate.example.com"}); p != nil {
		t.Errorf("a public URL: %v", p)
	}
	// A redirect from a public-looking place to loopback is refused at
	// the connection: here the configuration itself, given as a
	// project's without Check, stands in for a name resolving to
	// loopback.
	project := machinery.Configured{Service: libre(t), Config: machinery.Config{"url": good.URL}}
	_, err := b.Translate(context.Background(), project, machinery.Request{SourceLanguage: "en", TargetLanguage: "es",
		Texts: []string{"Hello"}})
	var private *index.PrivateAddressError
	if !errors.As(err, &private) || !strings.HasPrefix(err.Error(), "LibreTranslate: not reached") {
		t.Errorf("project engine on loopback: %v, want a PrivateAddressError", err)
	}
	allowed := mustBroker(t, machinery.Options{AllowPrivate: true})
	if p := allowed.Check("libretranslate", machinery.Config{"url": good.URL}); p != nil {
		t.Errorf("allowed: %v", p)
	}
	if _, err := allowed.Translate(context.Background(), project, machinery.Request{SourceLanguage: "en",
		TargetLanguage: "es", Texts: []string{"Hello"}}); err != nil {
		t.Errorf("allowed: %v", err)
	}
}

// TestCheck: the configuration problems a client is told about, by key.
func TestCheck(t *testing.T) {
	b := mustBroker(t, machinery.Options{AllowPrivate: true})
	cases := []struct {
		service string
		cfg     machinery.Config
		want    string // "key: message" of the first problem, "" for none
	}{
		{"deepl", machinery.Config{"key": "k"}, ""},
		{"deepl", machinery.Config{}, "key: This field is required."},
		{"deepl", machinery.Config{"key": "k", "formality": "rude"}, `formality: "rude" is not a valid choice.`},
		{"deepl", machinery.Config{"key": "k", "colour": "red"}, "colour: Unknown setting for DeepL."},
		{"apertium-apy", machinery.Config{"url": 12}, "url: Not a valid string."},
		{"apertium-apy", machinery.Config{"url": "ftp://x/"}, "url: Enter a valid http or https URL."},
		{"apertium-apy", machinery.Config{"url": "http://user:pw@x/"}, "url: Enter a valid http or https URL."},
		{"openai", machinery.Config{"key": "k"}, ""},
		{"openai", machinery.Config{"key": "k", "model": "gpt-5-turbo-max"}, `model: "gpt-5-turbo-max" is not a valid choice.`},
		{"openai", machinery.Config{"key": "k", "model": "custom"}, "custom_model: Missing custom model name."},
		{"openai", machinery.Config{"key": "k", "custom_model": "mine"}, "model: Choose custom model here to enable it."},
		{"openai", machinery.Config{"key": "k", "base_url": "file:///etc/passwd"}, "base_url: Enter a valid http or https URL."},
		{"azure-openai", machinery.Config{"key": "k", "azure_endpoint": "https://x.openai.azure.com"}, "deployment: This field is required."},
		{"azure-openai", machinery.Config{"key": "k", "deployment": "d"}, "azure_endpoint: This field is required."},
		{"nope", machinery.Config{}, `service: "nope" is not a valid choice.`},
		{"weblate", machinery.Config{}, "service: Weblate is not available on this server."},
		{"weblate-translation-memory", machinery.Config{}, "service: Weblate Translation Memory is not available on this server."},
	}
	for _, tc := range cases {
		got := ""
		if p := b.Check(tc.service, tc.cfg); len(p) > 0 {
			got = p[0].Key + ": " + p[0].Message
		}
		if got != tc.want {
			t.Errorf("Check(%s, %v) = %q, want %q", tc.service, tc.cfg, got, tc.want)
		}
	}
	if _, err := machinery.New(machinery.Options{Site: map[string]machinery.Config{"deepl": {}}}); err == nil ||
		!strings.Contains(err.Error(), "deepl: key: This field is required.") {
		t.Errorf("site settings without a key: %v", err)
	}
}

// TestConfigRedacts: a configuration logged shows no key.
func TestConfigRedacts(t *testing.T) {
	v := machinery.Config{"key": "s3cret", "url": "https://x/"}.LogValue().String()
	if strings.Contains(v, "s3cret") || !strings.Contains(v, "https://x/") {
		t.Errorf("LogValue = %s", v)
	}
}
