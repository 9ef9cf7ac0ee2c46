// Tolk's editor: saves and moves between strings without reloading the
// page. Everything works without this script too (plain links and form
// posts); the script only makes it faster and adds the keyboard.
(function () {
  "use strict";

  function main() { return document.getElementById("main"); }

  // go swaps the main part of the page for the one at url.
  function go(url, push) {
    return fetch(url, { headers: { "X-Tolk-Partial": "1" }, credentials: "same-origin" })
      .then(function (r) {
        if (!r.ok && r.status !== 404) { throw new Error("HTTP " + r.status); }
        return r.text();
      })
      .then(function (html) {
        main().innerHTML = html;
        if (push) { history.pushState({}, "", url); }
        shown = location.pathname + location.search;
        var ta = main().querySelector("textarea:not([readonly])");
        if (ta) { ta.focus(); }
        check();
        machinery();
      })
      .catch(function () { location.href = url; });
  }

  function showError(text) {
    var el = document.getElementById("save-error");
    if (el) { el.textContent = text; el.hidden = false; }
  }

  // notice shows what the server did to a save beyond storing it.
  function notice(text) {
    if (!text) { return; }
    var p = document.createElement("p");
    p.className = "notice";
    p.setAttribute("role", "status");
    p.textContent = text;
    main().insertBefore(p, main().firstChild);
  }

  // post sends a save form (the editor's, or a zen row's: keys.js) as
  // JSON and answers its status and body.
  function post(form) {
    var data = {
      id: parseInt(form.elements.id.value, 10),
      version: form.elements.version.value,
      q: form.elements.q.value,
      // The list's order and the string's place in it (a zen row's
      // too): a sorted list moves on by places.
      sort_by: form.elements.sort_by ? form.elements.sort_by.value : "",
      offset: form.elements.offset ? parseInt(form.elements.offset.value, 10) || 0 : 0,
      target: Array.prototype.map.call(form.querySelectorAll("textarea[name=target]"), function (t) { return t.value; }),
      fuzzy: !!(form.elements.fuzzy && form.elements.fuzzy.checked),
      approved: !!(form.elements.approved && form.elements.approved.checked)
    };
    return fetch(form.action, {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": form.elements.csrf_token.value },
      body: JSON.stringify(data)
    }).then(function (r) {
      return r.json().then(function (body) { return { status: r.status, body: body }; });
    });
  }
  window.tolkPost = post;

  // save posts the edit and moves to the next string.
  function save(form) {
    var button = document.getElementById("save");
    if (button) { button.disabled = true; }
    return post(form).then(function (res) {
      if (button) { button.disabled = false; }
      if (res.status === 200) {
        var notes = [];
        if (res.body.fixups && res.body.fixups.length) {
          notes.push("Fixups applied to the string you saved: " + res.body.fixups.join(", ") + ".");
        }
        if (res.body.needs_editing) {
          notes.push("It was saved as needing editing: an enforced check fails on it.");
        }
        return go(res.body.next, true).then(function () {
          notice(notes.join(" "));
          document.dispatchEvent(new CustomEvent("tolk:saved", { detail: res.body })); // workspace.js
        });
      }
      if (res.status === 409) {
        showError(res.body.error + " Stored now (" + res.body.theirs_state + "): \u201c" +
          res.body.theirs.join(" | ") + "\u201d. Yours: \u201c" + res.body.yours.join(" | ") + "\u201d.");
        return;
      }
      showError(res.body.error || ("Not saved (HTTP " + res.status + ")."));
    }).catch(function (e) {
      if (button) { button.disabled = false; }
      showError("Not saved: " + e.message);
    });
  }

  // machinery asks each of the project's services for suggestions at
  // once; each box fills when its service answers, so a slow engine
  // delays only its own box. "Use" copies a suggestion into its form.
  function machinery() {
    var box = document.getElementById("machinery");
    if (!box) { return; }
    Array.prototype.forEach.call(box.querySelectorAll("section[data-url]"), function (sec) {
      var out = sec.querySelector("p");
      out.textContent = "Asking\u2026";
      fetch(sec.getAttribute("data-url"), {
        method: "POST", credentials: "same-origin",
        headers: { "X-CSRF-Token": box.getAttribute("data-csrf") || "" }
      }).then(function (r) { return r.json(); }).then(function (body) {
        if (body.responseStatus !== 200) {
          out.textContent = body.responseDetails || "No answer.";
          return;
        }
        if (!body.translations.length) { out.textContent = "No suggestions."; return; }
        var list = document.createElement("ul");
        body.translations.forEach(function (t) {
          var li = document.createElement("li");
          var q = document.createElement("q");
          q.textContent = t.text;
          q.lang = (body.lang || "").replace(/[_@]/g, "-"); // a BCP 47 tag, as langtag in web.go
          q.dir = body.dir;
          li.appendChild(q);
          var meta = (t.show_quality ? " " + t.quality + "%" : "") + (t.origin ? " \u2014 " + t.origin : "");
          if (meta) { li.appendChild(document.createTextNode(meta)); }
          var areas = document.querySelectorAll("#edit textarea[name=target]:not([readonly])");
          var area = areas[t.plural_form] || areas[0];
          if (area) {
            var use = document.createElement("button");
            use.type = "button";
            use.textContent = "Use";
            use.addEventListener("click", function () { area.value = t.text; area.focus(); check(); });
            li.appendChild(document.createTextNode(" "));
            li.appendChild(use);
          }
          list.appendChild(li);
        });
        out.replaceWith(list);
      }).catch(function (e) { out.textContent = "Not answered: " + e.message; });
    });
  }

  // check warns about placeholders of the source the target lacks.
  function check() {
    var form = document.getElementById("edit");
    var warn = document.getElementById("missing");
    if (!form || !warn) { return; }
    var areas = form.querySelectorAll("textarea[name=target]");
    if (!areas.length) { return; }
    var wanted = (areas[0].getAttribute("data-placeholders") || "").split("\n").filter(Boolean);
    var text = Array.prototype.map.call(areas, function (t) { return t.value; }).join("\u0000");
    var missing = text.trim() === "" ? [] : wanted.filter(function (p) { return text.indexOf(p) < 0; });
    warn.querySelector("span").textContent = missing.join(", ");
    warn.hidden = missing.length === 0;
  }

  document.addEventListener("click", function (e) {
    var a = e.target.closest && e.target.closest("a[data-nav]");
    if (!a || e.ctrlKey || e.metaKey || e.shiftKey || e.button !== 0) { return; }
    e.preventDefault();
    go(a.href, true);
  });

  document.addEventListener("submit", function (e) {
    // Suggest posts the form as it is (formaction); Save goes as JSON.
    var suggesting = e.submitter && e.submitter.hasAttribute("formaction");
    if (e.target.id === "edit" && !suggesting) { e.preventDefault(); save(e.target); }
  });

  document.addEventListener("input", function (e) {
    if (e.target.name === "target") { check(); }
  });

  document.addEventListener("keydown", function (e) {
    if (!(e.ctrlKey || e.metaKey)) { return; }
    var form = document.getElementById("edit");
    if (e.key === "Enter" && form && document.getElementById("save")) {
      e.preventDefault();
      save(form);
    } else if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      var link = document.getElementById(e.key === "ArrowDown" ? "next" : "prev");
      if (link) { e.preventDefault(); go(link.href, true); }
    }
  });

  // Back and forward swap in the string of the address; a link within
  // the page (#main, #comments) changes only the fragment and swaps
  // nothing.
  var shown = location.pathname + location.search;
  window.addEventListener("popstate", function () {
    var now = location.pathname + location.search;
    if (now !== shown) { shown = now; go(location.href, false); }
  });
  document.addEventListener("DOMContentLoaded", function () { check(); machinery(); });
})();
