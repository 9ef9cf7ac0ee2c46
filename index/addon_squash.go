package index

// AddonSquash squashes the commits Tolk makes before they are pushed
// (the reference's weblate.git.squash).
const AddonSquash = "weblate.git.squash"

func init() { AddonNames = append(AddonNames, AddonSquash) }

// The ways a squash add-on groups commits (its "squash" field).
const (
	SquashAll      = "all"      // one commit
	SquashLanguage = "language" // one per language
	SquashFile     = "file"     // one per file
	SquashAuthor   = "author"   // one per run of one author's commits
)

// SquashModes are the values of Squash.Mode, in the reference's order.
var SquashModes = []string{SquashAll, SquashLanguage, SquashFile, SquashAuthor}

// Squash is the configuration of a weblate.git.squash add-on.
type Squash struct {
	Mode string // SquashAll, SquashLanguage, SquashFile or SquashAuthor
	// AppendTrailers keeps the squashed commits' trailers
	// (Co-authored-by: and the like) at the end of the message.
	AppendTrailers bool
	// CommitMessage replaces the squashed commits' messages when not
	// empty; it is a template of the component's message variables.
	CommitMessage string
}
