package index

import (
	"fmt"
	"net/netip"
	"strings"
)

// PrivateAddressError refuses a connection to an address that
// PrivateAddress reports: RefusePrivate returns it.
type PrivateAddressError struct{ Addr netip.Addr }

func (e *PrivateAddressError) Error() string {
	return fmt.Sprintf("%s is a private, loopback or link-local address, which this server does not connect to", e.Addr)
}

// RefusePrivate returns a *PrivateAddressError when address, an IP
// address and port ("203.0.113.7:443") about to be dialled, is private
// (PrivateAddress) or not an address at all; nil otherwise. It is the one
// check of the connections a webhook delivery and a repository's clone,
// fetch or push make: given as net.Dialer.Control (webhook) or as a
// vcs.Guard (sync), it runs after name resolution, at every connection.
// network is not read; it is there to fit both.
func RefusePrivate(network, address string) error {
	addr, err := netip.ParseAddrPort(address)
	if err != nil || PrivateAddress(addr.Addr()) {
		return &PrivateAddressError{Addr: addr.Addr()}
	}
	return nil
}

// PrivateHost reports whether host, a URL's host name without its port,
// names a private, loopback or link-local place by itself: localhost (or
// a name under .localhost) or an address PrivateAddress reports. Other
// names are judged only when dialled (RefusePrivate), since what they
// resolve to may change. It is the URL check of webhook targets and of
// machine translation services' addresses.
func PrivateHost(host string) bool {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	addr, err := netip.ParseAddr(host)
	return err == nil && PrivateAddress(addr)
}

// sharedAddressSpace is 100.64.0.0/10, carrier-grade NAT (RFC 6598):
// not routable on the internet, so as private as RFC 1918's ranges.
var sharedAddressSpace = netip.MustParsePrefix("100.64.0.0/10")

// PrivateAddress reports whether addr is one a webhook must not reach
// unless private targets are allowed: loopback, private (RFC 1918, RFC
// 4193), link-local (cloud metadata services live there), shared, multicast
// or unspecified. An IPv4-mapped IPv6 address is judged as IPv4, and so is
// an address of a prefix that carries IPv4 to an IPv4 host
// (carriedIPv4): it is private when any address it carries is.
func PrivateAddress(addr netip.Addr) bool {
	addr = addr.Unmap()
	if carried, ok := carriedIPv4(addr); ok {
		for _, v4 := range carried {
			if privateAddress(v4) {
				return true
			}
		}
		return len(carried) == 0
	}
	return privateAddress(addr)
}

// privateAddress is PrivateAddress without the translation prefixes.
func privateAddress(addr netip.Addr) bool {
	return !addr.IsValid() || addr.IsLoopback() || addr.IsPrivate() || addr.IsLinkLocalUnicast() ||
		addr.IsLinkLocalMulticast() || addr.IsInterfaceLocalMulticast() || addr.IsMulticast() ||
		addr.IsUnspecified() || sharedAddressSpace.Contains(addr) ||
		(addr.Is4() && addr.As4()[0] == 0) // 0.0.0.0/8, "this network"
}

// The IPv6 prefixes whose addresses carry an IPv4 address that a gateway,
// a relay or the host's own stack sends the packets on to.
var (
	ipv4Compatible = netip.MustParsePrefix("::/96")          // RFC 4291 §2.5.5.1, deprecated
	nat64          = netip.MustParsePrefix("64:ff9b::/96")   // RFC 6052 §2.1, well-known prefix
	nat64Local     = netip.MustParsePrefix("64:ff9b:1::/48") // RFC 8215, local use
	nat64Local96   = netip.MustParsePrefix("64:ff9b:1::/96")
	sixToFour      = netip.MustParsePrefix("2002::/16") // RFC 3056 §2
	teredo         = netip.MustParsePrefix("2001::/32") // RFC 4380 §4
)

// carriedIPv4 returns the IPv4 addresses an IPv6 address of a
// translation prefix carries, and whether addr is of one:
//   - ::a.b.c.d (IPv4-compatible), 64:ff9b::a.b.c.d (NAT64) and
//     2002:AABB:CCDD::/48 (6to4) carry one address;
//   - Teredo carries two, its server's in bits 32-63 and its client's,
//     XORed with 0xffffffff, in bits 96-127;
//   - 64:ff9b:1::/48 carries one at an offset that depends on a prefix
//     length only the network knows (RFC 6052 §2.2); only its /96 form,
//     64:ff9b:1::a.b.c.d, is read, and any other address of the prefix
//     carries none that can be judged: it is reported with no address,
//     which PrivateAddress counts as private.
func carriedIPv4(addr netip.Addr) ([]netip.Addr, bool) {
	if !addr.Is6() {
		return nil, false
	}
	b := addr.As16()
	v4 := func(i int) netip.Addr { return netip.AddrFrom4([4]byte(b[i : i+4])) }
	switch {
	case ipv4Compatible.Contains(addr), nat64.Contains(addr), nat64Local96.Contains(addr):
		return []netip.Addr{v4(12)}, true
	case nat64Local.Contains(addr):
		return nil, true
	case sixToFour.Contains(addr):
		return []netip.Addr{v4(2)}, true
	case teredo.Contains(addr):
		client := [4]byte(b[12:16])
		for i := range client {
			client[i] ^= 0xff
		}
		return []netip.Addr{v4(4), netip.AddrFrom4(client)}, true
	}
	return nil, false
}
