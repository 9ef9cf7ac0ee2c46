package vcs

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/plumbing/format/pktline"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/capability"
	"github.com/go-git/go-git/v5/plumbing/revlist"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// maxUploadRequest bounds the body of one upload-pack request. A request
// is a few hundred "want" and "have" lines; git sends at most a few
// hundred haves per round.
const maxUploadRequest = 10 << 20

// packWindow is the delta window of the packs served, git's default.
const packWindow = 10

// Export serves one repository read-only over Git's smart HTTP protocol
// (protocol version 0, stateless RPC), so that `git clone` and go-git can
// clone and fetch it. It answers, under any path prefix:
//
//   - GET  .../info/refs?service=git-upload-pack: the advertisement of HEAD,
//     refs/heads/* and refs/tags/* (remote-tracking branches stay private);
//   - POST .../git-upload-pack: negotiation and the pack;
//   - the same for git-receive-pack, and the dumb protocol: 403, as the
//     export is read-only;
//   - anything else: 404.
//
// go-git's plumbing/transport/server is not used for the exchange: its
// upload-pack session advertises every reference (remote-tracking ones
// too) without the symref capability, so git cannot tell which branch HEAD
// is, and it reads no "have" lines, so a fetch that negotiates would get a
// pack where git expects an acknowledgement. Export builds on the same
// plumbing (packp, pktline, revlist, packfile) instead.
//
// Objects are read from a fresh go-git storage per request, so packs
// written by a fetch in between are seen. Lock, when set, is held while
// the references are read, so that they are not read while a pull or
// commit rewrites them; it is not held while the pack streams, since
// objects are never deleted. An Export is safe for concurrent use.
type Export struct {
	Dir  string      // the repository (working tree or bare)
	Lock sync.Locker // optional
}

// ServeHTTP implements http.Handler.
func (e *Export) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	switch {
	case strings.HasSuffix(p, "/info/refs"):
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			exportError(w, http.StatusMethodNotAllowed, "use GET for info/refs")
			return
		}
		switch r.URL.Query().Get("service") {
		case "git-upload-pack":
			e.advertise(w, r)
		case "git-receive-pack":
			exportError(w, http.StatusForbidden, "this repository is read-only: push is not accepted")
		default:
			exportError(w, http.StatusForbidden, "only Git's smart HTTP protocol is served; use git 1.6.6 or newer")
		}
	case strings.HasSuffix(p, "/git-upload-pack"):
		if r.Method != http.MethodPost {
			exportError(w, http.StatusMethodNotAllowed, "use POST for git-upload-pack")
			return
		}
		e.uploadPack(w, r)
	case strings.HasSuffix(p, "/git-receive-pack"):
		exportError(w, http.StatusForbidden, "this repository is read-only: push is not accepted")
	default:
		exportError(w, http.StatusNotFound, "not found")
	}
}

func exportError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(status)
	io.WriteString(w, msg+"\n")
}

// tips are the references a client may see and want.
type tips struct {
	head   plumbing.Hash // zero when HEAD does not resolve
	branch string        // HEAD's branch, full name; "" if detached
	refs   map[string]plumbing.Hash
}

// open opens the repository's storage and reads its tips, under Lock.
func (e *Export) open() (storer.Storer, tips, error) {
	if e.Lock != nil {
		e.Lock.Lock()
		defer e.Lock.Unlock()
	}
	t := tips{refs: map[string]plumbing.Hash{}}
	repo, err := git.PlainOpen(e.Dir)
	if err != nil {
		return nil, t, fmt.Errorf("export %s: %w", e.Dir, err)
	}
	s := repo.Storer
	iter, err := s.IterReferences()
	if err != nil {
		return nil, t, fmt.Errorf("export %s: references: %w", e.Dir, err)
	}
	err = iter.ForEach(func(ref *plumbing.Reference) error {
		n := ref.Name()
		if ref.Type() == plumbing.HashReference && (n.IsBranch() || n.IsTag()) {
			t.refs[n.String()] = ref.Hash()
		}
		return nil
	})
	if err != nil {
		return nil, t, fmt.Errorf("export %s: references: %w", e.Dir, err)
	}
	head, err := s.Reference(plumbing.HEAD)
	if err != nil && !errors.Is(err, plumbing.ErrReferenceNotFound) {
		return nil, t, fmt.Errorf("export %s: HEAD: %w", e.Dir, err)
	}
	if head != nil {
		if head.Type() == plumbing.SymbolicReference {
			if h, ok := t.refs[head.Target().String()]; ok {
				t.branch, t.head = head.Target().String(), h
			}
		} else {
			t.head = head.Hash()
		}
	}
	return s, t, nil
}

