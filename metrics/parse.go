package metrics

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
)

// ParsedSample is one sample line of the text format.
type ParsedSample struct {
	Name   string
	Labels map[string]string
	Value  float64
}

// Parse reads the text exposition format strictly: every sample belongs
// to the family its # TYPE line declared just before, a family's lines
// are contiguous and declared once, names and labels are well formed,
// and each histogram's buckets are cumulative, end at +Inf and agree
// with its _count. It is for tests and tools that check what a
// /metrics endpoint serves.
func Parse(r io.Reader) ([]ParsedSample, error) {
	var (
		out      []ParsedSample
		family   string // the family of the last # TYPE
		typ      string
		declared = map[string]bool{}
		lastLE   = map[string]float64{} // histogram series (labels without le) -> last bucket bound
		lastCum  = map[string]float64{}
	)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		fail := func(format string, args ...any) error {
			return fmt.Errorf("metrics: line %d %q: %s", n, line, fmt.Sprintf(format, args...))
		}
		switch {
		case line == "":
			continue
		case strings.HasPrefix(line, "# TYPE "):
			f := strings.Fields(line[len("# TYPE "):])
			if len(f) != 2 || !nameRe.MatchString(f[0]) {
				return nil, fail("malformed TYPE")
			}
			switch f[1] {
			case "counter", "gauge", "histogram", "summary", "untyped":
			default:
				return nil, fail("unknown type %q", f[1])
			}
			if declared[f[0]] {
				return nil, fail("family %s declared twice", f[0])
			}
			declared[f[0]], family, typ = true, f[0], f[1]
			continue
		case strings.HasPrefix(line, "# HELP "):
			if f := strings.Fields(line[len("# HELP "):]); len(f) == 0 || !nameRe.MatchString(f[0]) {
				return nil, fail("malformed HELP")
			}
			continue
		case strings.HasPrefix(line, "#"):
			continue
		}
		s, err := parseSample(line)
		if err != nil {
			return nil, fail("%v", err)
		}
		suffix, ok := strings.CutPrefix(s.Name, family)
		if family == "" || !ok {
			return nil, fail("sample outside its family's # TYPE (last declared: %q)", family)
		}
		switch {
		case typ == "histogram" && suffix == "_bucket":
			le, ok := s.Labels["le"]
			if !ok {
				return nil, fail("bucket without le")
			}
			bound, err := strconv.ParseFloat(le, 64)
			if err != nil {
				return nil, fail("le %q: %v", le, err)
			}
			key := seriesKey(s.Labels, "le")
			if prev, ok := lastLE[key]; ok && (bound <= prev || s.Value < lastCum[key]) {
				return nil, fail("buckets not increasing and cumulative")
			}
			lastLE[key], lastCum[key] = bound, s.Value
		case typ == "histogram" && suffix == "_count":
			key := seriesKey(s.Labels, "")
			if le, ok := lastLE[key]; !ok || le != posInf || lastCum[key] != s.Value {
				return nil, fail("_count does not match a +Inf bucket")
			}
		case typ == "histogram" && suffix == "_sum":
		case suffix != "":
			return nil, fail("sample outside its family's # TYPE (last declared: %q)", family)
		}
		out = append(out, s)
	}
	return out, sc.Err()
}

var posInf = math.Inf(1)

// seriesKey names a series by its labels, leaving out one.
func seriesKey(labels map[string]string, skip string) string {
	var parts []string
	for k, v := range labels {
		if k != skip {
			parts = append(parts, k+"="+v)
		}
	}
	slices.Sort(parts)
	return strings.Join(parts, ",")
}

// parseSample reads name{label="value",...} value [timestamp].
func parseSample(line string) (ParsedSample, error) {
	s := ParsedSample{Labels: map[string]string{}}
	i := strings.IndexAny(line, "{ ")
	if i < 0 {
		return s, fmt.Errorf("no value")
	}
	s.Name, line = line[:i], line[i:]
	if !nameRe.MatchString(s.Name) {
		return s, fmt.Errorf("invalid metric name %q", s.Name)
	}
	if strings.HasPrefix(line, "{") {
		line = line[1:]
		for !strings.HasPrefix(line, "}") {
			eq := strings.Index(line, `="`)
			if eq < 0 {
				return s, fmt.Errorf("malformed labels")
			}
			name := line[:eq]
			if !labelRe.MatchString(name) {
				return s, fmt.Errorf("invalid label name %q", name)
			}
			if _, dup := s.Labels[name]; dup {
				return s, fmt.Errorf("label %s repeated", name)
			}
			line = line[eq+2:]
			var v strings.Builder
			for {
				if line == "" {
					return s, fmt.Errorf("unterminated label value")
				}
				c := line[0]
				line = line[1:]
				if c == '"' {
					break
				}
				if c == '\\' {
					if line == "" {
						return s, fmt.Errorf("unterminated escape")
					}
					switch line[0] {
					case '\\', '"':
						v.WriteByte(line[0])
					case 'n':
						v.WriteByte('\n')
					default:
						return s, fmt.Errorf("invalid escape \\%c", line[0])
					}
					line = line[1:]
					continue
				}
				v.WriteByte(c)
			}
			s.Labels[name] = v.String()
			line = strings.TrimPrefix(line, ",")
		}
		line = line[1:]
	}
	f := strings.Fields(line)
	if len(f) < 1 || len(f) > 2 || !strings.HasPrefix(line, " ") {
		return s, fmt.Errorf("want one value and an optional timestamp")
	}
	v, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return s, fmt.Errorf("value %q: %v", f[0], err)
	}
	s.Value = v
	return s, nil
}

// Value returns the value of the sample named name whose labels include
// every pair given, and whether there is one.
func Value(samples []ParsedSample, name string, labels map[string]string) (float64, bool) {
next:
	for _, s := range samples {
		if s.Name != name {
			continue
		}
		for k, v := range labels {
			if s.Labels[k] != v {
				continue next
			}
		}
		return s.Value, true
	}
	return 0, false
}
