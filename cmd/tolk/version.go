package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// version and revision, when set at link time (go build -ldflags "-X
// main.version=v1.2.3 -X main.revision=$(git rev-parse HEAD)"), win over
// what the toolchain recorded: a build from a Git worktree, or from a
// container context without .git, records no revision of its own.
var version, revision string

// buildVersion describes the binary from what the Go toolchain recorded
// in it: the module version (a tag when installed with go install
// module@v1.2.3, "devel" for a build from a checkout) and, when built
// from a Git checkout, the commit, its time and whether the tree had
// uncommitted changes.
type buildVersion struct {
	Version  string // module version, or "devel"
	Revision string // full commit hash; "" when not built from Git
	Time     string // commit time, RFC 3339
	Modified bool   // the checkout had uncommitted changes
	Go       string // toolchain, e.g. go1.26.8
}

func readBuildVersion() (v buildVersion) {
	v = buildVersion{Version: "devel", Go: runtime.Version()}
	defer func() {
		if version != "" {
			v.Version = version
		}
		if revision != "" {
			v.Revision, v.Time, v.Modified = revision, "", false
		}
	}()
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return v
	}
	if mv := info.Main.Version; mv != "" && mv != "(devel)" {
		v.Version = mv
	}
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Revision = s.Value
		case "vcs.time":
			v.Time = s.Value
		case "vcs.modified":
			v.Modified = s.Value == "true"
		}
	}
	return v
}

// Short is the version in one token, fit for a Server header and logs:
// "v1.2.3", or "devel+7dc3bed1a2b3" with the revision, "-dirty" when
// the checkout had changes.
func (v buildVersion) Short() string {
	s := v.Version
	if v.Revision != "" && v.Version == "devel" {
		s += "+" + v.Revision[:min(12, len(v.Revision))]
	}
	if v.Modified {
		s += "-dirty"
	}
	return s
}

// String is what tolk version prints.
func (v buildVersion) String() string {
	s := "tolk " + v.Short()
	if v.Revision != "" {
		s += fmt.Sprintf(" (revision %s", v.Revision)
		if v.Time != "" {
			s += ", " + v.Time
		}
		if v.Modified {
			s += ", modified"
		}
		s += ")"
	}
	return s + fmt.Sprintf(" %s %s/%s", v.Go, runtime.GOOS, runtime.GOARCH)
}
