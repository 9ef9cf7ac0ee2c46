package sync

import "sync/atomic"

// SetAfterGitCommit installs a hook that runs between a commit's git
// commits and its index update; an error it returns stands for a crash
// there.
func SetAfterGitCommit(s *Service, fn func() error) { s.afterGitCommit = fn }

// SetPullStep installs a hook that runs at the steps of a pull that moved
// the branch ("moved", "imported"), to interrupt it there.
func SetPullStep(s *Service, fn func(step string)) { s.onPullStep = fn }

// CountAddonReads makes s count its git jobs' reads of add-ons into n.
func CountAddonReads(s *Service, n *atomic.Int64) { s.addonReads = n }
