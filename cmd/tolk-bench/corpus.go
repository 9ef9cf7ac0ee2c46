package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/tolk-project/tolk/index"
)

// corpusComponent is one corpus folder imported as one component, with
// the settings sync/import_test.go uses for it.
type corpusComponent struct {
	slug     string
	folder   string // under the corpus directory
	filemask string
	template string // empty for bilingual (TBX) components
	source   string // source language code
	format   string
}

// corpusComponents is the corpus the issue measures: jellyfin-web
// (206,276 units over 106 files) with kavita and the Slicer glossary, so
// flat JSON, nested JSON and TBX are all on the path. The two-file
// weblate-testdata folder is left out: its file names carry no language.
var corpusComponents = []corpusComponent{
	{"jellyfin", "jellyfin-web", "src/strings/*.json", "src/strings/en-us.json", "en-us", "json"},
	{"kavita", "kavita", "UI/Web/src/assets/langs/*.json", "UI/Web/src/assets/langs/en.json", "en", "json"},
	{"slicer", "tbx/slicer", "glossary/*.tbx", "", "en", "tbx"},
}

// findCorpus returns the corpus directory: dir if given, else the first
// shared/corpus beside the working directory or one of its ancestors
// (the checkout lives next to ../shared).
func findCorpus(dir string) (string, error) {
	if dir != "" {
		if _, err := os.Stat(filepath.Join(dir, "make-repo.sh")); err != nil {
			return "", fmt.Errorf("corpus %s: %w", dir, err)
		}
		return filepath.Abs(dir)
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := wd; ; d = filepath.Dir(d) {
		c := filepath.Join(d, "shared", "corpus")
		if _, err := os.Stat(filepath.Join(c, "make-repo.sh")); err == nil {
			return c, nil
		}
		if filepath.Dir(d) == d {
			return "", errors.New("corpus not found: no shared/corpus/make-repo.sh beside the working directory or its ancestors; pass -corpus")
		}
	}
}

// corpusRepo is a bare repository built from a corpus folder.
type corpusRepo struct {
	corpusComponent
	url   string
	dir   string // the folder the repository was built from
	files []string
}

// buildRepos turns each corpus folder into a bare repository under tmp
// with make-repo.sh. With limit > 0 only the template and the first
// limit other files (by name) go in, for -quick.
func buildRepos(ctx context.Context, corpus, tmp string, limit int) ([]corpusRepo, error) {
	var out []corpusRepo
	for _, cc := range corpusComponents {
		src := filepath.Join(corpus, cc.folder)
		if limit > 0 {
			sub := filepath.Join(tmp, "subset", cc.slug)
			if err := copySubset(src, sub, cc.template, limit); err != nil {
				return nil, fmt.Errorf("subset of %s: %w", cc.folder, err)
			}
			src = sub
		}
		dest := filepath.Join(tmp, "repos", cc.slug+".git")
		// A resumed scale run (-resume) finds the repositories its kept
		// checkouts were cloned from, and keeps them.
		if _, err := os.Stat(filepath.Join(dest, "HEAD")); err != nil {
			if err := makeRepo(ctx, corpus, src, dest); err != nil {
				return nil, fmt.Errorf("%s: %w", cc.folder, err)
			}
		}
		files, err := listFiles(src)
		if err != nil {
			return nil, err
		}
		out = append(out, corpusRepo{corpusComponent: cc, url: "file://" + dest, dir: src, files: files})
	}
	return out, nil
}

// makeRepo makes the repository dest of the corpus folder src.
func makeRepo(ctx context.Context, corpus, src, dest string) error {
	cmd := exec.CommandContext(ctx, "bash", filepath.Join(corpus, "make-repo.sh"), src, dest)
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("make-repo: %w\n%s", err, b)
	}
	// make-repo.sh leaves loose objects, from which git-upload-pack
	// searches deltas anew for every clone: 0.8 s of CPU for
	// jellyfin-web on the cores the import runs on. A hosting
	// service serves from packs it keeps (git gc), so pack the
	// repository once, as they do.
	cmd = exec.CommandContext(ctx, "git", "-C", dest, "repack", "-a", "-d", "-q")
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("repack: %w\n%s", err, b)
	}
	return nil
}

// listFiles returns the files under dir (relative, sorted), as
// make-repo.sh commits them: everything but SOURCE.md.
func listFiles(dir string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() == "SOURCE.md" {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		files = append(files, filepath.ToSlash(rel))
		return err
	})
	sort.Strings(files)
	return files, err
}

// loadLanguage is the language whose translation the reads section
// loads; -quick keeps its file in the subset.
const loadLanguage = "de"

// copySubset copies the template, the file of loadLanguage and the first
// limit other files of src to dst, keeping their relative paths.
func copySubset(src, dst, template string, limit int) error {
	files, err := listFiles(src)
	if err != nil {
		return err
	}
	n := 0
	for _, f := range files {
		if f != template && langOf(f) != loadLanguage {
			if n >= limit {
				continue
			}
			n++
		}
		if err := copyFile(filepath.Join(src, f), filepath.Join(dst, f)); err != nil {
			return err
		}
	}
	return nil
}

func copyFile(from, to string) error {
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// projectComponents returns the components of a project made of copies
// of the corpus: copies == 1 is the corpus itself; more gives each copy
// of each component its own slug ("jellyfin-02") and its own checkout
// of the same repository, so the project has copies times the
// components, files and units, all of the corpus's shape.
func projectComponents(repos []corpusRepo, copies int) []index.Component {
	var out []index.Component
	for i := 1; i <= copies; i++ {
		for _, r := range repos {
			c := index.DefaultComponent()
			c.Slug = r.slug
			if copies > 1 {
				c.Slug = fmt.Sprintf("%s-%02d", r.slug, i)
			}
			c.Name, c.Repo, c.Filemask, c.Template, c.SourceLanguage, c.FileFormat =
				c.Slug, r.url, r.filemask, r.template, r.source, r.format
			c.IsGlossary = r.format == "tbx"
			out = append(out, c)
		}
	}
	return out
}

// langOf is the language code of a corpus file: its base name without
// the extension (all three corpora name files that way).
func langOf(path string) string {
	base := filepath.Base(path)
	return strings.TrimSuffix(base, filepath.Ext(base))
}

// scaleProjectCount is how many projects the scale section spreads its
// copies over (issue 31: "100 copies of each corpus component in 10
// projects"), fewer when there are fewer copies.
const scaleProjectCount = 10

// scaleProject is the slug of the scale section's project number i
// (from 1).
func scaleProject(i int) string { return fmt.Sprintf("scale-%02d", i) }
