package sqlstore

import (
	"slices"

	"github.com/tolk-project/tolk/index"
)

// Translation propagation (the reference's Unit.propagate): a string
// saved in a component that allows translation propagation reaches the
// units with the same source and context, in the same language, of the
// other components of its project that allow it too, in the same
// write, each recorded as "Propagated change" (77) by the same actor.
// A unit already holding the target and state is left alone, and so
// are read-only units and locked components' (the reference checks
// unit.edit on each: a lock denies it).

// propagate copies u's target and state, just saved in t, to the same
// string's units in the project's other components (propagateUnits).
func propagate(tx *Tx, t *index.Translation, u *index.Unit, actor index.Actor) error {
	return propagateUnits(tx, t, []*index.Unit{u}, actor)
}

// propagateUnits copies each of units' target and state, just saved in
// t, to the units with its source and context and as many plural forms
// in the peer translations of t (peerTranslations, locked components'
// among them), each through its translation's editor, so that
// statistics, checks, pending marks and the change log follow as for
// any edit. The peers' units are read by one sameStrings query for all
// of units (a merge upload's strings, where it was one per string), each
// peer's unit by the id_hash its component's kind gives the string (the
// context alone for a monolingual one), so the cost grows with the
// project's components, not its strings; the units it then edits are
// read in one round trip for all of them (readPeersForEdit), where it
// was one a peer (issue 31: ten copies of a component in a project, an
// edit reaching nine peers took 13 round trips, 5 with one peer).
func propagateUnits(tx *Tx, t *index.Translation, units []*index.Unit, actor index.Actor) error {
	if len(units) == 0 {
		return nil
	}
	tx.checks.propagations++
	peers, err := peerTranslations(tx, t)
	if err != nil || len(peers) == 0 {
		return err
	}
	strs := make([][2]string, len(units))
	for i, u := range units {
		strs[i] = [2]string{index.JoinPlural(u.Source), u.Context}
	}
	// An edit's lookup reads t's own units of its string too (peers'
	// capacity holds t: peerTranslations), which propagation leaves
	// alone: with what it then writes, the answer is the inconsistent
	// check's for t's unit and the peers' (propagatedLookup), which
	// was a lookup of its own after this one.
	lookup := peers
	if len(units) == 1 {
		lookup = append(peers, *t)
	}
	var readTwice bool
	found, err := sameStringsNoting(tx, lookup, strs, nil, &readTwice)
	if err == nil {
		err = tx.flush()
	}
	if err != nil {
		return err
	}
	var record *propagatedLookup
	if len(units) == 1 {
		if !readTwice {
			record = newPropagatedLookup(lookup, strs[0], found[0])
			tx.checks.propagated = record
		}
		found[0] = slices.DeleteFunc(found[0], func(s peerString) bool { return s.peer == len(peers) })
	}
	var edits []peerEdit
	for i, u := range units {
		target := index.JoinPlural(u.Target)
		for _, s := range found[i] {
			if len(index.SplitPlural(s.target)) != len(u.Target) {
				continue // another number of plural forms
			}
			peer := &peers[s.peer]
			if s.state == index.StateReadOnly || peer.Component.Locked || (s.state == u.State && s.target == target) {
				// Not edited (read-only, locked, or already equal), but
				// whether it is inconsistent may change.
				tx.recheck(false, actor, s.id)
				continue
			}
			edits = append(edits, peerEdit{peer: peer, id: s.id, from: u})
		}
	}
	if len(edits) == 0 {
		return nil
	}
	ids := make([]int64, len(edits))
	seen := make(map[int64]bool, len(edits))
	twice := false
	for i, pe := range edits {
		ids[i] = pe.id
		twice = twice || seen[pe.id]
		seen[pe.id] = true
	}
	read, err := readPeersForEdit(tx, ids)
	if err != nil {
		return err
	}
	// On PostgreSQL the peers' unit UPDATEs and changes are written many
	// rows a statement (editRows.write, as an upload's): nine peers'
	// were eighteen statements, each run apart. Not when a unit is
	// edited twice: an UPDATE ... FROM (VALUES ...) that lists it twice
	// takes either row, where the second edit must win.
	var rows *editRows
	if tx.conn != nil && len(edits) > 1 && !twice {
		rows = &editRows{}
	}
	for _, pe := range edits {
		// A unit edited twice (two of units holding one string) is
		// edited the second time as the first left it: edit updates it
		// in place, as a read afresh would have found it.
		su := read[pe.id]
		e := editorOf(tx, pe.peer, actor)
		e.bulk = rows
		edited, err := e.edit(su, index.UnitEdit{Target: pe.from.Target, State: pe.from.State}, index.ActionPropagated)
		if err != nil {
			return err
		}
		record.wrote(pe.peer.ID, su.ID, su)
		if !edited {
			tx.recheck(false, actor, su.ID)
		}
		if err := e.writeStats(); err != nil {
			return err
		}
	}
	if rows == nil {
		return nil
	}
	return rows.write(tx, false)
}

// peerEdit is a peer's unit propagation edits: unit id of peer, to
// from's target and state.
type peerEdit struct {
	peer *index.Translation
	id   int64
	from *index.Unit
}
