package android

import "strings"

// androidCodes are the language codes Android resources still spell the
// old way (the reference's ANDROID_CODES in weblate/formats/base.py).
var androidCodes = map[string]string{"he": "iw", "id": "in", "yi": "ji"}

// legacyCodes are the Chinese codes Android names by region, not script
// (the reference's LEGACY_CODES).
var legacyCodes = map[string]string{
	"zh_Hans":    "zh_CN",
	"zh_Hant":    "zh_TW",
	"zh_Hans_SG": "zh_SG",
	"zh_Hant_HK": "zh_HK",
}

// fromAndroid and fromLegacy map back, as the reference's alias table
// (weblate-language-data aliases.csv: in→id, iw→he, ji→yi, zh_cn→zh_Hans,
// zh_tw→zh_Hant, zh_hk→zh_Hant_HK, zh_sg→zh_Hans_SG) does when it reads a
// path.
var (
	fromAndroid = invert(androidCodes)
	fromLegacy  = invert(legacyCodes)
)

func invert(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[v] = k
	}
	return out
}

// CodeFromQualifier returns the language code (as Tolk's index stores it:
// "pt_BR", "uz_Latn", "zh_Hans") of a resource directory's qualifier, the
// part after "values-": "pt-rBR" gives "pt_BR", "b+uz+Latn" "uz_Latn",
// "in" "id", "iw" "he", "zh-rCN" "zh_Hans", "zh-rTW" "zh_Hant", "zh-rHK"
// "zh_Hant_HK". ok is false for a qualifier that names no language, such
// as "night", "v21", "land" or "sw600dp", or one that adds other
// qualifiers to the language ("de-land").
//
// "und" (undetermined) is a language code, and the reference has a
// language for it (weblate-language-data languages.csv), so it is
// returned as "und".
func CodeFromQualifier(q string) (code string, ok bool) {
	var parts []string
	if rest, isBCP := strings.CutPrefix(q, "b+"); isBCP {
		parts = strings.Split(rest, "+")
		if !isLang(parts[0]) {
			return "", false
		}
		for i, p := range parts[1:] {
			switch {
			case len(p) == 4 && isAlpha(p) && i == 0:
				parts[i+1] = strings.ToUpper(p[:1]) + strings.ToLower(p[1:])
			case len(p) == 2 && isAlpha(p), len(p) == 3 && isDigits(p):
				parts[i+1] = strings.ToUpper(p)
			case len(p) >= 5 && len(p) <= 8 && isAlnum(p), len(p) == 4 && isDigits(p[:1]) && isAlnum(p):
				// a variant subtag, kept as written
			default:
				return "", false
			}
		}
	} else {
		lang, region, hasRegion := strings.Cut(q, "-")
		// "car" is the UI mode qualifier Android reads it as, not Carib.
		if !isLang(lang) || lang == "car" {
			return "", false
		}
		parts = []string{lang}
		if hasRegion {
			r, isR := strings.CutPrefix(region, "r")
			if !isR || !(len(r) == 2 && isAlpha(r) || len(r) == 3 && isDigits(r)) {
				return "", false
			}
			parts = append(parts, strings.ToUpper(r))
		}
	}
	parts[0] = strings.ToLower(parts[0])
	if c, ok := fromAndroid[parts[0]]; ok {
		parts[0] = c
	}
	code = strings.Join(parts, "_")
	if c, ok := fromLegacy[code]; ok {
		code = c
	}
	return code, true
}

// Qualifier returns the qualifier of a new translation's directory for a
// language code, the reference's get_language_android: "he" gives "iw",
// "id" "in", "yi" "ji"; "zh_Hans" "zh-rCN", "zh_Hant" "zh-rTW",
// "zh_Hant_HK" "zh-rHK"; a code whose second part is longer than two
// letters uses the BCP 47 form ("uz_Latn" gives "b+uz+Latn"); a region is
// written with -r ("pt_BR" gives "pt-rBR"); a bare language stays as it
// is ("ast" gives "ast").
func Qualifier(code string) string {
	if c, ok := androidCodes[code]; ok {
		return c
	}
	if c, ok := legacyCodes[code]; ok {
		code = c
	}
	if parts := strings.Split(code, "_"); len(parts) > 1 && len(parts[1]) > 2 {
		return "b+" + strings.Join(parts, "+")
	}
	return strings.ReplaceAll(code, "_", "-r")
}

// isLang reports a two- or three-letter language subtag.
func isLang(s string) bool { return (len(s) == 2 || len(s) == 3) && isAlpha(s) }

func isAlpha(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i] | 0x20
		if c < 'a' || c > 'z' {
			return false
		}
	}
	return s != ""
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

func isAlnum(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isAlpha(s[i:i+1]) && !isDigits(s[i:i+1]) {
			return false
		}
	}
	return s != ""
}

// CodeFromQualifier is the package function of the same name, as a
// method so that a Codec can say which language a values-* directory
// holds without its caller knowing the format.
func (Codec) CodeFromQualifier(q string) (code string, ok bool) { return CodeFromQualifier(q) }

// Qualifier is the package function of the same name, as a method.
func (Codec) Qualifier(code string) string { return Qualifier(code) }

// CodeFromPath is CodeFromQualifier: the segment a filemask's `*` stands
// for in res/values-*/strings.xml is the qualifier. "values" alone, the
// template's directory, does not match such a mask. It makes Codec a
// formats.PathLanguages.
func (Codec) CodeFromPath(segment string) (code string, ok bool) { return CodeFromQualifier(segment) }

// PathSegment is Qualifier, the inverse of CodeFromPath.
func (Codec) PathSegment(code string) string { return Qualifier(code) }
