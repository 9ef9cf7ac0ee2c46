package sqlstore

import (
	"maps"
	"slices"

	"github.com/tolk-project/tolk/checks"
	"github.com/tolk-project/tolk/index"
)

// The inconsistent check (reference: workspace §1, ConsistencyCheck):
// a unit fails it when the same string (source and context) in the same
// language of another component of the project, both components allowing
// translation propagation, holds another target and one of the two is
// translated. It is stored as every other check (the settler adds it to
// what package checks computes, addInconsistent); the units it compares
// are found as propagation finds them (peerTranslations), by the
// id_hash each component's kind gives the string, so a project of one
// component, or whose components do not allow propagation, pays one
// query per translation settled.
//
// An edit marks the same string's units elsewhere for a recheck
// (propagate), whose outcome it may change. An import does not: the
// reference recomputes project-wide in a batch after imports, Tolk not
// yet, so a string changed upstream in one component updates the
// others' inconsistent rows on their next edit.

// peerTranslations returns the translations in t's language of the
// other components of t's project that allow translation propagation,
// by id; none when t's own component does not allow it, t is a source
// or a glossary. Locked components are among them.
func peerTranslations(tx *Tx, t *index.Translation) ([]index.Translation, error) {
	if !t.Component.AllowTranslationPropagation || t.IsSource || t.Component.IsGlossary {
		return nil, nil
	}
	ids, err := cachedPeerIDs(tx, t)
	if err != nil {
		return nil, err
	}
	var out []index.Translation
	for _, id := range ids {
		other, err := cachedTranslation(tx, id)
		if err != nil {
			return nil, err
		}
		if other.Component.AllowTranslationPropagation && !other.Component.IsGlossary {
			out = append(out, other)
		}
	}
	return out, nil
}

// peerKey names the translations peerIDs reads: a language's in the
// components of a project but one.
type peerKey struct {
	project, component int64
	language           string
}

// cachedPeerIDs is peerIDs answered from db.peers on the terms of
// cachedTranslation: while the batch's writes, this one included, were
// narrow ones, which add or move no translation or component. An edit
// asks twice (propagate, then the inconsistent check as it settles), and
// every edit of a translation asks the same; each was a query on the
// writer.
func cachedPeerIDs(tx *Tx, t *index.Translation) ([]int64, error) {
	if tx.db == nil || tx.batchWide || !tx.narrowed || tx.widened {
		return peerIDs(tx, t)
	}
	k := peerKey{t.Component.ProjectID, t.ComponentID, t.LanguageCode}
	return cachedAt(tx.db, &tx.db.peers, k, noDep, maxCachedLookups, one,
		func(uint64) ([]int64, error) { return peerIDs(tx, t) })
}

// peerIDs reads the ids of the translations into t's language of the
// other components of t's project, sources aside, in order.
func peerIDs(tx *Tx, t *index.Translation) ([]int64, error) {
	return queryIDs(tx, `SELECT t.id FROM translations t JOIN components c ON c.id = t.component_id
		WHERE c.project_id = ? AND c.id != ? AND t.language_code = ? AND t.is_source = 0 ORDER BY t.id`,
		t.Component.ProjectID, t.ComponentID, t.LanguageCode)
}

// sharedString is a unit's string as another component holds it.
type sharedString struct {
	id              int64
	source, context string
	target          string
	state           index.State
}

// sharedKey names a string in a peer translation: its id and the
// string's id_hash there (sharedHash).
type sharedKey struct{ translation, hash int64 }

// sharedHash is the id_hash peer's kind gives the string (source joined,
// context): the context alone in a monolingual component.
func sharedHash(peer *index.Translation, str [2]string) int64 {
	return index.IDHash(peer.Component.IsMonolingual(), index.SplitPlural(str[0]), str[1])
}