// advertise answers the first request of a clone or fetch.
func (e *Export) advertise(w http.ResponseWriter, r *http.Request) {
	_, t, err := e.open()
	if err != nil {
		exportError(w, http.StatusInternalServerError, "cannot read the repository")
		return
	}
	ar := packp.NewAdvRefs()
	ar.Prefix = [][]byte{[]byte("# service=git-upload-pack"), pktline.Flush}
	caps := ar.Capabilities
	// No side-band, thin-pack or shallow: the pack goes unframed and
	// whole, and a clone is always complete.
	for _, c := range []capability.Capability{capability.MultiACKDetailed, capability.OFSDelta} {
		if err := caps.Set(c); err != nil {
			panic(err) // a known capability without argument
		}
	}
	if err := caps.Set(capability.Agent, "tolk"); err != nil {
		panic(err)
	}
	if t.branch != "" {
		// Tells git which branch to check out after a clone.
		if err := caps.Set(capability.SymRef, "HEAD:"+t.branch); err != nil {
			panic(err)
		}
	}
	if !t.head.IsZero() {
		h := t.head
		ar.Head = &h
	}
	for n, h := range t.refs {
		ar.References[n] = h
	}
	var buf bytes.Buffer
	if err := ar.Encode(&buf); err != nil {
		exportError(w, http.StatusInternalServerError, "cannot encode the references")
		return
	}
	h := w.Header()
	h.Set("Content-Type", "application/x-git-upload-pack-advertisement")
	h.Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		w.Write(buf.Bytes())
	}
}

// uploadRequest is one stateless upload-pack request.
type uploadRequest struct {
	wants, haves []plumbing.Hash
	caps         []string
	done         bool // the client sent "done": it wants the pack now
}

// parseUploadRequest reads the want lines (the first carries the
// capabilities), a flush, then have lines up to a flush or "done".
func parseUploadRequest(r io.Reader) (uploadRequest, error) {
	var req uploadRequest
	sc := pktline.NewScanner(r)
	wants := true
	for sc.Scan() {
		line := bytes.TrimSuffix(sc.Bytes(), []byte("\n"))
		if len(line) == 0 { // flush-pkt
			if wants {
				wants = false
				continue
			}
			return req, nil
		}
		verb, rest, _ := strings.Cut(string(line), " ")
		switch {
		case wants && verb == "want":
			id, caps, _ := strings.Cut(rest, " ")
			h, err := parseHash(id)
			if err != nil {
				return req, err
			}
			req.wants = append(req.wants, h)
			if caps != "" {
				req.caps = append(req.caps, strings.Fields(caps)...)
			}
		case !wants && verb == "have":
			h, err := parseHash(rest)
			if err != nil {
				return req, err
			}
			req.haves = append(req.haves, h)
		case !wants && verb == "done":
			req.done = true
			return req, nil
		default:
			// shallow, deepen and filter lines answer capabilities this
			// server does not advertise.
			return req, fmt.Errorf("unexpected %q line", verb)
		}
	}
	if err := sc.Err(); err != nil {
		return req, err
	}
	if len(req.wants) == 0 {
		return req, errors.New("no wants")
	}
	return req, nil // a request may end without a final flush
}

func parseHash(s string) (plumbing.Hash, error) {
	if len(s) != 40 || !plumbing.IsHash(s) {
		return plumbing.ZeroHash, fmt.Errorf("invalid object name %q", s)
	}
	return plumbing.NewHash(s), nil
}

