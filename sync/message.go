package sync

import (
	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/sync/msgtemplate"
)

// MessageVars are the variables a commit, add, delete, merge, add-on or
// pull message template may use (spec, "Message templates"), under the
// reference's names given with each field.
type MessageVars struct {
	LanguageName string // language_name
	LanguageCode string // language_code
	// Author is the commit's author as "Name <email>" (author).
	Author                string
	ComponentRemoteBranch string // component_remote_branch
	SiteTitle             string // site_title
	SiteURL               string // site_url
	ProjectName           string // project_name
	ProjectSlug           string // project_slug
	ComponentName         string // component_name
	ComponentSlug         string // component_slug
	// URL is the web URL of the translation, or of the component for a
	// message about the whole component (url).
	URL       string
	WidgetURL string // widget_url
	AddonName string // addon_name
	Filename  string // filename: the translation's file
	// Stats are the translation's (or component's) statistics, read as
	// stats.translated_percent, stats.translated, stats.all and the
	// reference's other keys (context lists them).
	Stats index.Stats
	// LinkedChildren are the components that share this one's repository
	// (component_linked_childs, the reference's spelling).
	LinkedChildren []LinkedChild
}

// LinkedChild is a component linked to the one committing: a template
// reads project_name, name and url; by itself it renders as
// "project/name", as the reference's component does.
type LinkedChild struct {
	ProjectName, Name, URL string
}

// context is the variables under their template names. stats holds the
// reference's names for a translation's counts (TranslationStats.get_data);
// percentages are truncated to one decimal as the API's are.
func (v *MessageVars) context() map[string]any {
	children := make([]any, len(v.LinkedChildren))
	for i, c := range v.LinkedChildren {
		children[i] = &msgtemplate.Object{
			Attrs: map[string]any{"project_name": c.ProjectName, "name": c.Name, "url": c.URL},
			Text:  c.ProjectName + "/" + c.Name,
		}
	}
	st := &v.Stats
	pct := func(n int) float64 { return index.Percent(n, st.Total) }
	pctWords := func(n int) float64 { return index.Percent(n, st.TotalWords) }
	stats := &msgtemplate.Object{Attrs: map[string]any{
		"all": st.Total, "all_words": st.TotalWords, "all_chars": st.TotalChars,
		"translated": st.Translated, "translated_words": st.TranslatedWords, "translated_chars": st.TranslatedChars,
		"translated_percent": pct(st.Translated), "translated_words_percent": pctWords(st.TranslatedWords),
		"fuzzy": st.Fuzzy, "fuzzy_words": st.FuzzyWords, "fuzzy_percent": pct(st.Fuzzy),
		"approved": st.Approved, "approved_words": st.ApprovedWords, "approved_percent": pct(st.Approved),
		"allchecks": st.Failing, "allchecks_words": st.FailingWords, "allchecks_percent": pct(st.Failing),
		"readonly": st.Readonly, "readonly_words": st.ReadonlyWords, "readonly_percent": pct(st.Readonly),
		"suggestions": st.Suggestions, "comments": st.Comments,
	}}
	return map[string]any{
		"language_name": v.LanguageName, "language_code": v.LanguageCode, "author": v.Author,
		"component_remote_branch": v.ComponentRemoteBranch, "site_title": v.SiteTitle, "site_url": v.SiteURL,
		"project_name": v.ProjectName, "project_slug": v.ProjectSlug,
		"component_name": v.ComponentName, "component_slug": v.ComponentSlug,
		"url": v.URL, "widget_url": v.WidgetURL, "addon_name": v.AddonName, "filename": v.Filename,
		"hook_name": v.AddonName, // the reference's older name, kept for old templates
		"stats":     stats, "component_linked_childs": children,
	}
}

// RenderMessage renders a message template with vars the way the
// reference renders it with Django's template language (msgtemplate
// lists the subset). A variable that does not exist renders as ""
// (Django's default; CheckMessage refuses such a template before it is
// saved, as the reference does, so only a list index beyond the list's
// end gets here). The text is returned as rendered; trimming blank lines
// is the committer's (git commit does it to the reference's messages).
//
// It returns a *msgtemplate.Error when the template does not parse, and
// msgtemplate.ErrRenderLimit when rendering it exceeds the render limits;
// CheckMessage finds both before a template is saved. Safe for
// concurrent use.
func RenderMessage(tmpl string, vars MessageVars) (string, error) {
	t, err := msgtemplate.Parse(tmpl)
	if err != nil {
		return "", err
	}
	return t.Render(vars.context())
}

// sampleMessageVars are what CheckMessage renders a template with: every
// variable set, and a few linked components so that loops run.
var sampleMessageVars = MessageVars{
	LanguageName: "Czech", LanguageCode: "cs", Author: "Jane Doe <jane@example.com>",
	ComponentRemoteBranch: "main", SiteTitle: "Tolk", SiteURL: "https://tolk.example.com",
	ProjectName: "Project", ProjectSlug: "project", ComponentName: "Component", ComponentSlug: "component",
	URL: "https://tolk.example.com/projects/project/component/cs/", WidgetURL: "https://tolk.example.com/widget/project/",
	AddonName: "Squash Git commits", Filename: "po/cs.po",
	Stats: index.Stats{Total: 200, Translated: 101, TotalWords: 1000, TranslatedWords: 505},
	LinkedChildren: []LinkedChild{
		{"Project", "Docs", "https://tolk.example.com/projects/project/docs/"},
		{"Project", "Web", "https://tolk.example.com/projects/project/web/"},
		{"Other", "App", "https://tolk.example.com/projects/other/app/"},
	},
}

// CheckMessage reports whether a message template renders: nil, a
// *msgtemplate.Error saying where and why it does not parse or which
// {{ variable }} MessageVars does not give (in any branch), or
// msgtemplate.ErrRenderLimit when rendering it with sample variables
// exceeds the render limits. The API checks every template when a
// component is saved, so that a commit never fails on its message.
func CheckMessage(tmpl string) error {
	t, err := msgtemplate.Parse(tmpl)
	if err != nil {
		return err
	}
	return t.Check(sampleMessageVars.context())
}

// CheckMessage is the package's CheckMessage, for the API, which does
// not import sync.
func (s *Service) CheckMessage(tmpl string) error { return CheckMessage(tmpl) }
