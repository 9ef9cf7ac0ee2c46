package sqlstore_test

import (
	"context"
	"testing"

	"github.com/tolk-project/tolk/index"
)

func TestGitHeads(t *testing.T) {
	a, b := twoProcesses(t)
	defer a.Close()
	defer b.Close()
	ctx := context.Background()
	c := mustComponent(t, a)
	if _, ok, err := b.GitHead(ctx, c.ID); err != nil || ok {
		t.Fatalf("GitHead before any record = %v, %v", ok, err)
	}
	blob := index.GitObject{Hash: "b1", Type: "blob", Data: []byte{0, 1, 2, 0xff}}
	if err := a.RecordGitHead(ctx, index.GitHead{ComponentID: c.ID, Head: "h1", Base: "up",
		Objects: []index.GitObject{blob}}); err != nil {
		t.Fatal(err)
	}
	// Added objects accumulate, one row per hash.
	if err := a.RecordGitHead(ctx, index.GitHead{ComponentID: c.ID, Head: "h2", Base: "up",
		Objects: []index.GitObject{blob, {Hash: "c2", Type: "commit", Data: []byte("x")}}}); err != nil {
		t.Fatal(err)
	}
	h, ok, err := b.GitHead(ctx, c.ID)
	if err != nil || !ok || h.Head != "h2" || h.Base != "up" {
		t.Fatalf("GitHead = %+v, %v, %v", h, ok, err)
	}
	objs, err := b.GitObjects(ctx, c.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != 2 {
		t.Fatalf("objects = %+v, want 2", objs)
	}
	for _, o := range objs {
		if o.Hash == "b1" && string(o.Data) != string(blob.Data) {
			t.Errorf("blob data = %v, want %v", o.Data, blob.Data)
		}
	}
	if err := a.RecordGitHead(ctx, index.GitHead{ComponentID: c.ID, Head: "up2", Base: "up2", Replace: true}); err != nil {
		t.Fatal(err)
	}
	if objs, err := b.GitObjects(ctx, c.ID); err != nil || len(objs) != 0 {
		t.Fatalf("objects after a replace = %d, %v", len(objs), err)
	}
	if err := a.RecordGitHead(ctx, index.GitHead{ComponentID: c.ID + 1000, Head: "x"}); err == nil {
		t.Error("a head recorded for a component that does not exist")
	}
}
