package main

import (
	"io"
	"testing"
)

// TestAllowPrivateReposSetting: --allow-private-repos is off by default
// and turns on with the flag.
func TestAllowPrivateReposSetting(t *testing.T) {
	for _, args := range [][]string{nil, {"--allow-private-repos"}} {
		cfg, err := serveConfig(args, io.Discard)
		if err != nil || cfg.AllowPrivateRepos != (len(args) > 0) {
			t.Errorf("serveConfig(%q): AllowPrivateRepos %v (%v)", args, cfg.AllowPrivateRepos, err)
		}
	}
}
