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
// update of the component. Components are never removed: a component
// whose files went away is the administrator's to remove ("remove" is
// kept but not acted on).

// errDiscoveryTooBig refuses a repository over the walk's bound.
var errDiscoveryTooBig = index.Errorf(index.ErrInvalid,
	"The repository has more than %d files and folders: discovery walks no more. Narrow the repository or add components by hand.",
	index.MaxDiscoveryPaths)

// Discover previews add-on configuration d on component c: the
// components its match finds in c's checkout, those the project has
// marked Exists. c's checkout must exist (c imported).
func (s *Service) Discover(ctx context.Context, d index.Discovery, c index.Component) ([]index.Discovered, error) {
	re, err := regexp.Compile(`^(?:` + d.Match + `)$`)
	if err != nil {
		return nil, index.FieldErr("configuration.match", "invalid", err.Error())
	}
	repo, unlock, err := s.lockedCheckout(ctx, c)
	if err != nil {
		return nil, err
	}
	listing, err := repo.Files(ctx, vcs.FilesOptions{MaxEntries: index.MaxDiscoveryPaths,
		Match: func(path string) bool { return re.MatchString(path) }})
	unlock()
	if errors.Is(err, vcs.ErrTooManyEntries) {
		return nil, errDiscoveryTooBig
	}
	if err != nil {
		return nil, err
	}
	paths := make([]string, len(listing.Files))
	for i, f := range listing.Files {
		paths[i] = f.Path
	}
	found, err := discoverPaths(d, re, paths)
	if err != nil {
		return nil, err
	}
	existing, err := s.store.FindComponents(ctx, c.ProjectID)
	if err != nil {
		return nil, err
	}
	for i := range found {
		f := &found[i]
		if j := slices.IndexFunc(existing, func(o index.Component) bool {
			return o.Slug == f.Slug || o.Filemask == f.Filemask
		}); j >= 0 {
			f.Exists, f.ExistingSlug = true, existing[j].Slug
		}
	}
	return found, nil
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
		if _, err := s.DiscoverCreate(ctx, a, c); err != nil {
			s.addonAlert(ctx, index.AddonDiscovery, c, err)
		}
	})
}

// DiscoverCreate creates and imports the components add-on a finds in
// c's checkout that the project lacks, and returns them.
func (s *Service) DiscoverCreate(ctx context.Context, a index.Addon, c index.Component) ([]index.Component, error) {
	if c.LinkedID != 0 {
		return nil, errors.New("install discovery on the component that owns the repository, not on a linked one")
	}
	found, err := s.Discover(ctx, a.Discovery, c)
	if err != nil {
		return nil, err
	}
	var made []index.Component
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
	return made, errors.Join(errs...)
}
