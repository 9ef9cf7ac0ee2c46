package api

import (
	"testing"

	"github.com/tolk-project/tolk/edge"
	"github.com/tolk-project/tolk/index"
)

// TestUploadDeniedLocked checks that a locked component refuses every
// upload with the reference's reason, before the permissions are asked,
// and that the lock is the only difference. (The end-to-end tests cannot
// lock a component until the index can.)
func TestUploadDeniedLocked(t *testing.T) {
	root := &index.Principal{User: &index.User{ID: 1, IsActive: true, IsSuperuser: true}}
	translator := &index.Principal{User: &index.User{ID: 2, IsActive: true},
		Grants: []index.Grant{{UserID: 2, Role: "Translate", ProjectID: 7}}}
	tr := index.Translation{LanguageCode: "de", Filename: "de.json",
		Component: index.Component{ProjectID: 7, Template: "en.json", FileFormat: "json"}}
	for _, p := range []*index.Principal{root, translator} {
		if got := edge.UploadDenied(p, &tr); got != "" {
			t.Errorf("unlocked: uploadDenied = %q, want allowed", got)
		}
		locked := tr
		locked.Component.Locked = true
		if got := edge.UploadDenied(p, &locked); got != "This translation is currently locked." {
			t.Errorf("locked: uploadDenied = %q", got)
		}
	}
}
