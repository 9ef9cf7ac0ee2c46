package sqlstore

import (
	"strings"

	"github.com/tolk-project/tolk/index"
)

// unitSortExpr is the SQL of each sort_by key (index.UnitSortKeys) over
// units, and whether it is text (compared by code point on both engines:
// SQLite's BINARY, PostgreSQL's "C" collation, so one list pages alike
// on either).
var unitSortExpr = map[string]struct {
	sql  string
	text bool
	// nullable: a unit may have no value (no label); such units sort
	// last ascending and first descending, as on the reference's
	// PostgreSQL.
	nullable bool
}{
	"position":           {sql: "units.position"},
	"priority":           {sql: "units.priority"},
	"source":             {sql: "units.source", text: true},
	"target":             {sql: "units.target", text: true},
	"context":            {sql: "units.context", text: true},
	"location":           {sql: "units.location", text: true},
	"timestamp":          {sql: "units.timestamp"},
	"num_words":          {sql: "units.num_words"},
	"last_updated":       {sql: lastChanged("units.id")},
	"num_comments":       {sql: "(SELECT count(*) FROM comments m WHERE m.unit_id = units.id AND m.resolved = 0)"},
	"num_failing_checks": {sql: "(SELECT count(*) FROM checks k WHERE k.unit_id = units.id AND k.dismissed = 0)"},
	// The reference sorts by the label names' maximum (max_labels_name).
	"labels": {sql: "(SELECT max(lb.name) FROM unit_labels ul JOIN labels lb ON lb.id = ul.label_id WHERE ul.unit_id = " +
		srcID + ")", text: true, nullable: true},
	"component": {sql: "(SELECT cm.name FROM translations t JOIN components cm ON cm.id = t.component_id WHERE t.id = units.translation_id)",
		text: true},
}

// unitOrder is the ORDER BY of a unit list: the sort keys, then the id,
// so that equal keys keep one order from page to page.
func unitOrder(sorts []index.UnitSort, postgres bool) string {
	var terms []string
	for _, s := range sorts {
		e := unitSortExpr[s.Key]
		col := e.sql
		if e.text && postgres {
			col += ` COLLATE "C"`
		}
		dir := ""
		if s.Desc {
			dir = " DESC"
		}
		if e.nullable {
			terms = append(terms, "("+e.sql+" IS NULL)"+dir)
		}
		terms = append(terms, col+dir)
	}
	return strings.Join(append(terms, "units.id"), ", ")
}

// cachedSort reports whether a list in this order may be kept until a
// write touches its units: not when a key reads the rows of other
// writes (comments, checks, labels, changes, a component's name).
func cachedSort(sorts []index.UnitSort) bool {
	for _, s := range sorts {
		switch s.Key {
		case "labels", "num_comments", "num_failing_checks", "last_updated", "component":
			return false
		}
	}
	return true
}
