// Tolk's workspace: what the editor's page adds around the text boxes
// (web_workspace.go). Clicking a placeable of the source inserts it;
// Ctrl+M then 1-9 uses automatic suggestion N, Ctrl+I then 1-9
// dismisses failing check N; the checks a save found are shown on the
// next string without a reload. Everything here is an addition: the
// page works without it.
(function () {
  "use strict";

  var lastArea = null;
  document.addEventListener("focusin", function (e) {
    if (e.target.matches && e.target.matches("#edit textarea[name=target]")) { lastArea = e.target; }
  });

  // area is the text box a placeable or suggestion goes into: the one
  // last focused, else the first editable one.
  function area() {
    if (lastArea && document.contains(lastArea) && !lastArea.readOnly) { return lastArea; }
    return document.querySelector("#edit textarea[name=target]:not([readonly])");
  }

  // insert puts text at the cursor of the text box.
  function insert(text) {
    var ta = area();
    if (!ta) { return; }
    var start = ta.selectionStart, end = ta.selectionEnd;
    ta.value = ta.value.slice(0, start) + text + ta.value.slice(end);
    ta.selectionStart = ta.selectionEnd = start + text.length;
    ta.focus();
    ta.dispatchEvent(new Event("input", { bubbles: true }));
  }

  document.addEventListener("click", function (e) {
    var m = e.target.closest && e.target.closest(".source mark[data-insert]");
    if (m) { e.preventDefault(); insert(m.getAttribute("data-insert")); }
    // Use of a suggestion the server put in the page (the memory's):
    // into the box of its plural form, as tolk.js does for the others.
    var use = e.target.closest && e.target.closest("button[data-use]");
    if (use) {
      var areas = document.querySelectorAll("#edit textarea[name=target]:not([readonly])");
      var ta = areas[parseInt(use.getAttribute("data-form"), 10)] || areas[0];
      if (!ta) { return; }
      ta.value = use.getAttribute("data-use");
      ta.focus();
      ta.dispatchEvent(new Event("input", { bubbles: true }));
    }
  });

  // Ctrl+M or Ctrl+I arms a prefix; the digit that follows picks N.
  var prefix = "";
  // swallow drops the character of a digit the prefix used, for input
  // methods that send it apart from its keydown.
  var swallow = false;
  document.addEventListener("keypress", function (e) {
    if (swallow) { e.preventDefault(); }
  });
  document.addEventListener("keyup", function () { swallow = false; });
  // The listener is on window in the capture phase, ahead of keys.js's
  // on document: a digit that ends a chord is this file's alone, so
  // Ctrl+M then Ctrl+1 (Ctrl still held) uses suggestion 1 and does not
  // also insert placeholder 1 (keys.js's Ctrl+1-9).
  window.addEventListener("keydown", function (e) {
    if ((e.ctrlKey || e.metaKey) && !e.altKey && !e.shiftKey && (e.key === "m" || e.key === "i")) {
      prefix = e.key;
      e.preventDefault();
      var box = document.getElementById(prefix === "m" ? "machinery" : "checks");
      if (box) { box.classList.add("armed"); }
      return;
    }
    if (!prefix) { return; }
    var was = prefix;
    prefix = "";
    Array.prototype.forEach.call(document.querySelectorAll(".armed"), function (b) { b.classList.remove("armed"); });
    if (!/^[1-9]$/.test(e.key)) { return; }
    var n = parseInt(e.key, 10);
    e.preventDefault();
    e.stopImmediatePropagation();
    swallow = true;
    if (was === "m") {
      var items = document.querySelectorAll("#machinery li");
      var use = items[n - 1] && items[n - 1].querySelector("button");
      if (use) { use.click(); }
    } else {
      var dismiss = document.querySelector("#checks button[data-dismiss='" + n + "']");
      if (dismiss) { dismiss.click(); }
    }
  }, true);

  // The first automatic suggestion's arrival is marked for the
  // Performance API (the browser test reads it); "in the page" when the
  // server put it there.
  var marked = false;
  if (document.querySelector("#machinery li")) {
    marked = true;
    performance.mark("tolk-machinery-in-page");
  }
  new MutationObserver(function () {
    if (!marked && document.querySelector("#machinery li")) {
      marked = true;
      performance.mark("tolk-machinery-first");
    }
  }).observe(document.documentElement, { childList: true, subtree: true });

  // "Fix string" (web_fixups.go): a failing check's fixup, the
  // reference's regular-expression replacements, applied to the text
  // boxes on request; the translator saves the result. The buttons are
  // hidden until this script can press them.
  function revealFixups() {
    Array.prototype.forEach.call(document.querySelectorAll("#checks button.fixup[hidden]"), function (b) { b.hidden = false; });
  }
  revealFixups();
  new MutationObserver(revealFixups).observe(document.documentElement, { childList: true, subtree: true });
  document.addEventListener("click", function (e) {
    var b = e.target.closest && e.target.closest("#checks button.fixup");
    if (!b) { return; }
    e.preventDefault();
    var rs;
    try { rs = JSON.parse(b.getAttribute("data-fixup")); } catch (x) { return; }
    var areas = document.querySelectorAll("#edit textarea[name=target]:not([readonly])");
    var changed = 0;
    Array.prototype.forEach.call(areas, function (ta) {
      var v = ta.value;
      rs.forEach(function (r) {
        try { v = v.replace(new RegExp(r.pattern, r.flags), r.replacement); } catch (x) { /* skip a pattern this browser refuses */ }
      });
      if (v !== ta.value) {
        ta.value = v;
        changed++;
        ta.dispatchEvent(new Event("input", { bubbles: true }));
      }
    });
    var st = b.nextElementSibling;
    if (st && st.classList.contains("fixup-status")) {
      st.textContent = changed ? "Fixed in the text box: save to keep it." : "Nothing to fix in the text box.";
    }
    if (changed && areas[0]) { areas[0].focus(); }
  });

  // After a save, the string saved fails these checks: say so on the
  // next string.
  document.addEventListener("tolk:saved", function (e) {
    var list = e.detail && e.detail.checks;
    var main = document.getElementById("main");
    if (!list || !list.length || !main) { return; }
    var box = document.createElement("div");
    box.className = "notice saved-checks";
    box.setAttribute("role", "status");
    var p = document.createElement("p");
    p.textContent = "The string you saved fails " + (list.length === 1 ? "a check" : list.length + " checks") + ":";
    box.appendChild(p);
    var ul = document.createElement("ul");
    list.forEach(function (c) {
      var li = document.createElement("li");
      var b = document.createElement("strong");
      b.textContent = c.name;
      li.appendChild(b);
      li.appendChild(document.createTextNode((c.enforced ? " (enforced)" : "") + " \u2014 " + c.description));
      ul.appendChild(li);
    });
    box.appendChild(ul);
    if (e.detail.previous) {
      var a = document.createElement("a");
      a.href = e.detail.previous;
      a.setAttribute("data-nav", "");
      a.textContent = "Back to it";
      box.appendChild(a);
    }
    main.insertBefore(box, main.firstChild);
  });
})();
