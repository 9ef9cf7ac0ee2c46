package index

// Project groups components.
type Project struct {
	ID                int64
	Name              string
	Slug              string
	Web               string
	Instructions      string
	TranslationReview bool
	SourceReview      bool
	SetLanguageTeam   bool
	EnableHooks       bool
	// HookSecret, when not empty, is what incoming webhooks for the
	// project's components must be signed with. It is a credential: never
	// shown in responses or logs.
	HookSecret      string
	LanguageAliases string
	// AccessControl is AccessPublic, AccessProtected or AccessPrivate.
	AccessControl int
	// UseSharedTM and ContributeSharedTM are the reference's shared
	// translation memory settings (reference workspace §5.1): the
	// project's lookups read the shared pool, its strings feed it (never
	// a private project's). Both on by default (migration 0027); only
	// CreateProject and UpdateProject write them.
	UseSharedTM, ContributeSharedTM bool
}
