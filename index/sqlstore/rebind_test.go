package sqlstore

import "testing"

func TestRebind(t *testing.T) {
	d := &dialect{numbered: true}
	for _, tc := range []struct{ in, want string }{
		{`SELECT 1`, `SELECT 1`},
		{`SELECT a FROM t WHERE b = ? AND c IN (?, ?)`, `SELECT a FROM t WHERE b = $1 AND c IN ($2, $3)`},
		{`SELECT '?' || ? FROM "q?"`, `SELECT '?' || $1 FROM "q?"`},
		{`SELECT 'it''s ?', ?`, `SELECT 'it''s ?', $1`},
		{`WHERE (a = ?1 OR ?1 = 0) AND b = ?12`, `WHERE (a = $1 OR $1 = 0) AND b = $12`},
	} {
		if got := d.rebind(tc.in); got != tc.want {
			t.Errorf("rebind(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := (&dialect{}).rebind(`a = ?`); got != `a = ?` {
		t.Errorf("SQLite rebind changed the query: %q", got)
	}
}
