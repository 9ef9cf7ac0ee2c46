package sqlstore

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tolk-project/tolk/index"
)

// addonConfig is an add-on's configuration as addons.configuration
// stores it: the reference's keys (writes §8.1).
type addonConfig struct {
	WebhookURL  string         `json:"webhook_url,omitempty"`
	Secret      string         `json:"secret,omitempty"`
	EventFilter string         `json:"event_filter,omitempty"`
	Events      []index.Action `json:"events,omitempty"`
	// weblate.git.squash
	Squash         string `json:"squash,omitempty"`
	AppendTrailers bool   `json:"append_trailers,omitempty"`
	CommitMessage  string `json:"commit_message,omitempty"`
	// weblate.autotranslate.autotranslate
	Mode       string   `json:"mode,omitempty"`
	Query      string   `json:"q,omitempty"`
	AutoSource string   `json:"auto_source,omitempty"`
	Component  string   `json:"component,omitempty"`
	Engines    []string `json:"engines,omitempty"`
	Threshold  int      `json:"threshold,omitempty"`
	// weblate.json.customize
	SortKeys bool   `json:"sort_keys,omitempty"`
	Indent   int    `json:"indent,omitempty"`
	Style    string `json:"style,omitempty"`
	// weblate.generate.pseudolocale
	Source          int64    `json:"source,omitempty"`
	Target          int64    `json:"target,omitempty"`
	Prefix          string   `json:"prefix,omitempty"`
	Suffix          string   `json:"suffix,omitempty"`
	VarPrefix       string   `json:"var_prefix,omitempty"`
	VarSuffix       string   `json:"var_suffix,omitempty"`
	VarMultiplier   *float64 `json:"var_multiplier,omitempty"`
	IncludeReadOnly bool     `json:"include_readonly,omitempty"`
	// weblate.discovery.discovery
	Match            string `json:"match,omitempty"`
	FileFormat       string `json:"file_format,omitempty"`
	NameTemplate     string `json:"name_template,omitempty"`
	BaseFileTemplate string `json:"base_file_template,omitempty"`
	NewBaseTemplate  string `json:"new_base_template,omitempty"`
	LanguageRegex    string `json:"language_regex,omitempty"`
	Remove           bool   `json:"remove,omitempty"`
	Confirm          bool   `json:"confirm,omitempty"`
}

const addonColumns = `a.id, a.name, a.project_id, coalesce(a.component_id, 0), a.configuration,
	p.slug, coalesce(c.slug, ''), coalesce(` + categoryPathColumn + `, '')`

const addonFrom = ` FROM addons a JOIN projects p ON p.id = a.project_id
	LEFT JOIN components c ON c.id = a.component_id`

func scanAddon(s interface{ Scan(...any) error }) (index.Addon, error) {
	var a index.Addon
	var config string
	if err := s.Scan(&a.ID, &a.Name, &a.ProjectID, &a.ComponentID, &config, &a.ProjectSlug,
		&a.ComponentSlug, &a.CategoryPath); err != nil {
		return a, err
	}
	var ac addonConfig
	if err := json.Unmarshal([]byte(config), &ac); err != nil {
		return a, fmt.Errorf("add-on %d configuration: %w", a.ID, err)
	}
	a.Webhook = index.Webhook{URL: ac.WebhookURL, Secret: ac.Secret, Filter: ac.EventFilter, Events: ac.Events}
	a.Squash = index.Squash{Mode: ac.Squash, AppendTrailers: ac.AppendTrailers, CommitMessage: ac.CommitMessage}
	a.AutoTranslate = index.AutoTranslateAddon{Component: ac.Component, Params: index.AutoTranslateParams{
		Mode: index.AutoMode(ac.Mode), Query: ac.Query, Source: ac.AutoSource, Engines: ac.Engines,
		Threshold: ac.Threshold}}
	a.JSON = index.JSONCustomize{SortKeys: ac.SortKeys, Indent: ac.Indent, Style: ac.Style}
	a.Pseudo = index.Pseudolocale{Source: ac.Source, Target: ac.Target, Prefix: ac.Prefix, Suffix: ac.Suffix,
		VarPrefix: ac.VarPrefix, VarSuffix: ac.VarSuffix, IncludeReadOnly: ac.IncludeReadOnly}
	a.Discovery = index.Discovery{Match: ac.Match, FileFormat: ac.FileFormat, NameTemplate: ac.NameTemplate,
		BaseFileTemplate: ac.BaseFileTemplate, NewBaseTemplate: ac.NewBaseTemplate, LanguageRegex: ac.LanguageRegex,
		Remove: ac.Remove, Confirm: ac.Confirm}
	if ac.VarMultiplier != nil {
		a.Pseudo.VarMultiplier = *ac.VarMultiplier
	}
	return a, nil
}

