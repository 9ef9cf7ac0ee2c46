package index

import (
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// User is a person or bot who acts on translations.
type User struct {
	ID       int64
	Username string
	FullName string
	Email    string
	IsActive bool
	IsBot    bool
	// IsSuperuser may do anything (within a token's scope).
	IsSuperuser bool
	Joined      time.Time
	// SecondaryLanguages are the codes of the languages the user reads
	// besides the one translated, in the user's order (the reference's
	// profile field secondary_languages): the editor shows a string in
	// them first among its other languages.
	SecondaryLanguages []string
}

// UserFilter selects users. Zero fields are not filters.
type UserFilter struct {
	// UsernamePrefix keeps users whose username starts with it (the
	// reference's username filter), case-sensitively.
	UsernamePrefix string
	ID             int64
	// IsActive keeps active (true) or inactive (false) users.
	IsActive *bool
	// Email keeps users with this address, ignoring case.
	Email string
	Page  Page
}

// UserUpdate changes the fields that are set and leaves the others.
type UserUpdate struct {
	Username    *string
	FullName    *string
	Email       *string
	IsActive    *bool
	IsBot       *bool
	IsSuperuser *bool
	// SecondaryLanguages replaces the user's secondary languages
	// (codes); the store refuses unknown ones.
	SecondaryLanguages *[]string
}

// MaxSecondaryLanguages bounds a user's secondary languages: each is a
// row the editor shows first.
const MaxSecondaryLanguages = 20

// Apply sets the fields of u that upd gives.
func (u *User) Apply(upd UserUpdate) {
	for _, f := range []struct{ to, from *string }{
		{&u.Username, upd.Username}, {&u.FullName, upd.FullName}, {&u.Email, upd.Email},
	} {
		if f.from != nil {
			*f.to = *f.from
		}
	}
	for _, f := range []struct{ to, from *bool }{
		{&u.IsActive, upd.IsActive}, {&u.IsBot, upd.IsBot}, {&u.IsSuperuser, upd.IsSuperuser},
	} {
		if f.from != nil {
			*f.to = *f.from
		}
	}
	if upd.SecondaryLanguages != nil {
		u.SecondaryLanguages = *upd.SecondaryLanguages
	}
}

// Limits of the user fields, the reference's (weblate/trans/defines.py).
const (
	UsernameMaxLength = 150
	FullNameMaxLength = 150
	EmailMaxLength    = 190
)

// Problems of the user fields, in the reference's words and codes.
var (
	problemBlank = FieldProblem{Code: "blank", Detail: "This field may not be blank."}
	problemDot   = FieldProblem{Code: "invalid", Detail: "Username can not start with a full stop."}
	problemChars = FieldProblem{Code: "invalid",
		Detail: "Username may only contain letters, numbers or the following characters: @ . + - _"}
	problemSpecial = FieldProblem{Code: "invalid", Detail: "Please avoid using special characters in the full name."}
	problemEmail   = FieldProblem{Code: "invalid", Detail: "Enter a valid email address."}
)

// TooLong is the problem of a field longer than max characters.
func TooLong(max int) FieldProblem {
	return FieldProblem{Code: "max_length", Detail: fmt.Sprintf("Ensure this field has no more than %d characters.", max)}
}

// CheckUsername returns what is wrong with a username, or nil: it must
// be 1 to 150 letters, digits and @ . + - _, not starting with a full
// stop (it would read as a hidden file or a relative path). Letters are
// ASCII only; the reference also takes other scripts, which Tolk refuses
// so that no name can pass for another that looks the same.
func CheckUsername(name string) *FieldProblem {
	switch {
	case name == "":
		return ptrTo(problemBlank)
	case utf8.RuneCountInString(name) > UsernameMaxLength:
		return ptrTo(TooLong(UsernameMaxLength))
	case strings.HasPrefix(name, "."):
		return ptrTo(problemDot)
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("@.+-_", r)) {
			return ptrTo(problemChars)
		}
	}
	return nil
}

// CheckFullName returns what is wrong with a full name, or nil: it must
// not be blank, too long, padded with spaces or hold control characters,
// which git refuses in commit authors.
func CheckFullName(name string) *FieldProblem {
	switch {
	case strings.TrimSpace(name) == "":
		return ptrTo(problemBlank)
	case utf8.RuneCountInString(name) > FullNameMaxLength:
		return ptrTo(TooLong(FullNameMaxLength))
	case strings.TrimSpace(name) != name || strings.IndexFunc(name, unicode.IsControl) >= 0:
		return ptrTo(problemSpecial)
	}
	return nil
}

// CheckEmail returns what is wrong with an e-mail address, or nil. The
// empty address is fine: a user need not have one. What is checked is the
// shape, not deliverability: one @ between a local part and a dotted
// domain, no spaces.
func CheckEmail(email string) *FieldProblem {
	if email == "" {
		return nil
	}
	if utf8.RuneCountInString(email) > EmailMaxLength {
		return ptrTo(TooLong(EmailMaxLength))
	}
	local, domain, ok := strings.Cut(email, "@")
	if !ok || local == "" || strings.Contains(domain, "@") || !strings.Contains(domain, ".") ||
		strings.HasPrefix(domain, ".") || strings.HasSuffix(domain, ".") || strings.Contains(domain, "..") ||
		strings.ContainsFunc(email, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) {
		return ptrTo(problemEmail)
	}
	return nil
}

func ptrTo[T any](v T) *T { return &v }
