// Tolk's keyboard: the reference's editor shortcuts (reference workspace
// §9.2) where they make sense, a "?" list of them (keys.html), focus put
// where the next keystroke belongs, and field-name completion in the
// search box. tolk.js does the saving and moving; this file only adds
// keys to it, and every page works without either.
(function () {
  "use strict";

  function $(sel, root) { return (root || document).querySelector(sel); }
  function all(sel, root) { return Array.prototype.slice.call((root || document).querySelectorAll(sel)); }

  // typing: the key goes into a text field, where plain keys are text.
  function typing(el) {
    if (!el) { return false; }
    var tag = el.tagName;
    return tag === "TEXTAREA" || tag === "SELECT" || el.isContentEditable ||
      (tag === "INPUT" && !/^(button|submit|checkbox|radio|reset)$/.test(el.type));
  }

  // targets are the fields the keys write into: the editor's forms, or
  // in zen mode the row holding focus (else the first).
  function targets() {
    var areas = all("#edit textarea[name=target]:not([readonly])");
    if (areas.length) { return areas; }
    var row = (document.activeElement && document.activeElement.closest && document.activeElement.closest("form.zen-row")) ||
      $("form.zen-row textarea[name=target]:not([readonly])") && $("form.zen-row textarea[name=target]:not([readonly])").form;
    return row ? all("textarea[name=target]:not([readonly])", row) : [];
  }

  // focusNext puts the caret where the translator writes next: the
  // first empty form of the string, else its first form. Nothing moves
  // when focus is already in a field of the editor (the translator put
  // it there) or in the search box.
  function focusNext() {
    var areas = targets();
    if (!areas.length) { return; }
    var active = document.activeElement;
    if (active && active !== areas[0] && active !== document.body && typing(active)) { return; }
    var empty = areas.filter(function (a) { return a.value === ""; })[0];
    (empty || areas[0]).focus();
  }

  // follow goes to the link with id (prev/next) the way tolk.js does,
  // by clicking it: its data-nav swaps the page in place.
  function follow(id) {
    var a = document.getElementById(id);
    if (a) { a.click(); return true; }
    return false;
  }

  // jump goes to the first or last string of the current search: the
  // editor's offset= names a place in the list.
  function jump(last) {
    var ed = $(".editor[data-total]");
    if (!ed) { return; }
    var u = new URL(location.href);
    ["offset", "after", "before", "id"].forEach(function (k) { u.searchParams.delete(k); });
    u.searchParams.set("offset", last ? ed.getAttribute("data-total") : "1");
    var a = document.createElement("a");
    a.href = u.toString();
    a.setAttribute("data-nav", "");
    a.hidden = true;
    document.body.appendChild(a);
    a.click();
    a.remove();
  }

  // insert puts text at the caret of a target field (the focused one, or
  // the first), as typing it would.
  function insert(text) {
    var areas = targets();
    var ta = areas.indexOf(document.activeElement) >= 0 ? document.activeElement : areas[0];
    if (!ta) { return; }
    ta.focus();
    var start = ta.selectionStart, end = ta.selectionEnd;
    ta.setRangeText(text, start, end, "end");
    ta.dispatchEvent(new Event("input", { bubbles: true }));
  }

  // copySource fills each target form with the source's (the last
  // source form for the extra forms of a language with more plurals).
  function copySource() {
    var forms = all(".source .form", scope()).map(function (p) { return p.textContent; });
    if (!forms.length) { return; }
    targets().forEach(function (ta, i) {
      ta.value = forms[Math.min(i, forms.length - 1)];
      ta.dispatchEvent(new Event("input", { bubbles: true }));
    });
    focusNext();
  }

  // scope is where the string the keys act on is: its zen row, or the
  // page.
  function scope() {
    var ta = targets()[0];
    return (ta && ta.closest("form.zen-row")) || document;
  }

  function placeholders() {
    var seen = [];
    all(".source mark.ph", scope()).forEach(function (m) {
      if (seen.indexOf(m.textContent) < 0) { seen.push(m.textContent); }
    });
    return seen;
  }

  function toggle(name) {
    var box = $("#edit input[name=" + name + "]");
    if (box) { box.checked = !box.checked; box.focus(); }
  }

  function overlay() {
    var d = document.getElementById("shortcuts");
    if (d && !d.open) { d.showModal(); }
  }

  document.addEventListener("keydown", function (e) {
    var mod = e.ctrlKey || e.metaKey;
    var k = e.key;
    // Ctrl+Shift+Enter: clear "Needs editing", then tolk.js saves.
    if (mod && e.shiftKey && k === "Enter") {
      var fuzzy = $("#edit input[name=fuzzy]");
      if (fuzzy) { fuzzy.checked = false; }
      return;
    }
    if (e.altKey && !mod && k === "Enter") {
      var suggest = document.getElementById("suggest");
      if (suggest) { e.preventDefault(); suggest.click(); }
      return;
    }
    if (e.altKey && !mod) {
      var moved = false;
      if (k === "PageDown" || k === "ArrowDown") { moved = follow("next"); }
      if (k === "PageUp" || k === "ArrowUp") { moved = follow("prev"); }
      if (k === "Home" || k === "End") { jump(k === "End"); moved = true; }
      if (moved) { e.preventDefault(); }
      return;
    }
    if (mod && !e.altKey && !e.shiftKey) {
      var lower = k.length === 1 ? k.toLowerCase() : k;
      var done = true;
      if (lower === "e") { focusNext(); }
      else if (lower === "s") { var q = $("input[name=q]"); if (q) { q.focus(); q.select(); } else { done = false; } }
      else if (lower === "u") { var c = $("textarea[name=comment]"); if (c) { c.focus(); } else { done = false; } }
      else if (lower === "o") { copySource(); }
      else if (lower === "y") { toggle("fuzzy"); }
      else if (/^[1-9]$/.test(k)) {
        var ph = placeholders()[parseInt(k, 10) - 1];
        if (ph) { insert(ph); } else { done = false; }
      } else { done = false; }
      if (done) { e.preventDefault(); }
      return;
    }
    if (mod || e.altKey) { return; }
    if (k === "Escape") {
      // Out of a text field, so that the plain keys below work; the
      // dialog closes itself on Escape.
      if (typing(document.activeElement) && !document.activeElement.closest("dialog")) {
        var section = $(".editor .unit") || $("main");
        section.setAttribute("tabindex", "-1");
        section.focus();
      }
      return;
    }
    if (typing(document.activeElement)) { return; }
    if (k === "?") { e.preventDefault(); overlay(); }
    else if (k === "ArrowRight" && follow("next")) { e.preventDefault(); }
    else if (k === "ArrowLeft" && follow("prev")) { e.preventDefault(); }
  }, true);

  // The search box completes the word under the caret from the search
  // language's field names (the datalist of keys.html): "ha" offers
  // has:check, has:comment, …, each with the rest of the query kept.
  function complete(input) {
    var list = document.getElementById("q-fields");
    if (!list) { return; }
    var words = (list.getAttribute("data-words") || "").split(" ");
    var v = input.value;
    var m = /(^|[\s(])(-?)([A-Za-z_][A-Za-z_-]*:?[A-Za-z_-]*)$/.exec(v);
    var options = [];
    if (m) {
      var head = v.slice(0, v.length - m[3].length);
      var prefix = m[3].toLowerCase();
      words.forEach(function (w) {
        if (w.indexOf(prefix) === 0 && w !== prefix && options.length < 20) { options.push(head + w); }
      });
    }
    list.textContent = "";
    options.forEach(function (o) {
      var opt = document.createElement("option");
      opt.value = o;
      list.appendChild(opt);
    });
  }

  document.addEventListener("input", function (e) {
    if (e.target.name === "q" && e.target.tagName === "INPUT") { complete(e.target); }
  });
  document.addEventListener("focusin", function (e) {
    if (e.target.name === "q" && e.target.tagName === "INPUT" && !e.target.getAttribute("list")) {
      e.target.setAttribute("list", "q-fields");
      e.target.setAttribute("autocomplete", "off");
    }
  });

  // Zen mode (web_zen.go): each row saves through the editor's save as
  // JSON and stays; the row says in words whether it is saved, and the
  // page asks before leaving rows changed and not saved.
  function zenStatus(form, text) {
    var st = $(".zen-status", form);
    if (st) { st.textContent = text; }
    form.setAttribute("data-state", text ? text : "");
  }

  function zenSave(form, moveOn) {
    zenStatus(form, "Saving\u2026");
    return window.tolkPost(form).then(function (res) {
      if (res.status === 200) {
        form.elements.version.value = res.body.version;
        form.removeAttribute("data-dirty");
        zenStatus(form, res.body.needs_editing ? "Saved as needing editing: an enforced check fails." : "Saved.");
        // The row's state text and boxes follow what was stored: an
        // enforced check may have made it needing editing, a blank
        // target not translated.
        var state = $(".zen-head .state", form);
        if (state && res.body.state) { state.textContent = res.body.state; }
        if (form.elements.fuzzy) { form.elements.fuzzy.checked = !!res.body.fuzzy; }
        if (form.elements.approved) { form.elements.approved.checked = !!res.body.approved; }
        if (moveOn) {
          var rows = all("form.zen-row");
          var next = rows[rows.indexOf(form) + 1];
          var ta = next && $("textarea[name=target]:not([readonly])", next);
          if (ta) { ta.focus(); }
        }
        return;
      }
      zenStatus(form, "Not saved: " + (res.body.error || "HTTP " + res.status) +
        (res.status === 409 ? " Reload to see the stored text." : ""));
    }).catch(function (e) { zenStatus(form, "Not saved: " + e.message); });
  }

  document.addEventListener("submit", function (e) {
    if (e.target.classList && e.target.classList.contains("zen-row")) { e.preventDefault(); zenSave(e.target, false); }
  });
  document.addEventListener("keydown", function (e) {
    var form = e.target.closest && e.target.closest("form.zen-row");
    if (form && (e.ctrlKey || e.metaKey) && e.key === "Enter") {
      e.preventDefault();
      if (e.shiftKey && form.elements.fuzzy) { form.elements.fuzzy.checked = false; }
      zenSave(form, true);
    }
  });
  document.addEventListener("input", function (e) {
    var form = e.target.closest && e.target.closest("form.zen-row");
    if (form) { form.setAttribute("data-dirty", "1"); zenStatus(form, "Changed, not saved."); }
  });
  window.addEventListener("beforeunload", function (e) {
    if ($("form.zen-row[data-dirty]")) { e.preventDefault(); e.returnValue = ""; }
  });

  // A string swapped in by tolk.js gets the focus it needs too.
  function watch() {
    var main = document.getElementById("main");
    if (!main) { return; }
    new MutationObserver(function (records) {
      if (records.some(function (r) { return r.target === main; })) { focusNext(); }
    }).observe(main, { childList: true });
    focusNext();
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", watch);
  } else {
    watch();
  }
})();
