package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// writeSetup writes a setup file named tolk.yaml in a new temporary
// directory and returns its path.
func writeSetup(tb testing.TB, body string) string {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "tolk.yaml")
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		tb.Fatal(err)
	}
	return path
}

// envOf is an environment holding vars.
func envOf(vars map[string]string) func(string) string {
	return func(name string) string { return vars[name] }
}

// TestLoadConfigPrecedence: for a setting of each kind, the setup file
// overrides the default, the environment the file, and the flag the
// environment; a list is replaced, not added to.
func TestLoadConfigPrecedence(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		kind           string
		flag, env, key string
		// The values each source gives, as it writes them.
		file, fromEnv, fromFlag string
		get                     func(Config) any
		// want holds the value with nothing given, then with the file,
		// the file and the environment, and all three.
		want [4]string
	}{
		{"string", "listen", "TOLK_LISTEN", "listen", "127.0.0.1:1", "127.0.0.1:2", "127.0.0.1:3",
			func(c Config) any { return c.Listen }, [4]string{"127.0.0.1:8080", "127.0.0.1:1", "127.0.0.1:2", "127.0.0.1:3"}},
		{"secret", "hook-secret", "TOLK_HOOK_SECRET", "hook_secret", "file", "env", "flag",
			func(c Config) any { return c.HookSecret }, [4]string{"", "file", "env", "flag"}},
		{"bool", "allow-local-repos", "TOLK_ALLOW_LOCAL_REPOS", "allow_local_repos", "true", "false", "true",
			func(c Config) any { return c.AllowLocalRepos }, [4]string{"false", "true", "false", "true"}},
		{"duration", "pull-interval", "TOLK_PULL_INTERVAL", "pull_interval", "1h", "2h", "3h",
			func(c Config) any { return c.PullInterval }, [4]string{"0s", "1h0m0s", "2h0m0s", "3h0m0s"}},
		{"size", "max-upload-size", "TOLK_MAX_UPLOAD_SIZE", "max_upload_size", "1MiB", "2MiB", "3MiB",
			func(c Config) any { return c.MaxUploadBytes }, [4]string{"10485760", "1048576", "2097152", "3145728"}},
		{"list", "allowed-host", "TOLK_ALLOWED_HOSTS", "allowed_hosts", "[a.example, b.example]", "c.example, d.example", "e.example",
			func(c Config) any { return c.AllowedHosts }, [4]string{"[]", "[a.example b.example]", "[c.example d.example]", "[e.example]"}},
		{"int", "max-connections", "TOLK_MAX_CONNECTIONS", "max_connections", "1", "2", "3",
			func(c Config) any { return c.HTTP.MaxConnections }, [4]string{"1024", "1", "2", "3"}},
		{"choice", "log-level", "TOLK_LOG_LEVEL", "log_level", "debug", "warn", "error",
			func(c Config) any { return c.LogLevel }, [4]string{"INFO", "DEBUG", "WARN", "ERROR"}},
		{"rate limit", "rate-limit-anon", "TOLK_RATE_LIMIT_ANON", "rate_limit_anon", "1/hour", "2/hour", "off",
			func(c Config) any { return c.RateLimitAnon }, [4]string{"100/day", "1/hour", "2/hour", "off"}},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			t.Parallel()
			file := writeSetup(t, tc.key+": "+tc.file+"\nprojects: []\n")
			for given, want := range tc.want {
				var args []string
				env := map[string]string{}
				if given >= 1 {
					args = append(args, "--config", file)
				}
				if given >= 2 {
					env[tc.env] = tc.fromEnv
				}
				if given >= 3 {
					args = append(args, "--"+tc.flag+"="+tc.fromFlag)
				}
				cfg, err := loadConfig(args, envOf(env), io.Discard)
				if got := fmt.Sprint(tc.get(cfg)); err != nil || got != want {
					t.Errorf("loadConfig(%q) with %v = %s, %v; want %s", args, env, got, err, want)
				}
			}
		})
	}
}

// TestLoadConfigEmptyValues: an empty flag or variable gives nothing,
// so that `--db ""` leaves the setup file's db in force.
func TestLoadConfigEmptyValues(t *testing.T) {
	t.Parallel()
	file := writeSetup(t, "db: from-file.db\nallowed_hosts: [a.example]\nprojects: []\n")
	cfg, err := loadConfig([]string{"--config", file, "--db", "", "--allowed-host", ""},
		envOf(map[string]string{"TOLK_DB": "", "TOLK_ALLOWED_HOSTS": ""}), io.Discard)
	if err != nil || cfg.DB != "from-file.db" || fmt.Sprint(cfg.AllowedHosts) != "[a.example]" {
		t.Errorf("empty flags and variables over the file = %q, %q, %v; want the file's", cfg.DB, cfg.AllowedHosts, err)
	}
}

