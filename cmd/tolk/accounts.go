package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/sqlstore"
)

// The account commands work on the index directly (the data directory's
// SQLite file, or the database --db names), with or without a server
// running on it: SQLite's WAL and PostgreSQL both let them write beside
// it, and the server reads tokens and grants afresh on every request.

// passwordInput is where `tolk user passwd` and `tolk user add
// --password-stdin` read the password: its first line. Tests replace it.
var passwordInput io.Reader = os.Stdin

// readPassword reads the first line of passwordInput and hashes it.
func readPassword() (string, error) {
	line, err := bufio.NewReader(passwordInput).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", fmt.Errorf("read password: %w", err)
	}
	hash, err := index.HashPassword(strings.TrimRight(line, "\r\n"))
	if err != nil {
		return "", fmt.Errorf("password: %w", err)
	}
	return hash, nil
}

// runUser serves `tolk user add|passwd|grant|revoke|list`.
func runUser(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	usage := func() error {
		fmt.Fprintln(usageOut(args, stdout, stderr), "usage: tolk user add NAME [--admin] [--email E] [--full-name N] [--password-stdin] [--data DIR | --db DB]\n"+
			"       tolk user passwd NAME [--data DIR | --db DB]   (reads the password from the first line of stdin)\n"+
			"       tolk user grant NAME ROLE [--project P] [--data DIR | --db DB]\n"+
			"       tolk user revoke NAME ROLE [--project P] [--data DIR | --db DB]\n"+
			"       tolk user list [--data DIR | --db DB]\n"+
			"roles: "+roleNames())
		return usageErr(args)
	}
	if len(args) == 0 || isHelp(args) {
		return usage()
	}
	fs, where := commandFlags("tolk user "+args[0], stderr)
	admin := fs.Bool("admin", false, "make the user a superuser")
	email := fs.String("email", "", "e-mail address")
	fullName := fs.String("full-name", "", "full name")
	project := fs.String("project", "", "project slug (default: site-wide)")
	withPassword := fs.Bool("password-stdin", false, "read a password for signing in from the first line of stdin")
	pos, db, err := commandIndex(ctx, fs, where, args[1:])
	if err != nil {
		return err
	}
	defer db.Close()

	switch {
	case args[0] == "add" && len(pos) == 1:
		if err := validUsername(pos[0]); err != nil {
			return err
		}
		if _, err := db.FindUser(ctx, pos[0]); err == nil {
			return fmt.Errorf("user %q already exists", pos[0])
		}
		var hash string
		if *withPassword {
			if hash, err = readPassword(); err != nil {
				return err
			}
		}
		u, err := db.SaveUser(ctx, index.User{Username: pos[0], FullName: *fullName, Email: *email,
			IsActive: true, IsSuperuser: *admin})
		if err != nil {
			return err
		}
		if hash != "" {
			if err := db.SetPassword(ctx, u.ID, hash); err != nil {
				return err
			}
		}
		fmt.Fprintf(stdout, "created user %s (id %d)%s\n", u.Username, u.ID, map[bool]string{true: ", superuser"}[u.IsSuperuser])
		return nil
	case args[0] == "passwd" && len(pos) == 1:
		u, err := db.FindUser(ctx, pos[0])
		if err != nil {
			return fmt.Errorf("user %q: %w", pos[0], err)
		}
		hash, err := readPassword()
		if err != nil {
			return err
		}
		if err := db.SetPassword(ctx, u.ID, hash); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "password set for %s; their browser sessions have ended\n", u.Username)
		return nil
	case (args[0] == "grant" || args[0] == "revoke") && len(pos) == 2:
		u, err := db.FindUser(ctx, pos[0])
		if err != nil {
			return fmt.Errorf("user %q: %w", pos[0], err)
		}
		g := index.Grant{UserID: u.ID, Role: pos[1]}
		if *project != "" {
			p, err := db.FindProject(ctx, *project)
			if err != nil {
				return fmt.Errorf("project %q: %w", *project, err)
			}
			g.ProjectID = p.ID
		}
		if args[0] == "grant" {
			err = db.AddGrant(ctx, g)
		} else {
			err = db.RemoveGrant(ctx, g)
		}
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s %s: %s on %s\n", args[0], u.Username, pos[1], orSiteWide(*project))
		return nil
	case args[0] == "list" && len(pos) == 0:
		users, _, err := db.FindUsers(ctx, index.UserFilter{Page: index.Page{Number: 1, Size: 10000}})
		if err != nil {
			return err
		}
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tUSERNAME\tSUPERUSER\tACTIVE\tROLES")
		for _, u := range users {
			grants, err := db.FindGrants(ctx, u.ID)
			if err != nil {
				return err
			}
			var roles []string
			for _, g := range grants {
				role := fmt.Sprintf("%s@%s", g.Role, projectLabel(ctx, db, g.ProjectID))
				// A team may narrow its grant to a component or
				// some languages (api/groups.go).
				if g.ComponentID != 0 {
					role += fmt.Sprintf("[component %d]", g.ComponentID)
				}
				if g.Languages != nil {
					role += "[" + strings.Join(g.Languages, " ") + "]"
				}
				roles = append(roles, role)
			}
			fmt.Fprintf(tw, "%d\t%s\t%v\t%v\t%s\n", u.ID, u.Username, u.IsSuperuser, u.IsActive, strings.Join(roles, ", "))
		}
		return tw.Flush()
	}
	return usage()
}

