package main

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestGlossaryTermAdded adds a term to the demo glossary through the API
// and commits: the TBX file gets a termEntry of its own, laid out like
// the others, and the other entries keep their bytes.
func TestGlossaryTermAdded(t *testing.T) {
	m := mustRunMain(t, t.TempDir())
	defer m.Close()
	base := "http://" + m.Addr().String()
	token := strings.TrimPrefix(adminToken(t, m), "Token ")
	file := func() string {
		t.Helper()
		resp := getAs(t, base+"/api/translations/demo/glossary/de/file/", "Token "+token)
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("file: %d %s", resp.StatusCode, body)
		}
		return string(body)
	}
	before := file()
	if code, body := send(t, http.MethodPatch, base+"/api/components/demo/glossary/", token,
		map[string]any{"manage_units": true}); code != http.StatusOK {
		t.Fatalf("PATCH component: %d %v", code, body)
	}
	if code, body := send(t, http.MethodPost, base+"/api/translations/demo/glossary/de/units/", token,
		map[string]any{"source": []string{"branch"}, "target": []string{"Zweig"}, "state": 20}); code != http.StatusOK {
		t.Fatalf("POST unit: %d %v", code, body)
	}
	if code, body := send(t, http.MethodPost, base+"/api/components/demo/glossary/repository/", token,
		map[string]string{"operation": "commit"}); code != http.StatusOK || body["result"] != true {
		t.Fatalf("commit: %d %v", code, body)
	}
	after := file()
	i := strings.LastIndex(before, "</termEntry>") + len("</termEntry>")
	if i < len("</termEntry>") {
		t.Fatalf("no termEntry in\n%s", before)
	}
	added := strings.TrimPrefix(after[:len(after)-len(before[i:])], before[:i])
	if !strings.HasPrefix(after, before[:i]) || !strings.HasSuffix(after, before[i:]) ||
		!strings.Contains(added, "<term>branch</term>") || !strings.Contains(added, "<term>Zweig</term>") {
		t.Fatalf("de.tbx after adding a term:\n%s\nbefore:\n%s", after, before)
	}
}
