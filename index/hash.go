package index

import (
	"encoding/binary"
	"math/bits"
)

// The reference hashes unit identities with SipHash-2-4 under this fixed
// key (../shared/reference/weblate-core.md, "id_hash and content_hash"),
// so ids computed here match the ones clients already stored.
const hashKey = "Weblate Sip Hash"

var (
	hashK0 = binary.LittleEndian.Uint64([]byte(hashKey[:8]))
	hashK1 = binary.LittleEndian.Uint64([]byte(hashKey[8:]))
)

// HashParts returns the signed 64-bit SipHash-2-4 of the parts
// concatenated with no separator, as the API shows id_hash and
// content_hash (the unsigned value minus 2^63).
func HashParts(parts ...string) int64 {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	var buf []byte
	if len(parts) == 1 {
		buf = []byte(parts[0])
	} else {
		buf = make([]byte, 0, n)
		for _, p := range parts {
			buf = append(buf, p...)
		}
	}
	return int64(sipHash24(hashK0, hashK1, buf) - 1<<63)
}

// IDHash returns a unit's id_hash: the context alone for monolingual
// components, source plus context for bilingual ones.
func IDHash(monolingual bool, source []string, context string) int64 {
	if monolingual {
		return HashParts(context)
	}
	return IDHashJoined(false, JoinPlural(source), context)
}

// IDHashJoined is IDHash of a source already joined (JoinPlural), for
// callers that hold it joined (an import's prepared units, the peers'
// shared strings), so that the monolingual rule is written once and the
// source is not split only to be joined again.
func IDHashJoined(monolingual bool, joinedSource, context string) int64 {
	if monolingual {
		return HashParts(context)
	}
	return HashParts(joinedSource, context)
}

// ContentHash returns a unit's content_hash: source plus context.
func ContentHash(source []string, context string) int64 {
	return HashParts(JoinPlural(source), context)
}

func sipHash24(k0, k1 uint64, m []byte) uint64 {
	v0 := k0 ^ 0x736f6d6570736575
	v1 := k1 ^ 0x646f72616e646f6d
	v2 := k0 ^ 0x6c7967656e657261
	v3 := k1 ^ 0x7465646279746573
	round := func() {
		v0 += v1
		v1 = bits.RotateLeft64(v1, 13)
		v1 ^= v0
		v0 = bits.RotateLeft64(v0, 32)
		v2 += v3
		v3 = bits.RotateLeft64(v3, 16)
		v3 ^= v2
		v0 += v3
		v3 = bits.RotateLeft64(v3, 21)
		v3 ^= v0
		v2 += v1
		v1 = bits.RotateLeft64(v1, 17)
		v1 ^= v2
		v2 = bits.RotateLeft64(v2, 32)
	}
	length := len(m)
	for len(m) >= 8 {
		w := binary.LittleEndian.Uint64(m)
		v3 ^= w
		round()
		round()
		v0 ^= w
		m = m[8:]
	}
	var last [8]byte
	copy(last[:], m)
	last[7] = byte(length)
	w := binary.LittleEndian.Uint64(last[:])
	v3 ^= w
	round()
	round()
	v0 ^= w
	v2 ^= 0xff
	round()
	round()
	round()
	round()
	return v0 ^ v1 ^ v2 ^ v3
}
