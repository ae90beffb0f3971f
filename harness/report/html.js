// The HTML report's filters, its links to checks, and its transcripts'
// colours. Without it the page shows everything, unfiltered.
(function () {
  "use strict";
  var form = document.getElementById("filters");
  var rows = Array.prototype.slice.call(document.querySelectorAll("details.check"));
  var cells = {};
  document.querySelectorAll("#matrix a.cell").forEach(function (a) { cells[a.dataset.id] = a; });
  var texts = null;

  function has(list, word) { return (" " + list + " ").indexOf(" " + word + " ") >= 0; }

  function apply() {
    var f = form.elements, outcomes = {};
    form.querySelectorAll("input[name=outcome]:checked").forEach(function (i) { outcomes[i.value] = true; });
    var q = f.q.value.trim().toLowerCase();
    if (q && !texts) {
      // A check's own text: not the other checks its rules are also
      // cited by, so that searching an ID finds that check.
      texts = rows.map(function (r) {
        var c = r.cloneNode(true);
        c.querySelectorAll(".rule-also").forEach(function (e) { e.remove(); });
        return c.textContent.toLowerCase();
      });
    }
    var shown = 0;
    rows.forEach(function (r, i) {
      var d = r.dataset;
      var ok = outcomes[d.outcome] === true &&
        (!f.role.value || d.role === f.role.value) &&
        (!f.transport.value || has(d.transport, f.transport.value)) &&
        (!f.era.value || has(d.eras, f.era.value)) &&
        (!f.profile.value || has(d.profiles, f.profile.value)) &&
        (!q || texts[i].indexOf(q) >= 0);
      r.hidden = !ok;
      var cell = cells[r.id.slice("check-".length)];
      if (cell) cell.classList.toggle("dim", !ok);
      if (ok) shown++;
    });
    document.getElementById("shown").textContent = shown + " of " + rows.length + " checks shown";
  }

  // reveal opens a check, showing it even when the filters hide it.
  function reveal(id) {
    var r = document.getElementById(id);
    if (!r || !r.classList.contains("check")) return null;
    r.hidden = false;
    r.open = true;
    return r;
  }

  form.hidden = false;
  form.addEventListener("input", apply);
  form.addEventListener("change", apply);
  form.addEventListener("submit", function (e) { e.preventDefault(); });
  // A link to a check (a matrix cell, an attention row) opens it before
  // the browser scrolls to it.
  document.addEventListener("click", function (e) {
    var a = e.target.closest && e.target.closest('a[href^="#check-"]');
    if (a) reveal(a.getAttribute("href").slice(1));
  });
  function hashID() {
    try {
      return decodeURIComponent(location.hash.slice(1));
    } catch (e) {
      return "";
    }
  }
  window.addEventListener("hashchange", function () { reveal(hashID()); });
  var target = location.hash && reveal(hashID());
  if (target) target.scrollIntoView();
  // A transcript's lines take their direction's colour when it first opens.
  document.addEventListener("toggle", function (e) {
    var t = e.target;
    if (!t.classList || !t.classList.contains("transcript") || !t.open || t.dataset.coloured) return;
    var pre = t.querySelector("pre");
    var lines = pre.textContent.split("\n");
    pre.textContent = "";
    lines.forEach(function (line) {
      var span = document.createElement("span");
      span.className = "l-" + line.split(" ", 1)[0];
      span.textContent = line + "\n";
      pre.appendChild(span);
    });
    t.dataset.coloured = "true";
  }, true);
})();
