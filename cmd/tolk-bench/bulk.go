package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// bulkRounds is how many times each bulk write is timed; the report
// gives the median.
const bulkRounds = 7

// bulkResult is the writes section's bulk rows: an upload replacing
// every string of the biggest translation, and a string added to the
// component's source, which every translation gains.
type bulkResult struct {
	UploadUnits  int // units the uploaded file holds
	UploadChange int // accepted by each upload
	Upload       []time.Duration
	Translations int // of the component, which an added string reaches
	Add          []time.Duration
	Failure      string
}

// benchBulk times the bulk writes against the API at base as the bench
// user (auth): uploads of jellyfin/de with every value changed
// (method=translate, conflicts=replace-translated) and additions of a new
// string to jellyfin's source translation.
func benchBulk(ctx context.Context, c *http.Client, base, auth string) (*bulkResult, error) {
	tr := base + "/api/translations/bench/jellyfin/" + loadLanguage + "/"
	status, body, err := sendAuth(ctx, c, http.MethodGet, tr+"file/", auth, "", nil)
	if err != nil || status != http.StatusOK {
		return nil, fmt.Errorf("download %sfile/: %d %v", tr, status, err)
	}
	var doc any
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil, fmt.Errorf("the downloaded file: %w", err)
	}
	res := &bulkResult{}
	for round := range bulkRounds {
		n := 0
		changed := mapStrings(doc, func(s string) string {
			n++
			return s + " ·" + strconv.Itoa(round)
		})
		file, err := json.MarshalIndent(changed, "", "  ")
		if err != nil {
			return nil, err
		}
		res.UploadUnits = n
		t0 := time.Now()
		accepted, err := upload(ctx, c, tr+"file/", auth, file)
		if err != nil {
			res.Failure = err.Error()
			break
		}
		res.Upload = append(res.Upload, time.Since(t0))
		res.UploadChange = accepted
	}

	// The import leaves string management off, as the reference's default
	// for a component with no template key in its configuration.
	status, body, err = sendAuth(ctx, c, http.MethodPatch, base+"/api/components/bench/jellyfin/", auth,
		"application/json", []byte(`{"manage_units": true, "edit_template": true}`))
	if err != nil || status != http.StatusOK {
		return nil, fmt.Errorf("turn on manage_units and edit_template of jellyfin: %d %v %.200s", status, err, body)
	}
	status, body, err = sendAuth(ctx, c, http.MethodGet, base+"/api/components/bench/jellyfin/translations/?page_size=1000", auth, "", nil)
	if err != nil || status != http.StatusOK {
		return nil, fmt.Errorf("translations of jellyfin: %d %v", status, err)
	}
	var list struct {
		Count   int `json:"count"`
		Results []struct {
			URL      string `json:"url"`
			IsSource bool   `json:"is_source"`
		} `json:"results"`
	}
	if err := json.Unmarshal(body, &list); err != nil {
		return nil, fmt.Errorf("translations of jellyfin: %w", err)
	}
	res.Translations = list.Count
	var src string
	for _, t := range list.Results {
		if t.IsSource {
			src = t.URL
		}
	}
	if src == "" {
		return nil, fmt.Errorf("jellyfin has no source translation")
	}
	for round := range bulkRounds {
		payload, _ := json.Marshal(map[string]any{"key": "tolkBenchAdded" + strconv.Itoa(round),
			"value": []string{"A string tolk-bench added, number " + strconv.Itoa(round)}})
		t0 := time.Now()
		status, body, err := sendAuth(ctx, c, http.MethodPost, src+"units/", auth, "application/json", payload)
		if err != nil || status != http.StatusOK {
			res.Failure = fmt.Sprintf("add a string: %d %v %.200s", status, err, body)
			break
		}
		res.Add = append(res.Add, time.Since(t0))
	}
	return res, ctx.Err()
}

// mapStrings returns a copy of a decoded JSON document with f applied to
// every string value (keys stay).
func mapStrings(v any, f func(string) string) any {
	switch v := v.(type) {
	case string:
		return f(v)
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[k] = mapStrings(x, f)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = mapStrings(x, f)
		}
		return out
	}
	return v
}

// upload posts file to a translation's file URL as wlc upload
// --overwrite does, and returns how many strings it accepted.
func upload(ctx context.Context, c *http.Client, url, auth string, file []byte) (int, error) {
	var form bytes.Buffer
	mw := multipart.NewWriter(&form)
	fw, err := mw.CreateFormFile("file", "de.json")
	if err != nil {
		return 0, err
	}
	fw.Write(file)
	mw.WriteField("method", "translate")
	mw.WriteField("conflicts", "replace-translated")
	if err := mw.Close(); err != nil {
		return 0, err
	}
	status, body, err := sendAuth(ctx, c, http.MethodPost, url, auth, mw.FormDataContentType(), form.Bytes())
	if err != nil || status != http.StatusOK {
		return 0, fmt.Errorf("upload: %d %v %.200s", status, err, body)
	}
	var out struct {
		Accepted int `json:"accepted"`
	}
	if err := json.Unmarshal(body, &out); err != nil {
		return 0, fmt.Errorf("upload answer: %w", err)
	}
	return out.Accepted, nil
}

// sendAuth sends one request, with the Authorization header auth unless
// it is "", and returns the status and body.
func sendAuth(ctx context.Context, c *http.Client, method, url, auth, contentType string, body []byte) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, url, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}

func bulkTable(b *strings.Builder, r *bulkResult) {
	w := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	w("Bulk writes through the same API, each timed %d times, one after another (median, min and max; "+
		"issue 12's targets beside them):\n\n", bulkRounds)
	w("| write | median | min | max | target |\n|---|---:|---:|---:|---|\n")
	row := func(name string, ds []time.Duration, target string) {
		if len(ds) == 0 {
			w("| %s | — | — | — | %s |\n", name, target)
			return
		}
		w("| %s | %s | %s | %s | %s |\n", name, fmtDur(median(ds)), fmtDur(slices.Min(ds)), fmtDur(slices.Max(ds)), target)
	}
	row(fmt.Sprintf("upload of jellyfin/%s (%s strings in the file, every one changed; %s accepted), method=translate, "+
		"conflicts=replace-translated", loadLanguage, fmtInt(r.UploadUnits), fmtInt(r.UploadChange)), r.Upload, "< 150 ms")
	row(fmt.Sprintf("a string added to jellyfin's source (reaching its %d translations)", r.Translations), r.Add, "< 50 ms")
	if r.Failure != "" {
		w("\n**Error**: %s\n", r.Failure)
	}
	w("\n")
}
