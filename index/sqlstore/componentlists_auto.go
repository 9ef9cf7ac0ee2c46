package sqlstore

import (
	"slices"

	"github.com/tolk-project/tolk/index"
)

// Component lists' automatic assignment rules (migration 0050,
// index.AutoAssign).

// storeRules replaces a list's rules with rules when they differ from
// before, then adds every component they match: a written rule is
// evaluated at once, as the reference's AutoComponentList.save does.
func storeRules(tx *Tx, listID int64, before, rules []index.AutoAssign) error {
	if slices.Equal(before, rules) {
		return nil
	}
	if _, err := tx.Exec(`DELETE FROM componentlist_rules WHERE list_id = ?`, listID); err != nil {
		return err
	}
	var match []func(p, c string) bool
	for i, a := range rules {
		m, err := a.Matcher()
		if err != nil {
			return index.FieldErr("auto_assign", "invalid", err.Error())
		}
		match = append(match, m)
		if _, err := tx.Exec(`INSERT INTO componentlist_rules (list_id, position, project_match, component_match)
			VALUES (?, ?, ?, ?)`, listID, i, a.ProjectMatch, a.ComponentMatch); err != nil {
			return err
		}
	}
	if len(match) == 0 {
		return nil
	}
	rows, err := tx.Query(`SELECT c.id, p.slug, c.slug FROM components c JOIN projects p ON p.id = c.project_id ORDER BY c.id`)
	if err != nil {
		return err
	}
	var add []int64
	for rows.Next() {
		var id int64
		var ps, cs string
		if err := rows.Scan(&id, &ps, &cs); err != nil {
			rows.Close()
			return err
		}
		if slices.ContainsFunc(match, func(m func(p, c string) bool) bool { return m(ps, cs) }) {
			add = append(add, id)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, id := range add {
		if err := listComponent(tx, listID, id); err != nil {
			return err
		}
	}
	return nil
}

// autoAssign adds components just created, renamed or moved, or whose
// project was renamed, to every list with a rule they match: the
// reference checks every rule on each component save, and on a project
// save for each of its components (auto_project_componentlist). The
// rules are read once for all of them. A rule that no longer compiles
// (written by an older Tolk) is skipped. As the reference's, rules only
// add: a component that stops matching stays in the list.
func autoAssign(tx *Tx, componentIDs ...int64) error {
	rows, err := tx.Query(`SELECT list_id, project_match, component_match FROM componentlist_rules ORDER BY list_id, position`)
	if err != nil {
		return err
	}
	type rule struct {
		list  int64
		match func(p, c string) bool
	}
	var rules []rule
	for rows.Next() {
		var list int64
		var a index.AutoAssign
		if err := rows.Scan(&list, &a.ProjectMatch, &a.ComponentMatch); err != nil {
			rows.Close()
			return err
		}
		if m, err := a.Matcher(); err == nil {
			rules = append(rules, rule{list, m})
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil || len(rules) == 0 {
		return err
	}
	for _, id := range componentIDs {
		var ps, cs string
		if err := tx.QueryRow(`SELECT p.slug, c.slug FROM components c JOIN projects p ON p.id = c.project_id
			WHERE c.id = ?`, id).Scan(&ps, &cs); err != nil {
			return err
		}
		var lists []int64
		for _, r := range rules {
			if !slices.Contains(lists, r.list) && r.match(ps, cs) {
				lists = append(lists, r.list)
			}
		}
		for _, list := range lists {
			if err := listComponent(tx, list, id); err != nil {
				return err
			}
		}
	}
	return nil
}

// listComponent adds a component to a list, if not there already.
func listComponent(tx *Tx, listID, componentID int64) error {
	_, err := tx.Exec(`INSERT INTO componentlist_components (list_id, component_id) VALUES (?, ?)
		ON CONFLICT DO NOTHING`, listID, componentID)
	return err
}