// TestLoadConfigErrors: a wrong setup file, variable or flag is refused
// with a message that names where the value is (the file and line, the
// variable, the flag), the key, and what it must be.
func TestLoadConfigErrors(t *testing.T) {
	t.Parallel()
	base := "projects:\n  - name: P\n    slug: p\n    components:\n      - name: C\n        slug: c\n" +
		"        repo: file:///x\n        filemask: l/*.json\n        template: l/en.json\n"
	for _, tc := range []struct {
		name  string
		file  string // "" for none
		env   map[string]string
		args  []string
		want  string // the error (the flag's: what stderr says) in full, with FILE for the file's path
		usage bool   // a wrong command line (exit 2) rather than an error (exit 1)
	}{
		{name: "yaml syntax", file: "projects:\n  - name: Demo\n    slug: demo\n    components: [\n      - name: App\n",
			want: "FILE:4: not valid YAML: did not find expected node content"},
		{name: "unknown key", file: "listn: 127.0.0.1:1\nprojects: []\n",
			want: `FILE:1: listn: unknown key; did you mean "listen"?`},
		{name: "unknown component key", file: base + "        fil_format: json\n",
			want: `FILE:10: projects[0].components[0].fil_format: unknown key; did you mean "file_format"?`},
		{name: "unknown project key", file: "projects:\n  - name: P\n    slug: p\n    colour: red\n",
			want: "FILE:4: projects[0].colour: unknown key; known keys: access_control, components, enable_hooks, " +
				"hook_secret, instructions, language_aliases, name, set_language_team, slug, source_review, " +
				"translation_review, web"},
		{name: "key twice", file: "listen: 127.0.0.1:1\nlisten: 127.0.0.1:2\nprojects: []\n",
			want: "FILE:2: listen: given twice (first on line 1)"},
		{name: "bool", file: "demo: maybe\nprojects: []\n", want: `FILE:1: demo: want true or false, got "maybe"`},
		{name: "duration", file: "webhook_retry_period: soon\nprojects: []\n",
			want: `FILE:1: webhook_retry_period: want a duration such as 90s, 30m or 24h, got "soon"`},
		{name: "size", file: "projects: []\nmax_upload_size: lots\n",
			want: `FILE:2: max_upload_size: want a size in bytes, or with KiB, MiB or GiB (such as 10MiB), got "lots"`},
		{name: "list", file: "allowed_hosts:\n  a: b\nprojects: []\n",
			want: "FILE:2: allowed_hosts: want a list of strings, got a mapping"},
		{name: "string", file: "listen: [a, b]\nprojects: []\n", want: "FILE:1: listen: want a string, got a list"},
		{name: "component int", file: base + "        priority: high\n",
			want: `FILE:10: projects[0].components[0].priority: want an integer, got "high"`},
		{name: "negative duration", file: "pull_interval: -1m\nprojects: []\n",
			want: "FILE:1: pull_interval: must not be negative"},
		{name: "choice in the file", file: "projects: []\nlog_format: xml\n",
			want: `FILE:2: log_format: want text or json, got "xml"`},
		{name: "level in the file", file: "log_level: loud\nprojects: []\n",
			want: `FILE:1: log_level: want debug, info, warn or error, got "loud"`},
		{name: "every problem at once", file: "demo: maybe\nlistn: x\nprojects:\n  - name: P\n    slug: p\n    web: [x]\n",
			want: `FILE:1: demo: want true or false, got "maybe"` + "\n" +
				`FILE:2: listn: unknown key; did you mean "listen"?` + "\n" +
				"FILE:6: projects[0].web: want a string, got a list"},
		{name: "choice in the environment", env: map[string]string{"TOLK_LOG_FORMAT": "xml"},
			want: `TOLK_LOG_FORMAT: want text or json, got "xml"`},
		{name: "duration in the environment", env: map[string]string{"TOLK_PULL_INTERVAL": "soon"},
			want: `TOLK_PULL_INTERVAL: want a duration such as 90s, 30m or 24h, got "soon"`},
		{name: "choice on the command line", args: []string{"--log-format", "xml"}, usage: true,
			want: `tolk serve: --log-format "xml": want text or json`},
		{name: "the flag's value is the one refused", file: "log_format: xml\nprojects: []\n",
			env: map[string]string{"TOLK_LOG_FORMAT": "yaml"}, args: []string{"--log-format", "csv"}, usage: true,
			want: `tolk serve: --log-format "csv": want text or json`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			args, file := tc.args, ""
			if tc.file != "" {
				file = writeSetup(t, tc.file)
				args = append([]string{"--config", file}, args...)
			}
			var stderr strings.Builder
			_, err := loadConfig(args, envOf(tc.env), &stderr)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if tc.usage {
				got = strings.TrimSuffix(stderr.String(), "\nRun 'tolk serve --help' for usage.\n")
			}
			want := strings.ReplaceAll(tc.want, "FILE", file)
			if got != want || errors.Is(err, errUsage) != tc.usage {
				t.Errorf("loadConfig(%q) with %v and\n%s\n = %v (stderr %q)\nwant %s (usage: %v)",
					args, tc.env, tc.file, err, stderr.String(), want, tc.usage)
			}
		})
	}
}

