package edge

import "github.com/tolk-project/tolk/index"

// The permission checks of an upload, with the reference's reasons
// (weblate/auth/permissions.py; weblate-writes.md §3.1 and §5.5). Each
// returns "" when allowed, else the reason to show.

// UploadDenied is the reference's upload.perform check on a translation,
// answered with 403: uploading to the source language needs source.edit
// and a format that can update source strings (a monolingual template
// can; the source of a bilingual glossary cannot), then the edit checks,
// then some way to use the upload at all.
func UploadDenied(p *index.Principal, t *index.Translation) string {
	switch {
	case t.IsSource && !p.CanTranslation(index.PermSourceEdit, t):
		return "Insufficient privileges for editing source strings."
	case t.IsSource && !t.IsTemplate:
		return "The file format does not support updating source strings."
	}
	if reason := editDenied(p, t, index.PermUploadPerform); reason != "" {
		return reason
	}
	if !t.IsSource && editDenied(p, t, index.PermUnitEdit) != "" && addDenied(p, t) != "" {
		return DefaultDenied
	}
	return ""
}

// editDenied is the reference's check_can_edit (index.CheckCanEdit) as
// a reason.
func editDenied(p *index.Principal, t *index.Translation, perm index.Permission) string {
	if err := index.CheckCanEdit(p, t, perm); err != nil {
		return index.ErrorMessage(err)
	}
	return ""
}

// addDenied is the reference's unit.add check: strings of a monolingual
// component are added to its template, and only where the component lets
// strings be managed. A glossary refuses as the reference does for
// formats that cannot add: the TBX writer adds term entries (a term added
// with POST .../units/ is committed as one), but an upload adding
// glossary terms is not wired yet.
func addDenied(p *index.Principal, t *index.Translation) string {
	if why := index.ManageUnitsDenied(t); why != "" {
		return why
	}
	if !t.Component.IsMonolingual() {
		return "The file format does not support this."
	}
	return editDenied(p, t, index.PermUnitAdd)
}

// methodDenied says why the upload's method is not available on t.
func methodDenied(p *index.Principal, t *index.Translation, m index.UploadMethod) string {
	switch m {
	case index.UploadTranslate, index.UploadFuzzy:
		return editDenied(p, t, index.PermUnitEdit)
	case index.UploadApprove:
		return index.ReviewDenied(p, t)
	case index.UploadAdd:
		return addDenied(p, t)
	case index.UploadSuggest:
		return suggestDenied(p, t)
	case index.UploadReplace:
		return replaceDenied(p, t)
	case index.UploadSource:
		// Neither of Tolk's formats can update source strings from an
		// upload (the reference's BilingualUpdateMixin, e.g. PO).
		return "The file format does not support updating source strings."
	}
	return "Check your permissions or use different translation object."
}

// methodNotAvailable prefixes a method's refusal as the reference does.
const methodNotAvailable = "This method is not available here. "

// checkUploadPerms is the reference's UploadRequestSerializer.check_perms
// and what follows it in the view, all answered with 400: overwriting
// needs upload.overwrite (and unit.review for approved strings), the
// method its own permission, and a translation without a file takes only
// a source upload.
func checkUploadPerms(p *index.Principal, t *index.Translation, form *uploadForm) error {
	problem := func(attr, detail string) error {
		return &index.FieldError{Fields: map[string]index.FieldProblem{attr: {Code: "invalid", Detail: detail}}}
	}
	if form.conflicts != index.ConflictsIgnore && !p.CanTranslation(index.PermUploadOverwrite, t) {
		return problem("conflicts", "You can not overwrite existing translations.")
	}
	if form.conflicts == index.ConflictsReplaceApproved {
		if reason := index.ReviewDenied(p, t); reason != "" {
			return problem("conflicts", reason)
		}
	}
	if form.method == index.UploadSource && !t.IsSource {
		return problem("method", "Source upload is supported only on source language.")
	}
	if reason := methodDenied(p, t, form.method); reason != "" {
		return problem("method", methodNotAvailable+reason)
	}
	if t.Filename == "" && form.method != index.UploadSource {
		return problem("method", "No translation file, try using method=source.")
	}
	return nil
}

// replaceDenied is the reference's check for a replace upload: editing
// the component, or adding, removing and editing strings alike, since a
// replace does all three to the translation.
func replaceDenied(p *index.Principal, t *index.Translation) string {
	c := &t.Component
	if c.Locked {
		return "This translation is currently locked."
	}
	if p.CanTranslation(index.PermComponentEdit, t) {
		return ""
	}
	for _, perm := range []index.Permission{index.PermUnitAdd, index.PermUnitDelete, index.PermUnitEdit} {
		if !p.CanTranslation(perm, t) {
			return "Insufficient privileges for replacing the file."
		}
	}
	return ""
}

// suggestDenied is the reference's suggestion.add check on a
// translation (index.SuggestionAddDenied): an upload is never anonymous.
func suggestDenied(p *index.Principal, t *index.Translation) string {
	return index.SuggestionAddDenied(p, t, false)
}
