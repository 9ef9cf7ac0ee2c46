// Package msgtemplate parses, checks and renders the message templates of
// a component (its commit, add, delete, merge, add-on and pull messages)
// in the subset of Django's template language that the reference renders
// them with (../shared/reference/weblate-core.md, "Component defaults").
// Autoescaping is off, as it is for the reference's messages.
//
// It imports the standard library only, nothing of Tolk's, so it can be
// tested and fuzzed alone; which variables a message gets is sync's
// business (sync.MessageVars). Start reading at template.go (Parse,
// Template.Render, Template.Check); parse.go parses, render.go renders
// and holds the filters, check.go checks names against a sample.
//
// # What it supports
//
//   - {{ value }} and {{ value|filter|filter:arg }}, where a value is a
//     variable, a dotted path (v.attr, list.0) or a literal: "string" or
//     'string' with backslash escapes, 3, -3, 2.5, True, False, None.
//   - The filters add, capfirst, cut, default, default_if_none, escape,
//     first, floatformat, join, last, length, lower, safe, title, upper
//     and yesno, as Django's.
//   - {% if %}, {% elif %}, {% else %}, {% endif %} with or, and, not,
//     ==, !=, <, <=, >, >=, in, not in, is and is not, with Django's
//     precedence; filters in conditions.
//   - {% for x in list %} with an optional reversed, {% empty %} and
//     {% endfor %}; forloop.counter, counter0, revcounter, revcounter0,
//     first, last and parentloop.
//   - {# comments #} and {% comment %} … {% endcomment %}.
//
// A variable that does not exist renders as "", Django's default, and a
// filter or comparison that does not apply gives "" or false rather than
// an error, so that rendering a parsed template fails only on the render
// limits. Template.Check is stricter than Django: it refuses a {{ }} that
// names a variable a sample of the values does not give, in any branch.
//
// # What it refuses
//
// Parse refuses with a *Error naming the line:
//   - every other tag ({% load %}, {% with %}, {% include %},
//     {% extends %}, {% block %}, {% url %}, {% autoescape %}, …) and
//     every other filter;
//   - a {{, {% or {# not closed on the line it opens (Django would render
//     it as text; here it is taken for a typo), and an empty {{ }} or
//     {% %};
//   - unpacking in {% for a, b in list %};
//   - names beginning with an underscore, names that are not ASCII
//     letters, digits and underscores, arithmetic and a single =;
//   - blocks nested more than 32 deep.
//
// Rendering stops with ErrRenderLimit after 100,000 steps (nodes and loop
// iterations) or 1 MiB of text, so a hostile template neither loops for
// ever nor fills memory.
package msgtemplate