// TestSetupFileReadOnce: loadConfig reads the setup file once, and Open
// works from what it decoded, reading no file: with the file gone, the
// file's settings and projects still take effect.
func TestSetupFileReadOnce(t *testing.T) {
	file := writeSetup(t, "hook_secret: from-file\nprojects:\n  - name: Once\n    slug: once\n")
	cfg, err := loadConfig([]string{"--config", file, "--data", t.TempDir(), "--listen", "127.0.0.1:0"}, noEnv, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	m := &Main{Config: cfg, Logger: slog.New(slog.DiscardHandler)}
	openMain(t, m)
	defer m.Close()
	if m.Config.HookSecret != "from-file" {
		t.Errorf("hook secret = %q, want the file's", m.Config.HookSecret)
	}
	resp := getAs(t, "http://"+m.Addr().String()+"/api/projects/once/", "")
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET the file's project after the file was removed: %d, want 200", resp.StatusCode)
	}
}

// TestLoadConfigMachinery: the setup file's machinery key gives the
// site-wide services, which may name loopback; the flags of machinery
// settle as every setting does; an unknown service, a missing key or a
// value that is not a mapping is refused naming it.
func TestLoadConfigMachinery(t *testing.T) {
	t.Parallel()
	file := writeSetup(t, "machinery:\n  apertium-apy: {url: \"http://127.0.0.1:2737\"}\n  weblate:\nprojects: []\n")
	cfg, err := loadConfig([]string{"--config", file, "--machinery-timeout", "3s", "--machinery-allow-private"},
		envOf(map[string]string{"TOLK_MACHINERY_RATE_LIMIT": "20/minute"}), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(cfg.Machinery, cfg.MachineryTimeout, cfg.MachineryAllowPrivate, cfg.MachineryRateLimit); got != "map[apertium-apy:map[url:http://127.0.0.1:2737] weblate:map[]] 3s true 20/minute" {
		t.Errorf("machinery settings = %s", got)
	}
	if opts := cfg.serverOptions(); opts.Machinery.Timeout != 3*time.Second || !opts.Machinery.AllowPrivate ||
		opts.Machinery.Site["apertium-apy"]["url"] != "http://127.0.0.1:2737" || opts.Web.MachineryRateLimit.Requests != 20 {
		t.Errorf("server options = %+v, %+v", opts.Machinery, opts.Web.MachineryRateLimit)
	}
	// Without the key the translation memory is on, as in the
	// reference; an empty key turns every site-wide service off.
	for body, want := range map[string]string{
		"":                              "map[weblate-translation-memory:map[]]",
		"projects: []\n":                "map[weblate-translation-memory:map[]]",
		"machinery: {}\nprojects: []\n": "map[]",
	} {
		args := []string{}
		if body != "" {
			args = []string{"--config", writeSetup(t, body)}
		}
		cfg, err := loadConfig(args, envOf(nil), io.Discard)
		if err != nil {
			t.Fatalf("%q: %v", body, err)
		}
		if got := fmt.Sprint(cfg.Machinery); got != want {
			t.Errorf("%q: site-wide services %s, want %s", body, got, want)
		}
	}
	for body, want := range map[string]string{
		"machinery:\n  nope: {}\nprojects: []\n":                      "machinery: nope: no such service",
		"machinery:\n  deepl: {}\nprojects: []\n":                     "machinery: deepl: key: This field is required.",
		"machinery: [apertium-apy]\nprojects: []\n":                   "machinery: want a mapping of services to their settings",
		"machinery:\n  deepl: {key: [a]}\nprojects: []\n":             "machinery.deepl.key: want a string",
		"machinery:\n  deepl: {key: k, url: ftp://x}\nprojects: []\n": "machinery: deepl: url: Enter a valid http or https URL.",
	} {
		_, err := loadConfig([]string{"--config", writeSetup(t, body)}, envOf(nil), io.Discard)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", body, err, want)
		}
	}
}
