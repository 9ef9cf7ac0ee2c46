-- A background recheck of a big component (checks_recheck.go) keeps its
-- place here, so that one cut short by a stop or a crash resumes at the
-- next start where it stopped, rather than leaving the units it had not
-- reached showing what they failed under the old settings until each is
-- written again. The write that changes the settings inserts the row
-- (or sets a running recheck back to its start); each batch's write
-- moves it on, in the same transaction as the checks it settled; the
-- last removes it.
--
-- translation_id is the translation being rechecked (0: none yet),
-- after_unit_id the last unit of it rechecked (0: none yet); the
-- translations of the component are walked in id order, their units in
-- id order.
CREATE TABLE component_rechecks (
	component_id   INTEGER PRIMARY KEY REFERENCES components(id) ON DELETE CASCADE,
	translation_id INTEGER NOT NULL DEFAULT 0,
	after_unit_id  INTEGER NOT NULL DEFAULT 0
);
