package index

import (
	"errors"
	"net/netip"
	"testing"
)

// TestPrivateAddress: an IPv6 address of a translation prefix is judged by
// the IPv4 address it carries, so that neither a literal in a URL nor a
// name resolving to one reaches a private IPv4 host through a NAT64
// gateway, a 6to4 or Teredo relay, or a stack that still routes
// IPv4-compatible addresses. Each prefix is given carrying a private and a
// public address.
func TestPrivateAddress(t *testing.T) {
	tests := []struct {
		name    string
		addr    string
		private bool
	}{
		{"ipv4 public", "8.8.8.8", false},
		{"ipv4 loopback", "127.0.0.1", true},
		{"ipv4 rfc1918", "10.1.2.3", true},
		{"ipv4 shared", "100.64.0.1", true},
		{"ipv4 this network", "0.1.2.3", true},
		{"ipv4 link-local (metadata)", "169.254.169.254", true},
		{"ipv6 public", "2606:4700::1111", false},
		{"ipv6 loopback", "::1", true},
		{"ipv6 unspecified", "::", true},
		{"ipv6 unique local", "fd00::1", true},
		{"ipv6 link-local", "fe80::1", true},

		{"ipv4-mapped private", "::ffff:192.168.0.1", true},
		{"ipv4-mapped public", "::ffff:8.8.8.8", false},

		// ::/96, IPv4-compatible (RFC 4291 §2.5.5.1, deprecated).
		{"ipv4-compatible loopback", "::127.0.0.1", true},
		{"ipv4-compatible private", "::10.0.0.1", true},
		{"ipv4-compatible metadata", "::169.254.169.254", true},
		{"ipv4-compatible public", "::8.8.8.8", false},

		// 64:ff9b::/96, the NAT64 well-known prefix (RFC 6052 §2.1).
		{"nat64 loopback", "64:ff9b::127.0.0.1", true},
		{"nat64 private", "64:ff9b::192.168.1.1", true},
		{"nat64 metadata", "64:ff9b::a9fe:a9fe", true},
		{"nat64 public", "64:ff9b::8.8.8.8", false},

		// 64:ff9b:1::/48, NAT64 for local use (RFC 8215), in its /96
		// form; other forms carry an address at an offset that depends
		// on a prefix length only the network knows, so they are refused.
		{"nat64 local-use private", "64:ff9b:1::10.0.0.1", true},
		{"nat64 local-use public", "64:ff9b:1::8.8.8.8", false},
		{"nat64 local-use /48 form", "64:ff9b:1:808:8:800::", true},

		// 2002::/16, 6to4 (RFC 3056 §2): the IPv4 address follows the
		// prefix.
		{"6to4 loopback", "2002:7f00:1::1", true},
		{"6to4 private", "2002:c0a8:101::1", true},
		{"6to4 public", "2002:808:808::1", false},

		// 2001::/32, Teredo (RFC 4380 §4): server address in bits
		// 32-63, client address XORed with 0xffffffff in bits 96-127.
		// 192.168.1.1 obfuscated is 3f57:fefe; 8.8.8.8 is f7f7:f7f7;
		// 127.0.0.1 is 80ff:fffe.
		{"teredo private client", "2001:0:808:808:8000:ffff:3f57:fefe", true},
		{"teredo loopback client", "2001:0:808:808:8000:ffff:80ff:fffe", true},
		{"teredo private server", "2001:0:a00:1:8000:ffff:f7f7:f7f7", true},
		{"teredo public", "2001:0:808:808:8000:ffff:f7f7:f7f7", false},
		// Bits that read as 192.168.1.1 carry the public client
		// 63.87.254.254: the XOR is applied, not skipped.
		{"teredo public client, private-looking bits", "2001:0:808:808:8000:ffff:c0a8:101", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			addr := netip.MustParseAddr(tc.addr)
			if got := PrivateAddress(addr); got != tc.private {
				t.Errorf("PrivateAddress(%s) = %v, want %v", addr, got, tc.private)
			}
		})
	}
}

// TestRefusePrivate: the dial check refuses what PrivateAddress reports
// and anything that is not an address and port.
func TestRefusePrivate(t *testing.T) {
	for address, refused := range map[string]bool{
		"8.8.8.8:443": false, "[2606:4700::1111]:443": false,
		"127.0.0.1:80": true, "[64:ff9b::a9fe:a9fe]:80": true, "localhost:80": true, "": true,
	} {
		err := RefusePrivate("tcp", address)
		var pe *PrivateAddressError
		if got := errors.As(err, &pe); got != refused || (err != nil && !got) {
			t.Errorf("RefusePrivate(%q) = %v, want refused %v", address, err, refused)
		}
	}
}