func findAddons(ctx context.Context, q queryer, where string, args ...any) ([]index.Addon, error) {
	rows, err := q.QueryContext(ctx, `SELECT `+addonColumns+addonFrom+where+` ORDER BY a.id`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []index.Addon
	for rows.Next() {
		a, err := scanAddon(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

// FindAddons returns the add-ons f selects, in id order. Installations
// are few, so there is no paging here.
func (db *DB) FindAddons(ctx context.Context, f index.AddonFilter) ([]index.Addon, error) {
	var where []string
	var args []any
	if f.ProjectID != 0 {
		where, args = append(where, "a.project_id = ?"), append(args, f.ProjectID)
	}
	if f.ComponentID != 0 {
		where, args = append(where, "a.component_id = ?"), append(args, f.ComponentID)
	}
	if f.ProjectOnly {
		where = append(where, "a.component_id IS NULL")
	}
	if f.Covering != 0 {
		where, args = append(where, "(a.component_id IS NULL OR a.component_id = ?)"), append(args, f.Covering)
	}
	clause := ""
	if len(where) > 0 {
		clause = " WHERE " + strings.Join(where, " AND ")
	}
	addons, err := findAddons(ctx, db.r, clause, args...)
	return addons, formatError(err)
}

// FindAddonByID returns one add-on, or an error wrapping ErrNotFound.
func (db *DB) FindAddonByID(ctx context.Context, id int64) (index.Addon, error) {
	a, err := scanAddon(db.r.QueryRowContext(ctx, `SELECT `+addonColumns+addonFrom+` WHERE a.id = ?`, id))
	return a, formatError(err)
}

// ComponentAddons returns the ids of the add-ons installed on the
// component itself (not its project's), from memory. ctx marked with
// its request's start (index.WithRequestStart) shares the request's
// write_log check on PostgreSQL: unmarked, every call waited for a check
// of its own, so a translation's detail checked twice and a list of
// components once per component, one round trip each in sequence.
func (db *DB) ComponentAddons(ctx context.Context, componentID int64) []int64 {
	db.catchUp(ctx)
	if !db.hooksCurrent() {
		db.reloadSharedHooks()
	}
	return db.hooks.Load().byComponent[componentID]
}

// CreateAddon installs a; its ProjectID (and ComponentID, for a
// component's add-on) must name existing objects. It returns the add-on
// with its id and slugs.
func (db *DB) CreateAddon(ctx context.Context, a index.Addon) (index.Addon, error) {
	err := db.write(ctx, func(tx *Tx) error {
		config, err := json.Marshal(addonConfigOf(a))
		if err != nil {
			return err
		}
		if err := tx.QueryRow(`INSERT INTO addons (name, project_id, component_id, configuration)
			VALUES (?, ?, ?, ?) RETURNING id`, a.Name, a.ProjectID, nullID(a.ComponentID), string(config)).
			Scan(&a.ID); err != nil {
			return err
		}
		return tx.reloadHooks()
	})
	if err != nil {
		return a, err
	}
	return db.FindAddonByID(ctx, a.ID)
}

// UpdateAddon applies update to the stored add-on in one transaction;
// only its configuration can change.
func (db *DB) UpdateAddon(ctx context.Context, id int64, update func(*index.Addon) error) (index.Addon, error) {
	err := db.write(ctx, func(tx *Tx) error {
		a, err := scanAddon(tx.QueryRow(`SELECT `+addonColumns+addonFrom+` WHERE a.id = ?`, id))
		if err != nil {
			return err
		}
		if err := update(&a); err != nil {
			return err
		}
		config, err := json.Marshal(addonConfigOf(a))
		if err != nil {
			return err
		}
		if _, err := tx.Exec(`UPDATE addons SET configuration = ? WHERE id = ?`, string(config), id); err != nil {
			return err
		}
		return tx.reloadHooks()
	})
	if err != nil {
		return index.Addon{}, err
	}
	return db.FindAddonByID(ctx, id)
}

// DeleteAddon removes an add-on and its deliveries, sent or not; an
// unknown id is an error wrapping ErrNotFound.
func (db *DB) DeleteAddon(ctx context.Context, id int64) error {
	return db.write(ctx, func(tx *Tx) error {
		res, err := tx.Exec(`DELETE FROM addons WHERE id = ?`, id)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return index.Errorf(index.ErrNotFound, "Not found.")
		}
		if _, err := tx.Exec(`DELETE FROM deliveries WHERE addon_id = ?`, id); err != nil {
			return err
		}
		return tx.reloadHooks()
	})
}

// addonConfigOf is the stored configuration of a: its kind's fields.
func addonConfigOf(a index.Addon) addonConfig {
	if a.Name == index.AddonSquash {
		q := a.Squash
		return addonConfig{Squash: q.Mode, AppendTrailers: q.AppendTrailers, CommitMessage: q.CommitMessage}
	}
	if a.Name == index.AddonAutoTranslate {
		p := a.AutoTranslate.Params
		return addonConfig{Mode: string(p.Mode), Query: p.Query, AutoSource: p.Source,
			Component: a.AutoTranslate.Component, Engines: p.Engines, Threshold: p.Threshold}
	}
	if a.Name == index.AddonPseudolocale {
		p := a.Pseudo
		return addonConfig{Source: p.Source, Target: p.Target, Prefix: p.Prefix, Suffix: p.Suffix,
			VarPrefix: p.VarPrefix, VarSuffix: p.VarSuffix, VarMultiplier: &p.VarMultiplier,
			IncludeReadOnly: p.IncludeReadOnly}
	}
	if a.Name == index.AddonDiscovery {
		d := a.Discovery
		return addonConfig{Match: d.Match, FileFormat: d.FileFormat, NameTemplate: d.NameTemplate,
			BaseFileTemplate: d.BaseFileTemplate, NewBaseTemplate: d.NewBaseTemplate, LanguageRegex: d.LanguageRegex,
			Remove: d.Remove, Confirm: d.Confirm}
	}
	if a.Name == index.AddonJSONCustomize {
		return addonConfig{SortKeys: a.JSON.SortKeys, Indent: a.JSON.Indent, Style: a.JSON.Style}
	}
	w := a.Webhook
	return addonConfig{WebhookURL: w.URL, Secret: w.Secret, EventFilter: w.Filter, Events: w.Events}
}
