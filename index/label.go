package index

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// Label is a project's tag for source strings (reference workspace
// §7.1). Labels are set on source units; a translation's unit shows its
// source unit's.
type Label struct {
	ID          int64
	ProjectID   int64
	Name        string
	Description string
	// Color is one of LabelColors.
	Color string
}

// LabelColors are the reference's 16 label colours
// (weblate/utils/colors.py), in its order.
var LabelColors = []string{"navy", "blue", "aqua", "teal", "olive", "green", "lime", "yellow",
	"orange", "red", "maroon", "fuchsia", "purple", "black", "gray", "silver"}

// LabelNameMaxLength is the reference's limit on a label's name.
const LabelNameMaxLength = 190

// CheckLabel returns what is wrong with a new label's fields, by field,
// or nil. The reference's colour field names no choices in its message;
// Tolk lists them, so a client can correct itself.
func CheckLabel(l *Label) error {
	errs := &FieldError{}
	switch {
	case strings.TrimSpace(l.Name) == "":
		errs.Add("name", "blank", "This field may not be blank.")
	case utf8.RuneCountInString(l.Name) > LabelNameMaxLength:
		errs.Add("name", "max_length", fmt.Sprintf("Ensure this field has no more than %d characters.", LabelNameMaxLength))
	}
	if !slices.Contains(LabelColors, l.Color) {
		errs.Add("color", "invalid_choice", fmt.Sprintf("%q is not a valid choice. Choose one of: %s.",
			l.Color, strings.Join(LabelColors, ", ")))
	}
	return errs.Err()
}

// ErrLabelExists is the answer to a label name its project already has.
var ErrLabelExists = FieldErr("name", "unique", "Label with this name already exists in this project.")

// Messages of refused label writes, the reference's.
const (
	msgNoLabels     = "Can not create labels"
	msgNoLabelsEdit = "Can not delete labels"
	// MsgLabelNotFound is the answer to a unit write naming a label its
	// project does not have.
	MsgLabelNotFound = "Label with this ID was not found in this project."
)

// CheckCreateLabel is project.edit, as the reference checks it for
// adding a label.
func CheckCreateLabel(who *Principal, projectID int64) error {
	if !who.Can(PermProjectEdit, projectID) {
		return denied(msgNoLabels)
	}
	return nil
}

// CheckDeleteLabel is project.edit for removing one.
func CheckDeleteLabel(who *Principal, projectID int64) error {
	if !who.Can(PermProjectEdit, projectID) {
		return denied(msgNoLabelsEdit)
	}
	return nil
}
