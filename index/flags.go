package index

import (
	"errors"
	"fmt"

	"github.com/tolk-project/tolk/checks"
)

// FlagsError validates flags in the reference's syntax for the named
// field (check_flags, extra_flags): nil when they parse, else a
// FieldError on field with the parser's reason, as the reference's
// validate_check_flags answers ("Invalid translation flag: …").
func FlagsError(field, flags string) error {
	if _, err := checks.ParseFlags(flags); err != nil {
		detail := "Invalid translation flag: " + err.Error()
		var fe *checks.FlagError
		if errors.As(err, &fe) {
			detail = fmt.Sprintf("Invalid translation flag: %q: %s", fe.Flag, fe.Reason)
		}
		return fieldError(field, detail)
	}
	return nil
}

// EnforcedChecksError validates a component's enforced_checks: every
// id must be a check the reference knows, spelt as it spells it.
func EnforcedChecksError(ids []string) error {
	for _, id := range ids {
		if _, ok := checks.ByID(id); !ok {
			return fieldError("enforced_checks", "Unsupported enforced check: "+id)
		}
	}
	return nil
}