// runToken serves `tolk token create|list|revoke`.
func runToken(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	usage := func() error {
		fmt.Fprintln(usageOut(args, stdout, stderr), "usage: tolk token create NAME [--scope read|translate|admin] [--project P [--role R]] [--expires 30d|2027-01-31] [--label L] [--data DIR | --db DB]\n"+
			"       tolk token list [NAME] [--data DIR | --db DB]\n"+
			"       tolk token revoke ID [--data DIR | --db DB]\n"+
			"With --role, NAME names a project token: a bot user bot-P-NAME with role R in project P gets a wlp_ token.")
		return usageErr(args)
	}
	if len(args) == 0 || isHelp(args) {
		return usage()
	}
	fs, where := commandFlags("tolk token "+args[0], stderr)
	scope := fs.String("scope", string(index.ScopeAdmin), "what the token may do: read, translate or admin (all the user may)")
	project := fs.String("project", "", "limit the token to one project (slug)")
	role := fs.String("role", "", "with --project: create a project token whose bot user has this role")
	expires := fs.String("expires", "", "expiry: a duration (90d, 12h) or a date (2027-01-31)")
	label := fs.String("label", "", "a label shown by token list")
	pos, db, err := commandIndex(ctx, fs, where, args[1:])
	if err != nil {
		return err
	}
	defer db.Close()

	switch {
	case args[0] == "create" && len(pos) == 1:
		t := index.Token{Scope: index.TokenScope(*scope), Name: *label, Prefix: index.UserTokenPrefix}
		if !t.Scope.Valid() {
			return fmt.Errorf("--scope %q: want read, translate or admin", *scope)
		}
		if *expires != "" {
			if t.Expires, err = parseExpiry(*expires, time.Now()); err != nil {
				return err
			}
		}
		var p index.Project
		if *project != "" {
			if p, err = db.FindProject(ctx, *project); err != nil {
				return fmt.Errorf("project %q: %w", *project, err)
			}
			t.ProjectID = p.ID
		}
		var u index.User
		switch {
		case *role != "":
			if *project == "" {
				return errors.New("--role needs --project: project tokens belong to one project")
			}
			r, ok := index.FindRole(*role)
			if !ok {
				return fmt.Errorf("--role %q: want one of %s", *role, roleNames())
			}
			// As the reference does: a bot user per project token, holding
			// the role in that project only.
			name := "bot-" + p.Slug + "-" + pos[0]
			if err := validUsername(name); err != nil {
				return err
			}
			if u, err = db.SaveUser(ctx, index.User{Username: name, FullName: pos[0],
				Email: name + "@bots.noreply.tolk", IsActive: true, IsBot: true}); err != nil {
				return err
			}
			if err := db.AddGrant(ctx, index.Grant{UserID: u.ID, Role: r.Name, ProjectID: p.ID}); err != nil {
				return err
			}
			t.Prefix = index.ProjectTokenPrefix
		default:
			if u, err = db.FindUser(ctx, pos[0]); err != nil {
				return fmt.Errorf("user %q: %w (create it with tolk user add)", pos[0], err)
			}
		}
		t.UserID = u.ID
		secret := index.NewToken(t.Prefix)
		t.Hash = index.HashToken(secret)
		if t, err = db.CreateToken(ctx, t); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "token %d for %s (scope %s, %s, %s); it is shown once, now:\n",
			t.ID, u.Username, t.Scope, orSiteWide(*project), expiryLabel(t.Expires))
		fmt.Fprintln(stdout, secret)
		return nil
	case args[0] == "list" && len(pos) <= 1:
		var userID int64
		if len(pos) == 1 {
			u, err := db.FindUser(ctx, pos[0])
			if err != nil {
				return fmt.Errorf("user %q: %w", pos[0], err)
			}
			userID = u.ID
		}
		tokens, err := db.FindTokens(ctx, userID)
		if err != nil {
			return err
		}
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tUSER\tKIND\tSCOPE\tPROJECT\tLABEL\tCREATED\tEXPIRES\tLAST USED")
		for _, t := range tokens {
			used := "never"
			if !t.LastUsed.IsZero() {
				used = t.LastUsed.UTC().Format(time.DateTime)
			}
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", t.ID, t.Username, t.Prefix, t.Scope,
				projectLabel(ctx, db, t.ProjectID), t.Name, t.Created.Format(time.DateTime), expiryLabel(t.Expires), used)
		}
		return tw.Flush()
	case args[0] == "revoke" && len(pos) == 1:
		id, err := strconv.ParseInt(pos[0], 10, 64)
		if err != nil {
			return fmt.Errorf("token id %q: want the number token list shows", pos[0])
		}
		if err := db.DeleteToken(ctx, id); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "revoked token %d\n", id)
		return nil
	}
	return usage()
}

