package servertest

// ReferenceSearchQueries are one query for each field of the reference's
// search language (weblate-workspace.md §8.2), each is: and has: value
// and alias, each state name, and each construct of §8.1: what the
// tests of /api/units/ and the editor send to show that every one is
// taken (the answers are checked field by field in index/sqlstore's
// search tests, on the store both serve).
var ReferenceSearchQueries = []string{
	// Text fields: substring, exact, regex.
	"source:file", "target:datei", "context:o", "key:o", "note:x", "location:main", "explanation:home",
	`source:="Hello"`, `target:r"^[A-Z]"`, `key:r"o$"`,
	// Numbers, dates, states.
	"id:>0", "id:1,2,3", "position:[1 to 5]", "priority:>=100", "added:>=2020", "changed:>=yesterday",
	`changed:[2019-03-01 to 2019-04-01]`, `changed:>="2 weeks ago"`, "change_time:2026", "change_action:marked-for-edit",
	`change_action:"Translation changed"`, "changed_by:admin", `changed_by:""`, "source_changed:<2030", "last_changed:>2000",
	"state:empty", "state:untranslated", "state:needs-editing", "state:fuzzy", "state:needs-rewriting",
	"state:needs-checking", "state:translated", "state:approved", "state:read-only", "state:readonly",
	"state:<translated", "state:>=10", "state:[needs-editing to approved]", "source_state:read-only",
	"pending:true", "pending:no",
	// is: and has:.
	"is:read-only", "is:readonly", "is:approved", "is:needs-editing", "is:fuzzy", "is:translated",
	"is:untranslated", "is:pending", "is:automatically-translated",
	"has:plural", "has:context", "has:suggestion", "has:comment", "has:resolved-comment", "has:source-comment",
	"has:resolved-source-comment", "has:check", "has:failing-check", "has:dismissed-check", "has:ignored-check",
	"has:translation", "has:variant", "has:screenshot", "has:flags", "has:explanation", "has:glossary",
	"has:note", "has:label", "has:location",
	// Scope.
	"language:de", "language:German", "component:app", "project:demo", "path:demo", "path:demo/app",
	"path:demo/app/de", "path:demo/-/de",
	// Checks, comments, suggestions, labels, screenshots.
	"check:same", "check:max-length", "dismissed_check:same", "comment:typo", "resolved_comment:done",
	"comment_author:admin", "source_comment:question", "resolved_source_comment:old", "source_comment_author:admin",
	"suggestion:x", "suggestion_author:admin", "label:urgent", `label:"ui text"`, "labels_count:>=1", "screenshot:x",
	// Constructs.
	"hello world", `"hello world"`, `'hello world'`, "file OR key:o", "NOT state:translated",
	"(key:o OR key:e) AND NOT is:translated", "state:<translated AND NOT has:suggestion",
	"has:check AND state:>=translated", "not has:label", "Source:FILE or TARGET:datei",
	"NOT has:glossary OR (has:glossary AND state:<translated)",
}