// uploadPack answers one round of negotiation, or the final request with
// the pack.
//
// With multi_ack_detailed (git's choice over HTTP: in stateless RPC it
// replays the haves we acknowledged in every later request), each have
// we hold gets "ACK <id> common", a round ends with "NAK", and "done" gets
// "ACK <last common>" or "NAK" before the pack. Without it (go-git, which
// sends wants, haves and "done" in one request), only the first common
// have is acknowledged, "NAK" means none was found, and nothing more is
// said after "done". The pack holds what the wants reach minus what the
// common haves reach.
func (e *Export) uploadPack(w http.ResponseWriter, r *http.Request) {
	body := io.Reader(http.MaxBytesReader(w, r.Body, maxUploadRequest))
	if r.Header.Get("Content-Encoding") == "gzip" {
		// git compresses large requests (many haves).
		zr, err := gzip.NewReader(body)
		if err != nil {
			exportError(w, http.StatusBadRequest, "bad gzip body")
			return
		}
		defer zr.Close()
		// The limit above counts compressed bytes; a small body can
		// inflate without end, so the inflated stream has the same bound.
		body = io.LimitReader(zr, maxUploadRequest)
	}
	req, err := parseUploadRequest(body)
	if err != nil {
		exportError(w, http.StatusBadRequest, "bad upload-pack request: "+err.Error())
		return
	}
	s, t, err := e.open()
	if err != nil {
		exportError(w, http.StatusInternalServerError, "cannot read the repository")
		return
	}
	h := w.Header()
	h.Set("Content-Type", "application/x-git-upload-pack-result")
	h.Set("Cache-Control", "no-cache")
	enc := pktline.NewEncoder(w)

	// As git does by default (uploadpack.allowAnySHA1InWant off), only
	// advertised tips may be wanted.
	advertised := map[plumbing.Hash]bool{}
	if !t.head.IsZero() {
		advertised[t.head] = true
	}
	for _, h := range t.refs {
		advertised[h] = true
	}
	for _, want := range req.wants {
		if !advertised[want] {
			enc.Encodef("ERR upload-pack: not our ref %s", want)
			return
		}
	}
	multiACK := req.has(capability.MultiACKDetailed)
	var common []plumbing.Hash
	for _, have := range req.haves {
		if _, err := s.EncodedObject(plumbing.CommitObject, have); err != nil {
			continue // the client's own commit, unknown here
		}
		switch {
		case multiACK:
			enc.Encodef("ACK %s common\n", have)
		case len(common) == 0:
			enc.Encodef("ACK %s\n", have)
		}
		common = append(common, have)
	}
	switch {
	case !req.done:
		if multiACK || len(common) == 0 {
			enc.EncodeString("NAK\n")
		}
		return
	case len(common) == 0:
		enc.EncodeString("NAK\n")
	case multiACK:
		enc.Encodef("ACK %s\n", common[len(common)-1])
	}
	if err := sendPack(r.Context(), w, s, req, common); err != nil {
		// The status line is gone; breaking the stream is all that is left
		// for the client to notice.
		panic(http.ErrAbortHandler)
	}
}

// has reports whether the client asked for capability c.
func (req *uploadRequest) has(c capability.Capability) bool {
	for _, s := range req.caps {
		if s == c.String() {
			return true
		}
	}
	return false
}

// sendPack writes the pack of the objects the wants reach and the common
// haves do not.
func sendPack(ctx context.Context, w io.Writer, s storer.Storer, req uploadRequest, common []plumbing.Hash) error {
	objs, err := revlist.Objects(s, req.wants, common)
	if err != nil {
		return fmt.Errorf("list objects: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	useRefDeltas := !req.has(capability.OFSDelta)
	_, err = packfile.NewEncoder(&ctxWriter{ctx: ctx, w: w}, s, useRefDeltas).Encode(objs, packWindow)
	if err != nil {
		return fmt.Errorf("encode pack: %w", err)
	}
	return nil
}

// ctxWriter stops a long pack when the client has gone away.
type ctxWriter struct {
	ctx context.Context
	w   io.Writer
}

func (c *ctxWriter) Write(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.w.Write(p)
}
