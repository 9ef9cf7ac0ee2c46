// Package web serves Tolk's pages for people: the projects, a project, a
// component, a language, a translation, the editor, sign-in and the
// static assets they use, at the addresses the API's web_url, share_url
// and translate_url lead to. They are rendered by html/template from
// webui/, with one small stylesheet and script served from the binary:
// no build step, no external assets, and every page reads without
// JavaScript.
//
// Pages resolve objects, check visibility and permissions and write
// units through the same rules the API does: the edge resolves the
// request's principal and the objects its path names
// (edge.Server.FindTranslation), index holds the rules
// (index.CheckUnitPatch, Principal.Can). The package never imports api,
// nor api this one; cmd/tolk mounts both on one edge.
//
// Start reading at routes in web.go, the list of every page and form.
// web_editor.go is the editor and its save, web_files.go the
// translation page's download and upload, web_auth.go signing in and
// out (the session itself, which the API also accepts, is the edge's).
package web

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/tolk-project/tolk/edge"
	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/machinery"
)

// Store is what the pages read and write. *sqlstore.DB satisfies it.
type Store interface {
	FindProjectPage(ctx context.Context, p index.Page, hidden ...int64) ([]index.Project, int, error)
	FindComponentPage(ctx context.Context, projectID int64, p index.Page, hidden ...int64) ([]index.Component, int, error)
	FindComponents(ctx context.Context, projectID int64) ([]index.Component, error)
	FindTranslation(ctx context.Context, projectSlug, componentSlug, languageCode string) (index.Translation, error)
	FindTranslationPage(ctx context.Context, componentID int64, pg index.Page, hidden ...int64) ([]index.Translation, int, error)
	FindUnits(ctx context.Context, f index.UnitFilter) ([]index.Unit, int, error)
	FindUnitByID(ctx context.Context, id int64) (index.Unit, error)
	FindUnitIDByHash(ctx context.Context, translationID, idHash int64) (int64, error)
	FindChanges(ctx context.Context, f index.ChangeFilter) ([]index.Change, int, error)
	ProjectStats(ctx context.Context, projectID int64) (index.Stats, error)
	ComponentStats(ctx context.Context, componentID int64) (index.Stats, error)
	ProjectLanguageStats(ctx context.Context, projectID int64) ([]index.Language, []index.Stats, error)
	UpdateUnit(ctx context.Context, id int64, actor index.Actor,
		decide func(u index.Unit, t index.Translation) (index.UnitUpdate, error)) (index.Unit, error)
	// UpdateUnitExpecting is UpdateUnit told the target the save
	// expects to write (nil: none; api's unitWriteStore).
	UpdateUnitExpecting(ctx context.Context, id int64, actor index.Actor, expect []string,
		decide func(u index.Unit, t index.Translation) (index.UnitUpdate, error)) (index.Unit, error)
	FindComments(ctx context.Context, f index.CommentFilter) ([]index.Comment, int, error)
	AddComment(ctx context.Context, unitID int64, actor index.Actor, c index.NewComment,
		check func(u index.Unit, t index.Translation) (int64, error)) (index.Comment, error)
	// FindPassword returns a user and their password hash ("" for none),
	// or ErrNotFound.
	FindPassword(ctx context.Context, username string) (index.User, string, error)
	// CreateSession stores a session.
	CreateSession(ctx context.Context, s index.Session) error
	// DeleteSession removes the session stored under a hash, if any.
	DeleteSession(ctx context.Context, hash string) error
	// RedeemLoginLink spends a one-time sign-in link and stores a
	// session for its user, or answers ErrUnauthenticated.
	RedeemLoginLink(ctx context.Context, secret string, session index.Session) (index.User, error)
	suggestionStore
	workspaceStore // web_workspace.go
	// FindTranslationByID returns a translation with its component and
	// project, or ErrNotFound.
	FindTranslationByID(ctx context.Context, id int64) (index.Translation, error)
	// FindMachinerySettings returns a project's machine translation
	// services (an empty map for none).
	FindMachinerySettings(ctx context.Context, projectID int64) (index.MachinerySettings, error)
	componentListStore
	categoryStore // web_categories.go
	profileStore  // web_profile.go
}

// Options configure the pages. The zero value is usable: without Files,
// translation pages offer no upload.
type Options struct {
	// Files parses the uploads of the translation page's form
	// (*sync.Service).
	Files edge.UploadParser
	// MaxUploadBytes bounds an uploaded file; 0 means
	// edge.DefaultMaxUploadBytes.
	MaxUploadBytes int64
	// Machinery queries the projects' machine translation services for
	// the editor; nil is a Broker with machinery's defaults (no
	// site-wide services).
	Machinery *machinery.Broker
	// MachineryRateLimit bounds the engine calls each user makes from
	// the editor; the zero value, or off, is DefaultMachineryRateLimit:
	// engine calls are always limited.
	MachineryRateLimit edge.RateLimit
	// AnonymousSuggestions lets anonymous visitors suggest from the
	// editor on public projects, this many per address (as the API's
	// option of the same name; the page counts its own window); off or
	// zero: they may not.
	AnonymousSuggestions edge.RateLimit
}

// Validate fills defaults and rejects a negative upload limit.
func (o *Options) Validate() error {
	if o.Machinery == nil {
		b, err := machinery.New(machinery.Options{})
		if err != nil {
			return err
		}
		o.Machinery = b
	}
	if o.MachineryRateLimit.Off() {
		o.MachineryRateLimit = DefaultMachineryRateLimit
	}
	switch {
	case o.MaxUploadBytes == 0:
		o.MaxUploadBytes = edge.DefaultMaxUploadBytes
	case o.MaxUploadBytes < 0:
		return fmt.Errorf("web: max upload size %d: want a positive number of bytes", o.MaxUploadBytes)
	}
	return nil
}

// LoginLimit is how many failed sign-ins one address may make for one
// username in LoginLimitPeriod before it must wait.
const (
	LoginLimit       = 5
	LoginLimitPeriod = 15 * time.Minute
)

// Server serves the pages on the routes of an edge.Server. It is safe
// for concurrent use.
type Server struct {
	store Store
	opts  Options
	edge  *edge.Server
	log   *slog.Logger
	// loginLimit counts failed sign-ins per address and username.
	loginLimit *edge.Limiter
	// machineryLimit counts each user's engine calls.
	machineryLimit *edge.Limiter
	// anonSuggestions counts anonymous suggestions per address; nil
	// when they are off.
	anonSuggestions *edge.Limiter
}

// New registers the pages on e, reading from store, and returns them.
// It panics if opts.Validate fails; call Validate first to get the
// error instead.
func New(e *edge.Server, store Store, opts Options) *Server {
	if err := opts.Validate(); err != nil {
		panic(err)
	}
	s := &Server{store: store, opts: opts, edge: e, log: e.Logger(),
		loginLimit:     e.NewRateLimiter(edge.RateLimit{Requests: LoginLimit, Period: LoginLimitPeriod}),
		machineryLimit: e.NewRateLimiter(opts.MachineryRateLimit)}
	if !opts.AnonymousSuggestions.Off() {
		s.anonSuggestions = e.NewRateLimiter(opts.AnonymousSuggestions)
	}
	s.routes(e.Router())
	return s
}

// timestamp is how pages write a time in a datetime attribute: the API's
// <timestamp>, UTC with microseconds and Z.
func timestamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000000Z") }

// pageCount is how many pages of size hold total rows; at least one.
func pageCount(total, size int) int { return max(1, (total+size-1)/size) }

// nonNil is s, or an empty list where s is nil, so JSON shows [].
func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
