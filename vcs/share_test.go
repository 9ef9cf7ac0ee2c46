package vcs

import (
	"slices"
	"testing"
)

// Two checkouts of one upstream: A's local commits reach B as objects,
// and stay local in B (a pull there re-applies them).
func TestLocalObjectsCarryCommits(t *testing.T) {
	url := mustBareRepo(t, map[string]string{"a.json": "{}\n", "sub/b.json": "{}\n", "c.json": "{}\n"})
	a, b := mustClone(t, url), mustClone(t, url)
	base := mustHead(t, a)

	lc, err := a.LocalObjects()
	if err != nil {
		t.Fatal(err)
	}
	if lc.Head != base || lc.Base != base || len(lc.Objects) != 0 {
		t.Fatalf("fresh clone: %+v, want nothing local on %s", lc, base)
	}

	first := mustCommit(t, a, map[string]string{"sub/b.json": `{"x": "1"}` + "\n"})
	second := mustCommit(t, a, map[string]string{"a.json": `{"y": "2"}` + "\n"})
	lc, err = a.LocalObjects()
	if err != nil {
		t.Fatal(err)
	}
	// Two commits; their root trees; sub/ and its new blob; a.json's
	// new blob. c.json and the unchanged blobs are upstream's.
	var types []string
	for _, o := range lc.Objects {
		types = append(types, o.Type)
	}
	slices.Sort(types)
	want := []string{"blob", "blob", "commit", "commit", "tree", "tree", "tree"}
	if lc.Head != second || lc.Base != base || !slices.Equal(types, want) {
		t.Fatalf("local objects: head %s base %s types %v, want %s %s %v", lc.Head, lc.Base, types, second, base, want)
	}
	// Known commits bound the walk: only what came after.
	since, err := a.LocalObjects(first)
	if err != nil {
		t.Fatal(err)
	}
	if since.Known != first || since.Base != "" || len(since.Objects) != 3 {
		t.Fatalf("since %s: known %q base %q %d objects, want 3", first, since.Known, since.Base, len(since.Objects))
	}

	if ok, err := b.HasCommit(second); err != nil || ok {
		t.Fatalf("B has A's commit before any write: %v, %v", ok, err)
	}
	if err := b.WriteObjects(lc.Objects); err != nil {
		t.Fatal(err)
	}
	if err := b.MoveTo(lc.Head, lc.Base); err != nil {
		t.Fatal(err)
	}
	if got := mustReadFile(t, b, "sub/b.json"); got != `{"x": "1"}`+"\n" {
		t.Errorf("B reads %q", got)
	}
	if got := mustReadFile(t, b, "a.json"); got != `{"y": "2"}`+"\n" {
		t.Errorf("B reads %q", got)
	}
	d, err := b.Diverge()
	if err != nil {
		t.Fatal(err)
	}
	if d.Head != second || d.Base != base || !slices.Equal(d.Local, []string{"a.json", "sub/b.json"}) {
		t.Fatalf("B after the move: %+v, want head %s base %s", d, second, base)
	}
	// B commits on top, as if it had made A's commits itself.
	third := mustCommit(t, b, map[string]string{"c.json": `{"z": "3"}` + "\n"})
	if lc, err := b.LocalObjects(second); err != nil || lc.Known != second || len(lc.Objects) != 3 || lc.Head != third {
		t.Fatalf("B's own commit: %+v, %v", lc, err)
	}
}

func TestWriteObjectsChecksHashes(t *testing.T) {
	r := mustClone(t, mustBareRepo(t, map[string]string{"a.json": "{}\n"}))
	err := r.WriteObjects([]Object{{Hash: "0123456789012345678901234567890123456789", Type: "blob", Data: []byte("x")}})
	if err == nil {
		t.Fatal("an object whose content does not match its name was written")
	}
	if err := r.WriteObjects([]Object{{Hash: "c1b0730e0133447badcfd47fd144e254807b06e1", Type: "blob", Data: []byte("x")}}); err != nil {
		t.Fatal(err)
	}
}
