package checks

import "slices"

// Inconsistent is the id of the check Inconsistent computes.
const Inconsistent = "inconsistent"

// SameSource is another unit sharing a unit's source and context: in the
// same language, in another component of the project, both components
// allowing translation propagation. The caller finds them (index/sqlstore
// looks them up by hash); this package only judges.
type SameSource struct {
	Target     []string
	Translated bool // state translated or approved
}

// IsInconsistent reports the reference's inconsistent check
// (ConsistencyCheck.check_target_unit): the string is translated
// differently elsewhere in the project, or is translated here and not
// there (or there and not here). It runs on untranslated units too
// (ignore_untranslated is false). A flag ignore-inconsistent silences it.
func IsInconsistent(target []string, translated bool, flags Flags, others []SameSource) bool {
	if flags.Has("ignore-" + Inconsistent) {
		return false
	}
	for _, o := range others {
		if slices.Equal(o.Target, target) {
			continue
		}
		if translated || o.Translated {
			return true
		}
	}
	return false
}