// sameStrings returns the units of peers holding one of strs (source
// joined, context), by sharedKey{peer, sharedHash(peer, str)}. It is
// one query (per maxInList of peers and of hashes) whatever the number
// of peers, through the units_translation_hash index; propagation
// (propagateUnits) and the inconsistent check (addInconsistent) both
// ask it, each an edit's, where each asked once per peer.
func sameStrings(tx *Tx, peers []index.Translation, strs [][2]string) (map[sharedKey]sharedString, error) {
	out := map[sharedKey]sharedString{}
	if len(peers) == 0 || len(strs) == 0 {
		return out, nil
	}
	want := map[sharedKey][2]string{}
	hashSet := map[int64]bool{}
	tids := make([]int64, len(peers))
	for i := range peers {
		tids[i] = peers[i].ID
		for _, str := range strs {
			h := sharedHash(&peers[i], str)
			want[sharedKey{peers[i].ID, h}] = str
			hashSet[h] = true
		}
	}
	hashes := slices.Sorted(maps.Keys(hashSet))
	for tchunk := range slices.Chunk(tids, maxInList/2) {
		tlist, targs := idList(tchunk)
		for hchunk := range slices.Chunk(hashes, maxInList/2) {
			hlist, hargs := idList(hchunk)
			rows, err := tx.Query(`SELECT id, translation_id, id_hash, source, context, target, state FROM units
				WHERE translation_id IN `+tlist+` AND id_hash IN `+hlist, append(targs, hargs...)...)
			if err != nil {
				return nil, err
			}
			for rows.Next() {
				var s sharedString
				var k sharedKey
				if err := rows.Scan(&s.id, &k.translation, &k.hash, &s.source, &s.context, &s.target, &s.state); err != nil {
					rows.Close()
					return nil, err
				}
				// A hash of another kind's, or a collision.
				if w, ok := want[k]; ok && w[0] == s.source && w[1] == s.context {
					if _, dup := out[k]; !dup {
						out[k] = s
					}
				}
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// addInconsistent appends the inconsistent check to names[i] for each
// of units failing it.
func (s *checkSettler) addInconsistent(units []checkedUnit, names [][]string) error {
	byTranslation := map[int64][]int{}
	for i, u := range units {
		if !u.sourceUnit && u.state != index.StateReadOnly {
			byTranslation[u.translationID] = append(byTranslation[u.translationID], i)
		}
	}
	for _, tid := range slices.Sorted(maps.Keys(byTranslation)) {
		t, err := cachedTranslation(s.tx, tid)
		if err != nil {
			return err
		}
		peers, err := peerTranslations(s.tx, &t)
		if err != nil || len(peers) == 0 {
			if err != nil {
				return err
			}
			continue
		}
		sc, err := s.scope(tid)
		if err != nil {
			return err
		}
		if sc.glossary || sc.isSource {
			continue
		}
		idx := byTranslation[tid]
		contexts, err := unitContexts(s.tx, units, idx)
		if err != nil {
			return err
		}
		strs := make([][2]string, len(idx))
		for k, i := range idx {
			strs[k] = [2]string{units[i].source, contexts[units[i].id]}
		}
		found, err := sameStrings(s.tx, peers, strs)
		if err != nil {
			return err
		}
		others := make([][]checks.SameSource, len(idx))
		for p := range peers {
			for k := range idx {
				if o, ok := found[sharedKey{peers[p].ID, sharedHash(&peers[p], strs[k])}]; ok {
					others[k] = append(others[k], checks.SameSource{Target: index.SplitPlural(o.target),
						Translated: o.state.Translated()})
				}
			}
		}
		for k, i := range idx {
			u := &units[i]
			if checks.IsInconsistent(index.SplitPlural(u.target), u.state.Translated(), sc.flags, others[k]) {
				names[i] = append(names[i], checks.Inconsistent)
			}
		}
	}
	return nil
}

// unitContexts returns the contexts of units[idx] by id: those a
// snapshot holds (an edit's unit: hasContext), the others read, as the
// settler does not read them for the other checks.
func unitContexts(tx *Tx, units []checkedUnit, idx []int) (map[int64]string, error) {
	out := make(map[int64]string, len(idx))
	var ids []int64
	for _, i := range idx {
		if u := &units[i]; u.hasContext {
			out[u.id] = u.context
		} else {
			ids = append(ids, u.id)
		}
	}
	for chunk := range slices.Chunk(ids, maxInList) {
		list, args := idList(chunk)
		rows, err := tx.Query(`SELECT id, context FROM units WHERE id IN `+list, args...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var id int64
			var c string
			if err := rows.Scan(&id, &c); err != nil {
				rows.Close()
				return nil, err
			}
			out[id] = c
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	return out, nil
}
