package yaml

import (
	"fmt"
	"strings"

	yamlv3 "go.yaml.in/yaml/v3"
)

// readsAs says YAML text, written as the value of a key, reads back as
// the string want.
func readsAs(text, want string) bool {
	var n yamlv3.Node
	if err := yamlv3.Unmarshal([]byte("v: "+text+"\n"), &n); err != nil {
		return false
	}
	if len(n.Content) != 1 || len(n.Content[0].Content) != 2 {
		return false
	}
	v := n.Content[0].Content[1]
	return v.Kind == yamlv3.ScalarNode && v.Tag == "!!str" && v.Value == want
}

// keyReadsAs says text, written as a mapping key, reads back as the
// string want.
func keyReadsAs(text, want string) bool {
	var n yamlv3.Node
	if err := yamlv3.Unmarshal([]byte(text+": x\n"), &n); err != nil {
		return false
	}
	if len(n.Content) != 1 || len(n.Content[0].Content) != 2 {
		return false
	}
	k := n.Content[0].Content[0]
	return k.Kind == yamlv3.ScalarNode && k.Tag == "!!str" && k.Value == want
}

// printable says s holds only characters YAML writes unescaped (c-printable
// without line breaks), and no byte order mark.
func printable(s string) bool {
	for _, r := range s {
		switch {
		case r == '\t':
		case r < 0x20, r == 0x7F, r >= 0x80 && r < 0xA0 && r != 0x85, r == 0x85, r == 0x2028, r == 0x2029, r == 0xFEFF, r >= 0xFFFE && r <= 0xFFFF:
			return false
		}
	}
	return true
}

// yaml11 says a plain scalar could read as something other than a string
// in YAML 1.1, which Ruby's Psych follows: its booleans (yes, no, on,
// off, y, n), and anything starting like a number, sexagesimal and
// underscored ones included. yaml.v3 reads these as strings, so readsAs
// cannot tell.
func yaml11(v string) bool {
	switch strings.ToLower(v) {
	case "y", "n", "yes", "no", "on", "off", "true", "false", "null", "~", "=", "<<":
		return true
	}
	c := v[0]
	if c == '+' || c == '-' || c == '.' {
		if len(v) == 1 {
			return false
		}
		c = v[1]
	}
	return c >= '0' && c <= '9'
}

// key renders a mapping key: plain when it reads back, else double-quoted.
func key(k string) string {
	if k != "" && printable(k) && !strings.ContainsAny(k, "\n\r") && !yaml11(k) && keyReadsAs(k, k) {
		return k
	}
	return quote(k)
}

// render writes v in the style of the scalar it replaces (style as
// yaml.v3 reports it; header is a block scalar's indicator text, indent
// the indentation of its content lines), when v reads back the same in
// that style, and double-quoted otherwise. flow says the scalar sits in
// a flow collection.
func render(v string, style yamlv3.Style, header string, indent int, flow bool, eol string) string {
	switch {
	case style&yamlv3.LiteralStyle != 0 && !flow && indent > 0:
		if t, ok := literal(v, header, indent, eol); ok {
			return t
		}
	case style&yamlv3.SingleQuotedStyle != 0:
		if printable(v) && !strings.ContainsAny(v, "\n\r") {
			t := "'" + strings.ReplaceAll(v, "'", "''") + "'"
			if readsAs(t, v) {
				return t
			}
		}
	case style&(yamlv3.DoubleQuotedStyle|yamlv3.FoldedStyle|yamlv3.LiteralStyle) == 0:
		if v != "" && printable(v) && !strings.ContainsAny(v, "\n\r") && v == strings.TrimSpace(v) &&
			!(flow && strings.ContainsAny(v, ",[]{}#")) && !yaml11(v) && readsAs(v, v) {
			return v
		}
	}
	return quote(v)
}

// literal writes v as a literal block scalar with header "|" or "|-",
// which it must fit: "|-" takes a value without a final newline, "|" one
// with exactly one.
func literal(v, header string, indent int, eol string) (string, bool) {
	switch header {
	case "|-":
		if v == "" || strings.HasSuffix(v, "\n") {
			return "", false
		}
	case "|":
		if !strings.HasSuffix(v, "\n") || strings.HasSuffix(v, "\n\n") || v == "\n" {
			return "", false
		}
		v = v[:len(v)-1]
	default:
		return "", false
	}
	if strings.ContainsRune(v, '\r') || !printable(strings.ReplaceAll(v, "\n", "")) {
		return "", false
	}
	lines := strings.Split(v, "\n")
	if first := strings.TrimLeft(v, "\n"); first == "" || first[0] == ' ' || first[0] == '\t' {
		return "", false
	}
	var b strings.Builder
	b.WriteString(header)
	pad := strings.Repeat(" ", indent)
	for _, l := range lines {
		b.WriteString(eol)
		if l != "" {
			b.WriteString(pad)
			b.WriteString(l)
		}
	}
	t := b.String()
	// Read back at the same indentation under a key at column 0.
	if !readsAs(strings.ReplaceAll(t, eol, "\n"), v+map[bool]string{true: "\n"}[header == "|"]) {
		return "", false
	}
	return t, true
}

// quote writes v double-quoted, escaping what YAML requires and
// characters outside c-printable; other characters stay raw UTF-8.
func quote(v string) string {
	var b strings.Builder
	b.Grow(len(v) + 2)
	b.WriteByte('"')
	for _, r := range v {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case 0x85:
			b.WriteString(`\N`)
		case 0x2028:
			b.WriteString(`\L`)
		case 0x2029:
			b.WriteString(`\P`)
		default:
			switch {
			case r < 0x20 || r == 0x7F || r >= 0x80 && r < 0xA0:
				fmt.Fprintf(&b, `\x%02X`, r)
			case r == 0xFEFF || r == 0xFFFE || r == 0xFFFF:
				fmt.Fprintf(&b, `\u%04X`, r)
			default:
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}
