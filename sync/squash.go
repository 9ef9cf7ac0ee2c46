package sync

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/vcs"
)

// The weblate.git.squash add-on (index.AddonSquash): after Tolk commits,
// the commits upstream lacks are squashed, before any push, into one
// (all), one per language, one per file, or one per run of one author's
// commits (author: the reference cherry-picks each author's commits
// together, reordering history and risking conflicts; Tolk squashes
// consecutive commits of one author in place, so no content moves).
// Without a commit_message the squashed commits' messages, made from the
// component's templates, are kept, each once; append_trailers keeps
// their trailers (Translation:, Translate-URL:, Co-authored-by:) once
// each at the end, and names the other authors as Co-authored-by when a
// commit stands for several.

// AddonStore finds the add-ons a component's git jobs apply (part of
// Store).
type AddonStore interface {
	FindAddons(ctx context.Context, f index.AddonFilter) ([]index.Addon, error)
}

// squashLocked squashes c's checkout as c's squash add-on (its own,
// else its project's) says, if it has one, replacing res.Commits with
// the commits made; links are the components linked to c. The caller
// holds the lock and has just committed.
func (s *Service) squashLocked(ctx context.Context, repo *vcs.Repo, c index.Component, links []index.Component,
	jc *jobCache, res *index.CommitResult) error {
	all, err := jc.covering(ctx, c)
	if err != nil {
		return err
	}
	a, ok := componentAddon(all, index.AddonSquash)
	if !ok || repo.URL() == "" {
		return nil
	}
	masks := checkoutMasks(c, links)
	committer := s.opts.Committer
	var squashed int
	made, err := repo.Squash(committer, func(local []vcs.LocalCommit) []vcs.SquashStep {
		squashed = len(local)
		return squashPlan(a.Squash, local, masks, committer, func(lang string) string {
			return s.squashMessage(a, c, lang)
		})
	})
	if errors.Is(err, vcs.ErrNothingToSquash) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s/%s: squash: %w", c.Project.Slug, c.Slug, err)
	}
	res.Commits = made
	if err := s.recordHead(ctx, c, repo); err != nil {
		return err
	}
	// The reference logs an add-on's runs in its own activity log, which
	// its API does not serve; Tolk records the squash in the component's
	// change log as the commit it is (17, "Changes committed"), by no
	// user, its text saying what the add-on did, so the history shows
	// why upstream receives fewer commits than were made.
	if err := s.store.RecordRepositoryChange(ctx, c.ID, index.ActionCommit, 0,
		squashSummary(a, squashed, len(made))); err != nil {
		return err
	}
	s.opts.Logger.Info("commits squashed", "project", c.Project.Slug, "component", c.Slug,
		"mode", a.Squash.Mode, "commits", len(made))
	return nil
}

// squashSummary is the text of a squash's change: how many commits
// became how many, by which add-on and mode.
func squashSummary(a index.Addon, from, to int) string {
	return fmt.Sprintf("Squashed %d commits into %d (%s, %s)", from, to, a.Name, a.Squash.Mode)
}

// checkoutMasks are the filemasks of c and of links, the components
// linked to it, which tell a path's language.
func checkoutMasks(c index.Component, links []index.Component) []*Filemask {
	var out []*Filemask
	for _, k := range append([]index.Component{c}, links...) {
		if m, err := componentMask(k); err == nil {
			out = append(out, m)
		}
	}
	return out
}

// squashMessage renders a's commit_message for c (and a language, in
// language mode); "" when a has none or it does not render.
func (s *Service) squashMessage(a index.Addon, c index.Component, lang string) string {
	if a.Squash.CommitMessage == "" {
		return ""
	}
	vars := MessageVars{LanguageCode: lang, LanguageName: lang, ProjectName: c.Project.Name,
		ProjectSlug: c.Project.Slug, ComponentName: c.Name, ComponentSlug: c.Slug, AddonName: a.Name,
		ComponentRemoteBranch: c.Branch, SiteTitle: "Tolk", SiteURL: s.opts.SiteURL,
		URL: fmt.Sprintf("%s/projects/%s/%s/", s.opts.SiteURL, c.Project.Slug, c.Slug)}
	if l, ok := s.langs.Resolve(lang); ok && lang != "" {
		vars.LanguageName = l.Name
	}
	msg, err := RenderMessage(a.Squash.CommitMessage, vars)
	if err != nil {
		return ""
	}
	return msg
}

