package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tolk-project/tolk"
	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/sqlstore"
	tolksync "github.com/tolk-project/tolk/sync"
	"github.com/tolk-project/tolk/vcs"
)

// demoProject makes sure the demo repositories exist inside the data
// directory (created from the built-in files on first start, reused
// afterwards) and returns the demo project that imports them.
func demoProject(ctx context.Context, dataDir string) (tolksync.ProjectSpec, error) {
	app, err := demoRepo(ctx, filepath.Join(dataDir, "demo", "app.git"), "testdata/demo/app")
	if err != nil {
		return tolksync.ProjectSpec{}, err
	}
	glossary, err := demoRepo(ctx, filepath.Join(dataDir, "demo", "glossary.git"), "testdata/demo/glossary")
	if err != nil {
		return tolksync.ProjectSpec{}, err
	}
	notifications, err := demoRepo(ctx, filepath.Join(dataDir, "demo", "notifications.git"), "testdata/demo/notifications")
	if err != nil {
		return tolksync.ProjectSpec{}, err
	}
	c := index.DefaultComponent()
	c.Name, c.Slug, c.Repo, c.Branch = "App", "app", app, "main"
	c.Filemask, c.Template, c.FileFormat, c.SourceLanguage = "locales/*.json", "locales/en.json", "json", "en"
	c.License = "MIT"
	g := index.DefaultComponent()
	g.Name, g.Slug, g.Repo, g.Branch = "Glossary", "glossary", glossary, "main"
	g.Filemask, g.FileFormat, g.SourceLanguage, g.IsGlossary = "*.tbx", "tbx", "en", true
	// i18next v4 with plural keys: Czech has three plural forms, so its
	// plural strings show three targets, the missing ones empty.
	n := index.DefaultComponent()
	n.Name, n.Slug, n.Repo, n.Branch = "Notifications", "notifications", notifications, "main"
	n.Filemask, n.Template, n.FileFormat, n.SourceLanguage = "locales/*.json", "locales/en.json", "i18nextv4", "en"
	n.License = "MIT"
	return tolksync.ProjectSpec{
		Project:    index.Project{Name: "Demo", Slug: "demo", Web: "https://example.com/", SetLanguageTeam: true, EnableHooks: true},
		Components: []index.Component{c, g, n},
	}, nil
}

// demoRepo creates a bare repository with one commit holding the files
// under root of the built-in demo files, unless it exists, and returns
// its file:// URL.
func demoRepo(ctx context.Context, dir, root string) (string, error) {
	url := "file://" + filepath.ToSlash(dir)
	if abs, err := filepath.Abs(dir); err == nil {
		url = "file://" + filepath.ToSlash(abs)
	}
	if _, err := os.Stat(filepath.Join(dir, "HEAD")); err == nil {
		return url, nil
	}
	files := map[string][]byte{}
	err := fs.WalkDir(tolk.DemoFiles, root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(tolk.DemoFiles, path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		files[filepath.ToSlash(rel)] = data
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("read demo files: %w", err)
	}
	if err := vcs.CreateBare(ctx, dir, "main", files, "Add demo translations"); err != nil {
		return "", err
	}
	return url, nil
}

// demoAdminName is the superuser the demo creates on its first start.
const demoAdminName = "admin"

// demoAdmin creates the demo's superuser and a token for it on the first
// start, and prints the token to out, the one time it is ever shown.
// Later starts find the user and print nothing: the index keeps only the
// token's hash.
func demoAdmin(ctx context.Context, db *sqlstore.DB, out io.Writer) error {
	if _, err := db.FindUser(ctx, demoAdminName); err == nil {
		return nil
	} else if !errors.Is(err, index.ErrNotFound) {
		return err
	}
	u, err := db.SaveUser(ctx, index.User{Username: demoAdminName, FullName: "Demo Administrator",
		Email: "admin@example.com", IsActive: true, IsSuperuser: true})
	if err != nil {
		return err
	}
	secret := index.NewToken(index.UserTokenPrefix)
	if _, err := db.CreateToken(ctx, index.Token{UserID: u.ID, Name: "demo", Hash: index.HashToken(secret),
		Prefix: index.UserTokenPrefix, Scope: index.ScopeAdmin}); err != nil {
		return err
	}
	if out != nil {
		fmt.Fprintf(out, "demo administrator %q created; its API token (shown once):\n%s\n", demoAdminName, secret)
	}
	return nil
}

// demoSignInLink prints, on every start, a one-time link that signs the
// demo's administrator in to the browser (index/loginlink.go): the demo
// has no password to give, and a person trying it should not need the
// command line to get into the editor. The link works once, within
// index.LoginLinkLifetime; the next start prints another.
func demoSignInLink(ctx context.Context, db *sqlstore.DB, siteURL string, out io.Writer) error {
	if out == nil {
		return nil
	}
	u, err := db.FindUser(ctx, demoAdminName)
	if err != nil {
		return err
	}
	secret := index.NewToken(index.LoginLinkPrefix)
	if err := db.CreateLoginLink(ctx, index.Session{Hash: index.HashToken(secret), UserID: u.ID,
		Expires: time.Now().Add(index.LoginLinkLifetime)}); err != nil {
		return err
	}
	fmt.Fprintf(out, "sign in to the browser as %q (the link works once, for %d minutes):\n%s/accounts/login/link/?key=%s\n",
		demoAdminName, int(index.LoginLinkLifetime.Minutes()), strings.TrimSuffix(siteURL, "/"), secret)
	return nil
}
