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

// The weblate.discovery.discovery add-on (index.AddonDiscovery): the
// paths of its component's checkout (HEAD's tree, walked to at most
// index.MaxDiscoveryPaths entries: a bigger tree is refused with a
// message, not walked) are matched, whole, against its match
// expression; each "component" group found is a component whose file
// mask is the path with the "language" group's span as "*". Discover
// previews them; when confirmed, the ones the project lacks are created
// with repo weblate://project/component (sharing the checkout: one
// clone, one set of git jobs) and imported, at install and after each
// update of the component.
//
// With "remove", each run then removes the components whose files went
// away, as the reference's: of those linked to the add-on's component
// that no match found, one whose template, else new base, else file
// mask no longer names a file of the checkout. Tolk removes only the
// components this add-on created (index.Component.DiscoveredBy): the
// reference removes any component linked to the discovering one, though
// a component someone linked by hand is theirs. A component with edits
// not yet committed is kept, with an alert, rather than have them lost
// (the reference loses them); the next run after its commit removes it.

// errDiscoveryTooBig refuses a repository over the walk's bound.
var errDiscoveryTooBig = index.Errorf(index.ErrInvalid,
	"The repository has more than %d files and folders: discovery walks no more. Narrow the repository or add components by hand.",
	index.MaxDiscoveryPaths)

// Discover previews add-on configuration d on component c: the
// components its match finds in c's checkout, those the project has
// marked Exists. c's checkout must exist (c imported).
func (s *Service) Discover(ctx context.Context, d index.Discovery, c index.Component) ([]index.Discovered, error) {
	found, _, err := s.discover(ctx, d, c, false)
	return found, err
}

// discover is Discover; with all it also returns every path of the
// checkout (for the removal's checks), else none.
func (s *Service) discover(ctx context.Context, d index.Discovery, c index.Component, all bool) ([]index.Discovered,
	[]string, error) {
	re, err := regexp.Compile(`^(?:` + d.Match + `)$`)
	if err != nil {
		return nil, nil, index.FieldErr("configuration.match", "invalid", err.Error())
	}
	repo, unlock, err := s.lockedCheckout(ctx, c)
	if err != nil {
		return nil, nil, err
	}
	opts := vcs.FilesOptions{MaxEntries: index.MaxDiscoveryPaths}
	if !all {
		opts.Match = re.MatchString
	}
	listing, err := repo.Files(ctx, opts)
	unlock()
	if errors.Is(err, vcs.ErrTooManyEntries) {
		return nil, nil, errDiscoveryTooBig
	}
	if err != nil {
		return nil, nil, err
	}
	var paths, every []string
	for _, f := range listing.Files {
		if all {
			every = append(every, f.Path)
		}
		if !all || re.MatchString(f.Path) {
			paths = append(paths, f.Path)
		}
	}
	found, err := discoverPaths(d, re, paths)
	if err != nil {
		return nil, nil, err
	}
	existing, err := s.store.FindComponents(ctx, c.ProjectID)
	if err != nil {
		return nil, nil, err
	}
	for i := range found {
		f := &found[i]
		if j := slices.IndexFunc(existing, func(o index.Component) bool {
			return o.Slug == f.Slug || o.Filemask == f.Filemask
		}); j >= 0 {
			f.Exists, f.ExistingSlug = true, existing[j].Slug
		}
	}
	return found, every, nil
}

// discoverPaths groups the matching paths into components, in the order
// of their first path.
func discoverPaths(d index.Discovery, re *regexp.Regexp, paths []string) ([]index.Discovered, error) {
	lang := re.SubexpIndex("language")
	var out []index.Discovered
	byMask := map[string]int{}
	for _, p := range paths {
		m := re.FindStringSubmatchIndex(p)
		if m == nil || lang < 0 || m[2*lang] < 0 {
			continue
		}
		groups := map[string]string{}
		for i, name := range re.SubexpNames() {
			if name != "" && m[2*i] >= 0 {
				groups[name] = p[m[2*i]:m[2*i+1]]
			}
		}
		mask := p[:m[2*lang]] + "*" + p[m[2*lang+1]:]
		i, ok := byMask[mask]
		if !ok {
			name, err := index.RenderDiscovery(d.NameTemplate, groups)
			if err != nil {
				return nil, index.FieldErr("configuration.name_template", "invalid", err.Error())
			}
			base, err := index.RenderDiscovery(d.BaseFileTemplate, groups)
			if err != nil {
				return nil, index.FieldErr("configuration.base_file_template", "invalid", err.Error())
			}
			newBase, err := index.RenderDiscovery(d.NewBaseTemplate, groups)
			if err != nil {
				return nil, index.FieldErr("configuration.new_base_template", "invalid", err.Error())
			}
			i = len(out)
			byMask[mask] = i
			out = append(out, index.Discovered{Name: strings.TrimSpace(name), Slug: index.Slugify(name),
				Filemask: mask, Template: base, NewBase: newBase})
		}
		if code := groups["language"]; !slices.Contains(out[i].Languages, code) {
			out[i].Languages = append(out[i].Languages, code)
		}
	}
	return out, nil
}

