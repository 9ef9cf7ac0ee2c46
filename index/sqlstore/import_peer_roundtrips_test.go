package sqlstore

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/internal/testengine"
)

// maxImportPeerRoundTrips is what TestImportPeerRoundTrips's import may
// cost. It was 76 while the settler read the peers' ids, then each peer
// (a round trip each in a wide write), then their totals before the
// lookup, and sent the follow-up lookup alone: the peers and their
// totals are one query now (peerTranslationsTotals).
const maxImportPeerRoundTrips = 65

// TestImportPeerRoundTrips counts the writer's round trips for the
// import of a translation the write creates, whose 100 strings two
// other components of the project hold in its language, some of them
// translated otherwise: the inconsistent check reads the peers'
// distinct targets (a lookup of 64 strings or more, which first asks
// whether to read the peers whole: peersMostlyWanted), then the peers'
// units of the strings they translate otherwise (followCreated).
func TestImportPeerRoundTrips(t *testing.T) {
	if testengine.Engine() != testengine.Postgres {
		t.Skip("round trips are PostgreSQL's")
	}
	db, rt, f := roundTripFixture(t)
	const n = 100
	importPeer := func(slug, lang string, other int) int64 {
		c := mustTestComponent(t, db, f.comp.ProjectID, slug)
		src := importStrings(t, db, c.ID, "en", 0, n, "Peer string %d").TranslationID
		imp := index.TranslationImport{ComponentID: c.ID, LanguageCode: lang, Filename: lang + ".json",
			Revision: "r", Monolingual: true, SourceTranslationID: src}
		for i := range n {
			target := fmt.Sprintf("Ziel %d", i)
			if i%other == 0 {
				target = fmt.Sprintf("Anders %d", i)
			}
			imp.Units = append(imp.Units, index.ImportUnit{Context: fmt.Sprintf("k%d", i),
				Source: []string{fmt.Sprintf("Peer string %d", i)}, Target: []string{target}, State: index.StateTranslated})
		}
		var res index.ImportResult
		log := rt.during(func() {
			var err error
			if res, err = db.ImportTranslation(context.Background(), imp); err != nil {
				t.Fatal(err)
			}
		})
		if slug == "peer3" {
			rounds := countRoundTrips(log)
			t.Logf("a created translation's import beside two peers: %d round trips:\n%s", rounds, strings.Join(log, "\n"))
			if rounds > maxImportPeerRoundTrips {
				t.Errorf("the import took %d round trips, want at most %d", rounds, maxImportPeerRoundTrips)
			}
			if strings.Contains(strings.Join(log, "\n"), "SELECT count(*), coalesce(sum(total), 0) FROM stats") {
				t.Errorf("the lookup asked the peers' totals in a query of its own")
			}
		}
		return res.TranslationID
	}
	importPeer("peer1", "de", 7)
	importPeer("peer2", "de", 1000)
	tid := importPeer("peer3", "de", 11)
	// The check holds: string 0 is "Anders 0" in all, 7 and 11 differ.
	var failing int
	if err := db.r.QueryRowContext(context.Background(), `SELECT count(*) FROM checks k JOIN units u ON u.id = k.unit_id
		WHERE u.translation_id = ? AND k.name = 'inconsistent'`, tid).Scan(&failing); err != nil {
		t.Fatal(err)
	}
	want := 0
	for i := range n {
		a, b, c := i%7 == 0, false, i%11 == 0 // peer2 differs only at 0
		if i == 0 {
			b = true
		}
		if a != c || b != c {
			want++
		}
	}
	if failing != want {
		t.Errorf("%d units of the created translation fail inconsistent, want %d", failing, want)
	}
}