// squashPlan groups local commits as q says into the steps of a squash.
// custom renders the add-on's commit_message for a language ("" for
// none). Language and file groups take their paths as the last commit
// touching each left them (a path belongs to one group); author groups
// are the reference's cherry-picks: each author's commits in order, a
// later commit joining its author's group while no commit left out
// changed one of its files since (else the group ends there, as a
// failed cherry-pick ends it), so every file goes through the same
// versions in the same order.
func squashPlan(q index.Squash, local []vcs.LocalCommit, masks []*Filemask, committer vcs.Signature,
	custom func(lang string) string) []vcs.SquashStep {
	type group struct {
		key     string
		set     map[string]string
		commits []vcs.LocalCommit
	}
	var groups []*group
	find := func(key string) *group {
		for _, g := range groups {
			if g.key == key {
				return g
			}
		}
		g := &group{key: key, set: map[string]string{}}
		groups = append(groups, g)
		return g
	}
	langOf := func(p string) string {
		for _, m := range masks {
			if code, ok := m.Code(p); ok {
				return code
			}
		}
		return ""
	}
	switch q.Mode {
	case index.SquashLanguage, index.SquashFile:
		for _, lc := range local {
			for _, p := range lc.Paths {
				key := p
				if q.Mode == index.SquashLanguage {
					key = langOf(p)
				}
				g := find(key)
				g.set[p] = lc.Changes[p][1]
				if len(g.commits) == 0 || g.commits[len(g.commits)-1].Hash != lc.Hash {
					g.commits = append(g.commits, lc)
				}
			}
		}
	case index.SquashAuthor:
		current := map[string]string{} // path → blob as the steps so far leave it: upstream's at first
		for _, lc := range local {
			for p, ch := range lc.Changes {
				if _, ok := current[p]; !ok {
					current[p] = ch[0]
				}
			}
		}
		picks := func(lc vcs.LocalCommit) bool {
			for p, ch := range lc.Changes {
				if current[p] != ch[0] {
					return false
				}
			}
			return true
		}
		apply := func(g *group, lc vcs.LocalCommit) {
			for p, ch := range lc.Changes {
				current[p], g.set[p] = ch[1], ch[1]
			}
			g.commits = append(g.commits, lc)
		}
		left := slices.Clone(local)
		for len(left) > 0 {
			first := left[0]
			g := &group{key: first.Author.Email, set: map[string]string{}}
			groups = append(groups, g)
			apply(g, first)
			var rest []vcs.LocalCommit
			stopped := false
			for _, lc := range left[1:] {
				if !stopped && lc.Author.Email == first.Author.Email {
					if picks(lc) {
						apply(g, lc)
						continue
					}
					stopped = true
				}
				rest = append(rest, lc)
			}
			left = rest
		}
	default: // all
		groups = []*group{{commits: local}}
	}
	steps := make([]vcs.SquashStep, 0, len(groups))
	for _, g := range groups {
		lang := ""
		if q.Mode == index.SquashLanguage {
			lang = g.key
		}
		author, msg := squashMessageOf(g.commits, q.AppendTrailers, custom(lang), committer)
		steps = append(steps, vcs.SquashStep{Author: author, Message: msg, Set: g.set})
	}
	return steps
}

// trailerLine matches a git trailer, "Token: value".
var trailerLine = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9-]*: \S`)

// splitTrailers splits a commit message into its body and its trailers
// (the last paragraph, when every line of it is one).
func splitTrailers(msg string) (string, []string) {
	msg = strings.TrimRight(msg, "\n")
	i := strings.LastIndex(msg, "\n\n")
	if i < 0 {
		return msg, nil
	}
	lines := strings.Split(msg[i+2:], "\n")
	for _, l := range lines {
		if !trailerLine.MatchString(l) {
			return msg, nil
		}
	}
	return msg[:i], lines
}

// squashMessageOf is the author and message of the commit that stands
// for commits: their one author, else the committer; their bodies each
// once (or custom), then, with trailers, their trailers each once and a
// Co-authored-by for each author when there are several.
func squashMessageOf(commits []vcs.LocalCommit, trailers bool, custom string, committer vcs.Signature) (vcs.Signature, string) {
	var bodies, tails []string
	add := func(list []string, s string) []string {
		if s == "" || slices.Contains(list, s) {
			return list
		}
		return append(list, s)
	}
	var authors []vcs.Signature
	for _, c := range commits {
		body, tr := splitTrailers(c.Message)
		bodies = add(bodies, body)
		for _, t := range tr {
			tails = add(tails, t)
		}
		if !slices.ContainsFunc(authors, func(a vcs.Signature) bool { return a.Email == c.Author.Email }) {
			authors = append(authors, c.Author)
		}
	}
	author := committer
	if len(authors) == 1 {
		author = authors[0]
	} else {
		for _, a := range authors {
			tails = add(tails, fmt.Sprintf("Co-authored-by: %s <%s>", a.Name, a.Email))
		}
	}
	author.When = commits[len(commits)-1].Author.When
	msg := strings.Join(bodies, "\n\n")
	if custom != "" {
		msg = strings.TrimRight(custom, "\n")
	}
	if trailers && len(tails) > 0 {
		msg += "\n\n" + strings.Join(tails, "\n")
	}
	return author, msg + "\n"
}

// flagAddons is what the flag add-ons that apply to c do to the units
// its imports create (index.NewUnitFlags).
func flagAddons(ctx context.Context, jc *jobCache, c index.Component) (index.NewUnitFlags, error) {
	var f index.NewUnitFlags
	all, err := jc.covering(ctx, c)
	if err != nil {
		return f, err
	}
	for _, a := range all {
		if index.IsFlagAddon(a.Name) {
			f.Set(a.Name, &c)
		}
	}
	// A project's source_edit skips the components it does not fit.
	f.SourceEdit = f.SourceEdit && c.EditTemplate && c.IsMonolingual()
	return f, nil
}
