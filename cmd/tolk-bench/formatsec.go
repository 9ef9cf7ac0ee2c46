package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/tolk-project/tolk/formats"
	"github.com/tolk-project/tolk/formats/codecs"
	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/langdata"
	"github.com/tolk-project/tolk/internal/corpusspec"
	tolksync "github.com/tolk-project/tolk/sync"
	"go.yaml.in/yaml/v3"
)

// parseTarget is the bar for every format: Decode of the corpus
// at 100,000 units a second or more.
const parseTarget = 100000

// Rounds of the formats section: Decode of every file of a component
// and its ceiling alternate formatRounds times; one edit's Apply and a
// Decode of the same file alternate applyRounds times.
const (
	formatRounds      = 7
	formatRoundsQuick = 1
	applyRounds       = 21
	applyRoundsQuick  = 3
)

// formatsResult is the formats section.
type formatsResult struct {
	Rounds, ApplyRounds int
	Components          []formatRow
	Apply               []applyRow // one per format, in the order of Components
	Slowest             string     // the component profiled with -pprof, "" without
}

// formatRow is Decode of every file of one corpus component.
type formatRow struct {
	Component, Format string
	Files, Units      int
	Bytes             int64
	Sec               float64 // median over the rounds, every file
	BestSec           float64 // the fastest round: the least other load on the machine took
	Ceiling           string  // what the ceiling does
	CeilSec           float64
}

// applyRow is one edit written into the largest and the smallest file
// of a format.
type applyRow struct {
	Format       string
	Large, Small applyFile
}

// applyFile is one edit's Apply in one file, beside a Decode of it.
type applyFile struct {
	Path      string // component name and path inside its folder
	Bytes     int64
	Units     int
	DecodeSec float64 // median
	ApplySec  float64 // median
	Changed   int     // lines removed and added (multiset difference)
}

// corpusFile is a file of a component, read into memory with what its
// codec is told of it.
type corpusFile struct {
	path  string
	name  string // what the mask's `*` stands for, or "template"
	data  []byte
	file  formats.File
	units int
}

// formatComponent is a component's files and codec.
type formatComponent struct {
	spec  corpusspec.Component
	codec formats.Codec
	files []corpusFile
	// oneFile says files are the languages of one file (a String
	// Catalog): read, timed and counted once, as sync reads it.
	oneFile bool
}

