package sync

import (
	"context"
	"slices"

	tolkjson "github.com/tolk-project/tolk/formats/json"
	"github.com/tolk-project/tolk/index"
)

// The weblate.json.customize add-on (index.AddonJSONCustomize): every
// JSON file a commit writes is laid out as configured (indent, spaces or
// tabs, sorted keys) by tolkjson.Restyle, which changes layout and
// order only, never a key's or a value's bytes.
//
// How it meets Tolk's rule that a commit moves only the edited bytes:
// the writer still edits the file in place (render), and the add-on's
// layout is then applied to the whole file. A file already in the
// configured layout is a fixed point of Restyle, so its commits change
// only the edited entries, as without the add-on; a file that is not
// (the add-on just installed, or a file upstream wrote otherwise) is
// re-laid out by the first commit that writes it, which is the change
// the setting asks for, and only then. Files no edit touches are left
// as they are: the add-on does not rewrite a repository by itself.

// jsonRestyler returns the layout c's JSON customize add-on (its own,
// else its project's) gives the files c's commits write, or nil.
func (s *Service) jsonRestyler(ctx context.Context, jc *jobCache, c index.Component) func([]byte) []byte {
	if !slices.Contains(index.JSONFormats, c.FileFormat) {
		return nil
	}
	all, err := jc.covering(ctx, c)
	if err != nil {
		s.opts.Logger.Error("find add-ons", "component", c.ID, "err", err)
		return nil
	}
	found, ok := componentAddon(all, index.AddonJSONCustomize)
	if !ok {
		return nil
	}
	st := tolkjson.Style{Indent: found.JSON.IndentText(), SortKeys: found.JSON.SortKeys}
	return func(data []byte) []byte {
		out, err := tolkjson.Restyle(data, st)
		if err != nil {
			return data // the codec wrote it; a file it cannot read is the import's to report
		}
		return out
	}
}

// styled is data as the JSON customize add-on lays it out.
func (cm *componentCommit) styled(data []byte) []byte {
	if cm.restyle == nil || data == nil {
		return data
	}
	return cm.restyle(data)
}