// QueueDiscovery creates what add-on a finds in c's checkout, in the
// background; failures are alerts on c.
func (s *Service) QueueDiscovery(a index.Addon, c index.Component) {
	s.inBackground(fmt.Sprintf("discovery:%d", a.ID), func(ctx context.Context) {
		if _, _, err := s.DiscoverCreate(ctx, a, c); err != nil {
			s.addonAlert(ctx, index.AddonDiscovery, c, err)
		}
	})
}

// DiscoverCreate creates and imports the components add-on a finds in
// c's checkout that the project lacks, and, with "remove", removes those
// it created whose files went away; it returns both.
func (s *Service) DiscoverCreate(ctx context.Context, a index.Addon, c index.Component) (made, removed []index.Component,
	err error) {
	if c.LinkedID != 0 {
		return nil, nil, errors.New("install discovery on the component that owns the repository, not on a linked one")
	}
	found, paths, err := s.discover(ctx, a.Discovery, c, a.Discovery.Remove)
	if err != nil {
		return nil, nil, err
	}
	var errs []error
	for _, f := range found {
		if f.Exists {
			continue
		}
		comp := index.DefaultComponent()
		comp.ProjectID, comp.Project = c.ProjectID, c.Project
		comp.Name, comp.Slug, comp.Filemask = f.Name, f.Slug, f.Filemask
		comp.Template, comp.NewBase, comp.FileFormat = f.Template, f.NewBase, a.Discovery.FileFormat
		comp.LanguageRegex, comp.SourceLanguage = a.Discovery.LanguageRegex, c.SourceLanguage
		comp.Repo, comp.Branch = index.LinkTo(&c), ""
		comp.LanguageCode, comp.PushOnCommit = c.LanguageCode, c.PushOnCommit
		comp.DiscoveredBy = a.ID
		saved, err := s.store.CreateComponent(ctx, comp, index.Actor{})
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", f.Slug, err))
			continue
		}
		s.opts.Logger.Info("discovery add-on: component created", "project", c.Project.Slug, "component", saved.Slug,
			"filemask", saved.Filemask)
		made = append(made, saved)
	}
	if len(made) > 0 {
		// A linked component's import runs on its parent and imports
		// every component linked to it (onLink, importLinks): one import
		// brings in all the new ones, not one full import each.
		s.StartImport(made[0])
	}
	if a.Discovery.Remove {
		var err error
		removed, err = s.discoverRemove(ctx, a, c, found, paths)
		errs = append(errs, err)
	}
	return made, removed, errors.Join(errs...)
}

// discoverRemove removes the components add-on a created in c's
// checkout whose files went away (see the comment at the top): found is
// what the run matched, paths every file of the checkout.
func (s *Service) discoverRemove(ctx context.Context, a index.Addon, c index.Component, found []index.Discovered,
	paths []string) ([]index.Component, error) {
	links, err := s.store.LinkedComponents(ctx, c.ID)
	if err != nil {
		return nil, err
	}
	var removed []index.Component
	var errs []error
	for _, l := range links {
		if l.DiscoveredBy != a.ID || slices.ContainsFunc(found, func(f index.Discovered) bool {
			return f.Filemask == l.Filemask
		}) || hasFiles(l, paths) {
			continue
		}
		if p, err := s.store.PendingUnits(ctx, l.ID); err != nil || p.Any() {
			if err == nil {
				err = fmt.Errorf("%s/%s: its files are gone, but it has edits not yet committed: kept until they are",
					l.Project.Slug, l.Slug)
			}
			errs = append(errs, err)
			continue
		}
		gone, err := s.store.DeleteComponent(ctx, l.ID, index.Actor{})
		if err != nil {
			errs = append(errs, fmt.Errorf("%s/%s: %w", l.Project.Slug, l.Slug, err))
			continue
		}
		s.opts.Logger.Info("discovery add-on: component removed, its files are gone", "project", c.Project.Slug,
			"component", gone.Slug, "filemask", gone.Filemask)
		removed = append(removed, gone)
	}
	return removed, errors.Join(errs...)
}

// hasFiles reports whether the files component l needs are among paths,
// as the reference's discovery judges it: its template when it has one,
// else its new base when it has one, else any file its mask matches.
func hasFiles(l index.Component, paths []string) bool {
	switch {
	case l.Template != "":
		return slices.Contains(paths, l.Template)
	case l.NewBase != "":
		return slices.Contains(paths, l.NewBase)
	}
	mask, err := componentMask(l)
	if err != nil {
		return true // not judged: kept
	}
	return slices.ContainsFunc(paths, func(p string) bool {
		_, ok := mask.Code(p)
		return ok
	})
}