// benchFormats times every codec over the corpus components of
// corpusspec: Decode of every file matching a component's filemask or
// its template, beside a ceiling that only tokenizes the same bytes;
// then one edit's Apply in the largest and smallest file of each format.
// With limit > 0 only the template and limit other files of each
// component are read. profile wraps the Decode rounds (-pprof);
// profileSlowest, when not nil, gets the slowest component's Decode to
// run for a profile of its own.
func benchFormats(corpus string, limit int, quick bool, profile func(func() error) error,
	profileSlowest func(func() error) error, logf func(string, ...any)) (*formatsResult, error) {
	res := &formatsResult{Rounds: formatRounds, ApplyRounds: applyRounds}
	if quick {
		res.Rounds, res.ApplyRounds = formatRoundsQuick, applyRoundsQuick
	}
	var comps []formatComponent
	for _, spec := range corpusspec.Components {
		fc, err := loadComponent(corpus, spec, limit)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", spec.Name, err)
		}
		comps = append(comps, fc)
		var bytes int64
		units := 0
		for i, f := range fc.files {
			if i == 0 || !fc.oneFile {
				bytes += int64(len(f.data))
			}
			units += f.units
		}
		res.Components = append(res.Components, formatRow{Component: spec.Name, Format: spec.Format,
			Files: len(fc.files), Units: units, Bytes: bytes, Ceiling: ceilingName(spec.Format)})
	}
	logf("formats: Decode of %d components, %d rounds", len(comps), res.Rounds)
	times := make([][]time.Duration, len(comps))
	ceil := make([][]time.Duration, len(comps))
	err := profile(func() error {
		for range res.Rounds {
			for i, fc := range comps {
				d, err := decodeAll(fc)
				if err != nil {
					return err
				}
				times[i] = append(times[i], d)
				if d, err = ceilingAll(fc); err != nil {
					return err
				}
				ceil[i] = append(ceil[i], d)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	slowest := -1
	for i := range comps {
		r := &res.Components[i]
		r.Sec, r.CeilSec, r.BestSec = median(times[i]).Seconds(), median(ceil[i]).Seconds(), slices.Min(times[i]).Seconds()
		if slowest < 0 || float64(r.Units)/r.Sec < float64(res.Components[slowest].Units)/res.Components[slowest].Sec {
			slowest = i
		}
	}
	if profileSlowest != nil && slowest >= 0 {
		fc := comps[slowest]
		res.Slowest = fc.spec.Name
		logf("formats: profiling the slowest, %s", fc.spec.Name)
		err := profileSlowest(func() error {
			for start := time.Now(); time.Since(start) < 2*time.Second; {
				if _, err := decodeAll(fc); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}

	logf("formats: one edit's Apply in the largest and smallest file of each format, %d rounds", res.ApplyRounds)
	var order []string
	byFormat := map[string][]formatComponent{}
	for _, fc := range comps {
		if _, ok := byFormat[fc.spec.Format]; !ok {
			order = append(order, fc.spec.Format)
		}
		byFormat[fc.spec.Format] = append(byFormat[fc.spec.Format], fc)
	}
	for _, name := range order {
		row, err := applyFormat(name, byFormat[name], res.ApplyRounds)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		res.Apply = append(res.Apply, row)
	}
	return res, nil
}

// loadComponent reads the files of spec under corpus: the template and
// every file its filemask matches (limit > 0: the first limit of them),
// each decoded once to count its units and to check it parses.
func loadComponent(corpus string, spec corpusspec.Component, limit int) (formatComponent, error) {
	fc := formatComponent{spec: spec}
	codec, ok := codecs.Lookup(spec.Format)
	if !ok {
		return fc, fmt.Errorf("no codec for %q", spec.Format)
	}
	fc.codec = codec
	if fl, ok := codec.(formats.FileLanguages); ok {
		return loadOneFile(corpus, fc, fl, limit)
	}
	mask, err := tolksync.NewFilemask(spec.Filemask, "")
	if err != nil {
		return fc, err
	}
	if pl, ok := codec.(formats.PathLanguages); ok {
		mask.WithPathLanguages(pl)
	}
	dir := filepath.Join(corpus, spec.Folder)
	paths, err := listFiles(dir)
	if err != nil {
		return fc, err
	}
	langs := langdata.Default()
	source := formatsLanguage(langs, spec.Source)
	n := 0
	for _, p := range paths {
		template := p == spec.Template
		code, ok := mask.Code(p)
		if !template && !ok {
			continue
		}
		if !template {
			if limit > 0 && n >= limit {
				continue
			}
			n++
		}
		f := formats.File{Source: source, Target: formatsLanguage(langs, code), Template: template}
		name := "template"
		if template {
			f.Target = source
		} else {
			// What the mask's `*` stands for, as sync tells a codec.
			before, after, _ := strings.Cut(spec.Filemask, "*")
			f.PathCode = strings.TrimSuffix(strings.TrimPrefix(p, before), after)
			name = f.PathCode
		}
		data, err := os.ReadFile(filepath.Join(dir, p))
		if err != nil {
			return fc, err
		}
		units, err := codec.Decode(data, f)
		if err != nil {
			return fc, fmt.Errorf("%s: %w", p, err)
		}
		fc.files = append(fc.files, corpusFile{path: p, name: name, data: data, file: f, units: len(units)})
	}
	if len(fc.files) == 0 {
		return fc, fmt.Errorf("no file of %s matches %q", dir, spec.Filemask)
	}
	return fc, nil
}

// loadOneFile is loadComponent for a format whose one file (the
// filemask) holds every language: one corpusFile per language of it
// but the source, each the whole file read in that language; decodeAll
// reads them all from one parse when the codec can, as sync does.
func loadOneFile(corpus string, fc formatComponent, fl formats.FileLanguages, limit int) (formatComponent, error) {
	spec := fc.spec
	fc.oneFile = true
	data, err := os.ReadFile(filepath.Join(corpus, spec.Folder, spec.Filemask))
	if err != nil {
		return fc, err
	}
	tags, err := fl.FileLanguages(data)
	if err != nil {
		return fc, fmt.Errorf("%s: %w", spec.Filemask, err)
	}
	langs := langdata.Default()
	source := formatsLanguage(langs, spec.Source)
	for _, tag := range tags {
		if tag == spec.Source || limit > 0 && len(fc.files) >= limit {
			continue
		}
		f := formats.File{Source: source, Target: formatsLanguage(langs, tag), PathCode: tag}
		units, err := fc.codec.Decode(data, f)
		if err != nil {
			return fc, fmt.Errorf("%s (%s): %w", spec.Filemask, tag, err)
		}
		fc.files = append(fc.files, corpusFile{path: spec.Filemask, name: tag, data: data, file: f, units: len(units)})
	}
	if len(fc.files) == 0 {
		return fc, fmt.Errorf("%s holds no language but the source", spec.Filemask)
	}
	return fc, nil
}

// formatsLanguage is what a codec is told of the language with code, as
// sync tells it; a code the table lacks has the code and two forms.
func formatsLanguage(langs *langdata.Table, code string) formats.Language {
	l, ok := langs.Resolve(code)
	if !ok {
		return formats.Language{Code: code, Plurals: []string{"one", "other"}}
	}
	return toFormatsLanguage(l)
}

func toFormatsLanguage(l index.Language) formats.Language {
	return formats.Language{Code: l.Code, Name: l.Name, Plurals: l.PluralCategories(),
		PluralFormula: l.Plural.Formula, PluralCount: l.Plural.Number}
}

// decodeAll times Decode of every file of fc.
func decodeAll(fc formatComponent) (time.Duration, error) {
	start := time.Now()
	if ld, ok := fc.codec.(formats.LanguagesDecoder); ok && fc.oneFile {
		// Every language from one parse, as sync's import reads it.
		fs := make([]formats.File, len(fc.files))
		for i, f := range fc.files {
			fs[i] = f.file
		}
		if _, err := ld.DecodeLanguages(fc.files[0].data, fs); err != nil {
			return 0, fmt.Errorf("%s/%s: %w", fc.spec.Folder, fc.files[0].path, err)
		}
		return time.Since(start), nil
	}
	for _, f := range fc.files {
		if _, err := fc.codec.Decode(f.data, f.file); err != nil {
			return 0, fmt.Errorf("%s/%s: %w", fc.spec.Folder, f.path, err)
		}
	}
	return time.Since(start), nil
}

// ceilingName says what the ceiling of a format's Decode does: the
// least reading its bytes takes, by family.
func ceilingName(format string) string {
	switch ceilingFamily(format) {
	case "json":
		return "encoding/json tokens"
	case "xml":
		return "encoding/xml raw tokens"
	case "yaml":
		return "yaml.v3 node tree"
	default:
		return "lines counted"
	}
}

func ceilingFamily(format string) string {
	switch format {
	case "json", "i18next", "i18nextv4", "go-i18n-json", "go-i18n-json-v2", "webextension", "arb", "xcstrings":
		return "json"
	case "tbx", "aresource", "xliff", "plainxliff", "poxliff", "xliff2", "stringsdict":
		return "xml"
	case "yaml", "ruby-yaml":
		return "yaml"
	default: // po, strings, properties: line-oriented text
		return "text"
	}
}

// ceilingAll times the ceiling over every file of fc: each file's
// tokens read with the standard library's tokenizer of its family (JSON
// or XML), YAML parsed into a node tree by the YAML library the codec
// uses, or its lines counted (bytes.Count of '\n') for the line-based
// formats, which share no tokenizer.
func ceilingAll(fc formatComponent) (time.Duration, error) {
	family := ceilingFamily(fc.spec.Format)
	lines := 0
	start := time.Now()
	for i, f := range fc.files {
		if i > 0 && fc.oneFile {
			break // one file's bytes, tokenized once
		}
		var err error
		switch family {
		case "json":
			err = jsonTokens(f.data)
		case "xml":
			err = xmlTokens(f.data)
		case "yaml":
			var n yaml.Node
			err = yaml.Unmarshal(f.data, &n)
		default:
			lines += bytes.Count(f.data, []byte{'\n'})
		}
		if err != nil {
			return 0, fmt.Errorf("ceiling %s/%s: %w", fc.spec.Folder, f.path, err)
		}
	}
	d := time.Since(start)
	if family == "text" && lines == 0 {
		return 0, fmt.Errorf("ceiling %s: no lines", fc.spec.Name)
	}
	return d, nil
}

func jsonTokens(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	for {
		if _, err := dec.Token(); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

func xmlTokens(data []byte) error {
	dec := xml.NewDecoder(bytes.NewReader(data))
	dec.Strict = false // the ceiling reads, it does not validate entities
	for {
		if _, err := dec.RawToken(); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// applyFormat times one edit's Apply in the largest and the smallest
// file (by bytes, with a unit to edit) among comps' files.
func applyFormat(name string, comps []formatComponent, rounds int) (applyRow, error) {
	row := applyRow{Format: name}
	type cand struct {
		fc formatComponent
		f  corpusFile
	}
	var all []cand
	for _, fc := range comps {
		for _, f := range fc.files {
			if f.units > 0 {
				all = append(all, cand{fc, f})
			}
		}
	}
	if len(all) == 0 {
		return row, errors.New("no file with units")
	}
	slices.SortFunc(all, func(a, b cand) int { return len(a.f.data) - len(b.f.data) })
	var err error
	if row.Large, err = applyOne(all[len(all)-1].fc, all[len(all)-1].f, rounds); err != nil {
		return row, err
	}
	row.Small, err = applyOne(all[0].fc, all[0].f, rounds)
	return row, err
}

// applyOne edits the unit in the middle of f: its target with " (edited)"
// added to each form. It times Apply and Decode of f alternately, and
// checks that the edit reads back and that only that unit changed.
func applyOne(fc formatComponent, f corpusFile, rounds int) (applyFile, error) {
	af := applyFile{Path: fc.spec.Name + " " + f.name, Bytes: int64(len(f.data)), Units: f.units}
	units, err := fc.codec.Decode(f.data, f.file)
	if err != nil {
		return af, err
	}
	u := units[len(units)/2]
	target := make([]string, len(u.Target))
	for i, t := range u.Target {
		target[i] = t + " (edited)"
	}
	if len(target) == 0 {
		target = []string{"edited"}
	}
	edit := []formats.Edit{{Context: u.Context, Source: u.Source, Target: target, Fuzzy: u.Fuzzy,
		Approved: u.Approved, Plural: len(u.Source) > 1}}
	var out []byte
	var applies, decodes []time.Duration
	for range rounds {
		start := time.Now()
		out, err = fc.codec.Apply(f.data, f.file, edit)
		applies = append(applies, time.Since(start))
		if err != nil {
			return af, fmt.Errorf("%s: Apply: %w", f.path, err)
		}
		start = time.Now()
		if _, err := fc.codec.Decode(f.data, f.file); err != nil {
			return af, err
		}
		decodes = append(decodes, time.Since(start))
	}
	af.ApplySec, af.DecodeSec = median(applies).Seconds(), median(decodes).Seconds()
	af.Changed = changedLines(f.data, out)
	after, err := fc.codec.Decode(out, f.file)
	if err != nil {
		return af, fmt.Errorf("%s: the edited file does not parse: %w", f.path, err)
	}
	found := false
	for _, a := range after {
		if a.Context == u.Context && slices.Equal(a.Source, u.Source) {
			found = slices.Equal(a.Target, target)
			break
		}
	}
	if !found {
		return af, fmt.Errorf("%s: the edit of %q does not read back", f.path, u.Context)
	}
	return af, nil
}

// changedLines is how many lines of a are not in b and of b not in a,
// counted as multisets: an edit of one value on one line is 2 whatever
// the file's size.
func changedLines(a, b []byte) int {
	count := map[string]int{}
	for _, l := range bytes.SplitAfter(a, []byte{'\n'}) {
		count[string(l)]++
	}
	for _, l := range bytes.SplitAfter(b, []byte{'\n'}) {
		count[string(l)]--
	}
	n := 0
	for _, c := range count {
		n += max(c, -c)
	}
	return n
}

// formatsTable writes the formats section.
func formatsTable(b *strings.Builder, fr *formatsResult, pprofDir string) {
	w := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	w("Every file of each corpus component matching its filemask, and its template, read into memory and "+
		"decoded with the codec `codecs.Lookup` gives for its `file_format` (median of %d rounds over all "+
		"the component's files), beside a ceiling over the same bytes, alternated with it: the standard "+
		"library's tokenizer of the family (`encoding/json` `Token` for JSON and ARB; `encoding/xml` `RawToken` "+
		"for TBX, Android, XLIFF and stringsdict), for Ruby YAML the parse into a node tree by the YAML library "+
		"the codec uses (`go.yaml.in/yaml/v3`), or, for the line-based formats (PO, .strings, .properties), "+
		"which share no tokenizer, counting their lines (`bytes.Count` of `\\n`: reading the bytes once, a floor "+
		"no parser reaches). "+
		"Target: ≥ %s units/s per format, on the median; the best round says what the machine's other "+
		"load took from it.\n\n", fr.Rounds, fmtInt(parseTarget))
	w("| component | format | files | units | MB | Decode, ms | units/s | best round, units/s | MB/s | target | ceiling | ceiling, ms | × ceiling |\n")
	w("|---|---|---:|---:|---:|---:|---:|---:|---:|---|---|---:|---:|\n")
	for _, r := range fr.Components {
		target := "met"
		if float64(r.Units)/r.Sec < parseTarget {
			target = "**missed**"
		}
		w("| %s | %s | %d | %s | %.2f | %.1f | %s | %s | %.1f | %s | %s | %.1f | %.1f× |\n",
			r.Component, r.Format, r.Files, fmtInt(r.Units), float64(r.Bytes)/1e6, r.Sec*1e3, fmtRate(r.Units, r.Sec),
			fmtRate(r.Units, r.BestSec),
			float64(r.Bytes)/1e6/r.Sec, target, r.Ceiling, r.CeilSec*1e3, ratio(r.Sec, r.CeilSec))
	}
	if fr.Slowest != "" {
		w("\nCPU profile of the slowest component's Decode (%s, 2 s): `formats-slowest.cpu.pprof` in %s.\n", fr.Slowest, pprofDir)
	}
	w("\nOne edit (the middle unit's target, \" (edited)\" added) written with `Apply` into the largest and "+
		"the smallest file of each format, median of %d, beside a `Decode` of the same file; \"changed\" counts the "+
		"lines removed and added (2 for one line edited), and the file is checked to read back with the edit. Every "+
		"writer parses the file to find the unit, so Apply = Decode + patch: its time grows with the file while "+
		"the bytes it changes stay the edit's.\n\n", fr.ApplyRounds)
	w("| format | largest file | KB | units | Decode, ms | Apply, ms | changed lines | smallest file | KB | Apply, ms | changed lines | size ratio | Apply ratio |\n")
	w("|---|---|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|\n")
	for _, a := range fr.Apply {
		w("| %s | %s | %.1f | %s | %.2f | %.2f | %d | %s | %.1f | %.3f | %d | %.0f× | %.1f× |\n",
			a.Format, a.Large.Path, float64(a.Large.Bytes)/1e3, fmtInt(a.Large.Units), a.Large.DecodeSec*1e3,
			a.Large.ApplySec*1e3, a.Large.Changed, a.Small.Path, float64(a.Small.Bytes)/1e3, a.Small.ApplySec*1e3,
			a.Small.Changed, ratio(float64(a.Large.Bytes), float64(a.Small.Bytes)), ratio(a.Large.ApplySec, a.Small.ApplySec))
	}
	w("\n")
}
