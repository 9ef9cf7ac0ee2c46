package web_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tolk-project/tolk/edge"
	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/internal/apytest"
	"github.com/tolk-project/tolk/internal/servertest"
	"github.com/tolk-project/tolk/machinery"
)

// BenchmarkMachinery measures the editor's endpoint against a real
// Apertium APy: "apy-direct" is APy's own time for the string (one GET
// /translate, what the engine costs anyway), "endpoint-apertium" the
// editor's POST /js/translate/apertium-apy/<unit>/ for the same string
// (sign-in, unit and project lookups, settings, the limit, the engine
// call, the answer); their difference is Tolk's overhead.
// "endpoint-weblate" is the internal service, no engine at all.
//
//	go test ./web -run '^$' -bench Machinery -benchtime 200x -count 5
func BenchmarkMachinery(b *testing.B) {
	apy := apytest.Start(b)
	env := servertest.New(b, servertest.WithOptions(func(o *servertest.Options) {
		o.Machinery = machinery.Options{Site: map[string]machinery.Config{"apertium-apy": {"url": apy}, "weblate": {}}}
		o.MachineryRateLimit = edge.RateLimit{Requests: 1 << 30, Period: 1 << 40}
	}))
	_, units := seedSpanish(b, env.DB, index.AccessPublic)
	auth := servertest.MustUser(b, env.DB, "anna", false, [2]string{"Translate", "tienda"})
	client := &http.Client{}
	post := func(b *testing.B, service, unit, want string) {
		req, _ := http.NewRequest("POST", env.URL+"/js/translate/"+service+"/"+strconv.FormatInt(units[unit], 10)+"/", nil)
		req.Header.Set("Authorization", auth)
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !strings.Contains(string(body), want) {
			b.Fatalf("%s: %s", service, body)
		}
	}
	direct := func(b *testing.B) {
		q := url.Values{"langpair": {"eng|spa"}, "q": {"The page was not found."}, "markUnknown": {"no"}}
		resp, err := client.Get(apy + "/translate?" + q.Encode())
		if err != nil {
			b.Fatal(err)
		}
		var ans struct {
			ResponseData struct{ TranslatedText string }
		}
		err = json.NewDecoder(resp.Body).Decode(&ans)
		resp.Body.Close()
		if err != nil || ans.ResponseData.TranslatedText != "La página no fue encontrada." {
			b.Fatalf("%v %+v", err, ans)
		}
	}
	b.Run("apy-direct", func(b *testing.B) {
		for b.Loop() {
			direct(b)
		}
	})
	// paired runs both, one after the other, each iteration, and
	// reports the mean difference: APy's own time varies with the
	// machine's load more than Tolk's overhead does, and pairing takes
	// that drift out.
	b.Run("paired", func(b *testing.B) {
		var overhead time.Duration
		for b.Loop() {
			t0 := time.Now()
			direct(b)
			t1 := time.Now()
			post(b, "apertium-apy", "ui/missing", "La página no fue encontrada.")
			overhead += time.Since(t1) - t1.Sub(t0)
		}
		b.ReportMetric(float64(overhead.Microseconds())/float64(b.N), "overhead-µs/op")
	})
	b.Run("endpoint-apertium", func(b *testing.B) {
		for b.Loop() {
			post(b, "apertium-apy", "ui/missing", "La página no fue encontrada.")
		}
	})
	b.Run("endpoint-weblate", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			post(b, "weblate", "ui/save", `"text":"Guardar"`)
		}
	})
}