// isHelp reports whether an account command was asked only for help.
func isHelp(args []string) bool {
	return len(args) == 1 && slices.Contains([]string{"help", "--help", "-help", "-h"}, args[0])
}

// usageOut is where an account command's usage goes: stdout when asked
// for, stderr when the command line was wrong.
func usageOut(args []string, stdout, stderr io.Writer) io.Writer {
	if isHelp(args) {
		return stdout
	}
	return stderr
}

// usageErr is what an account command returns after its usage: nil
// (exit 0) when help was asked for, errUsage (exit 2) otherwise.
func usageErr(args []string) error {
	if isHelp(args) {
		return nil
	}
	return errUsage
}

// indexFlags are where an account command finds the index: the data
// directory's SQLite file, or what --db names, as for tolk serve.
type indexFlags struct{ dataDir, db *string }

// commandFlags starts the flags of an account command, with the data
// directory and the index every one of them takes.
func commandFlags(name string, stderr io.Writer) (*flag.FlagSet, indexFlags) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs, indexFlags{dataDir: fs.String("data", DefaultConfig().DataDir, "data directory"),
		db: fs.String("db", "", dbUsage)}
}

// commandIndex parses an account command's arguments (errUsage when they
// do not parse) and opens the index they name; the caller closes it.
func commandIndex(ctx context.Context, fs *flag.FlagSet, where indexFlags, args []string) ([]string, *sqlstore.DB, error) {
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return nil, nil, errUsage
	}
	db, err := openDB(ctx, *where.dataDir, *where.db, sqlstore.Options{})
	return pos, db, err
}

// parseInterspersed parses flags given before, between or after the
// positional arguments, as people type them.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// parseExpiry reads "90d", any Go duration ("12h") or a date.
func parseExpiry(s string, now time.Time) (time.Time, error) {
	if d, ok := strings.CutSuffix(s, "d"); ok {
		if n, err := strconv.Atoi(d); err == nil && n > 0 {
			return now.AddDate(0, 0, n), nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil && d > 0 {
		return now.Add(d), nil
	}
	for _, layout := range []string{time.DateOnly, time.RFC3339} {
		if t, err := time.Parse(layout, s); err == nil {
			if !t.After(now) {
				return time.Time{}, fmt.Errorf("--expires %q is in the past", s)
			}
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("--expires %q: want a number of days (90d), a duration (12h) or a date (2027-01-31)", s)
}

// validUsername accepts what the API accepts (index.CheckUsername).
func validUsername(name string) error {
	if p := index.CheckUsername(name); p != nil {
		return fmt.Errorf("username %q: %s", name, p.Detail)
	}
	return nil
}

func roleNames() string {
	names := make([]string, len(index.BuiltinRoles))
	for i, r := range index.BuiltinRoles {
		names[i] = strconv.Quote(r.Name)
	}
	return strings.Join(names, ", ")
}

func orSiteWide(project string) string {
	if project == "" {
		return "site-wide"
	}
	return "project " + project
}

func expiryLabel(t time.Time) string {
	if t.IsZero() {
		return "never expires"
	}
	return "expires " + t.UTC().Format(time.DateTime)
}

// projectLabel names a project id for listings: its slug, or "*" for 0.
func projectLabel(ctx context.Context, db *sqlstore.DB, id int64) string {
	if id == 0 {
		return "*"
	}
	if p, err := db.FindProjectByID(ctx, id); err == nil {
		return p.Slug
	}
	return "#" + strconv.FormatInt(id, 10)
}
