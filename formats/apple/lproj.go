package apple

import (
	"path"
	"strings"
)

// legacyLproj maps the English language names old Xcode projects used
// as folder names ("English.lproj") to their codes.
var legacyLproj = map[string]string{
	"English": "en", "French": "fr", "German": "de", "Italian": "it",
	"Japanese": "ja", "Spanish": "es", "Dutch": "nl", "Portuguese": "pt",
	"Swedish": "sv", "Danish": "da", "Finnish": "fi", "Norwegian": "nb",
	"Korean": "ko", "Russian": "ru", "Polish": "pl", "Chinese": "zh",
}

// CodeFromLproj returns the language code, as the index stores it, of an
// Xcode localization folder: "zh-Hans.lproj" gives "zh_Hans", "pt-BR"
// gives "pt_BR", "English.lproj" gives "en". dir may be the folder name
// with or without ".lproj", or a slash-separated path ending in it. ok is
// false for "Base" (the development-language folder, not a language) and
// for names that are no language code.
func CodeFromLproj(dir string) (code string, ok bool) {
	name := path.Base(strings.TrimSuffix(dir, "/"))
	name = strings.TrimSuffix(name, ".lproj")
	if name == "" || strings.EqualFold(name, "Base") {
		return "", false
	}
	if c, ok := legacyLproj[name]; ok {
		return c, true
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		alnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		if !alnum && !(i > 0 && (c == '-' || c == '_')) {
			return "", false
		}
	}
	if name[len(name)-1] == '-' || name[len(name)-1] == '_' {
		return "", false
	}
	return strings.ReplaceAll(name, "-", "_"), true
}

// Lproj returns the folder name Xcode uses for a language code:
// "zh_Hans" gives "zh-Hans.lproj", "pt_BR" gives "pt-BR.lproj" (BCP 47
// with hyphens, as the reference's "bcp" language format writes it).
func Lproj(code string) string {
	return strings.ReplaceAll(code, "_", "-") + ".lproj"
}

// lprojSegment is the part of a path a filemask's `*` stands for in
// "*.lproj/Localizable.strings": the folder name without ".lproj".
func lprojSegment(code string) string { return strings.TrimSuffix(Lproj(code), ".lproj") }

// CodeFromPath is CodeFromLproj, so that sync reads "pt-BR" in a mask's
// "*.lproj" as pt_BR and skips Base (the template's folder, no
// language). It makes StringsCodec a formats.PathLanguages.
func (StringsCodec) CodeFromPath(segment string) (string, bool) { return CodeFromLproj(segment) }

// PathSegment is the folder name of a new translation without ".lproj"
// ("pt_BR" gives "pt-BR"), the inverse of CodeFromPath.
func (StringsCodec) PathSegment(code string) string { return lprojSegment(code) }

// CodeFromPath is CodeFromLproj, as for StringsCodec.
func (StringsdictCodec) CodeFromPath(segment string) (string, bool) { return CodeFromLproj(segment) }

// PathSegment is the folder name without ".lproj", as for StringsCodec.
func (StringsdictCodec) PathSegment(code string) string { return lprojSegment(code) }
