package web

import (
	"encoding/json"

	"github.com/tolk-project/tolk/checks"
	"github.com/tolk-project/tolk/index"
)

// "Fix string" on a failing check (issue 30, item 2; reference §1.8):
// where the reference's check has a fixup (get_fixup), the editor's
// check row carries its replacements as JSON for the script
// (workspace.js), which applies them to the text boxes when the
// translator presses the row's button — a button, so it is in the tab
// order and Enter or Space presses it. Nothing is saved: the translator
// sees the fixed text and saves it as any other edit. Without the script
// the button stays hidden.

// setFixups fills the Fixup of each failing (not dismissed) check row
// of unit x that has one.
func setFixups(rows []checkRow, x *index.Unit, t *index.Translation) {
	u := checks.Unit{Source: x.Source, Target: x.Target, Language: t.LanguageCode,
		SourceLanguage: t.Component.SourceLanguage}
	for i := range rows {
		if rows[i].Dismissed {
			continue
		}
		rs := checks.Fixup(rows[i].ID, u)
		if len(rs) == 0 {
			continue
		}
		if b, err := json.Marshal(rs); err == nil {
			rows[i].Fixup = string(b)
		}
	}
}
