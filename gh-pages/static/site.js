/* The site's only script: on a scenario page, loads data/<scenario>.js (a <script> tag, so it
   works from file:// as well as over HTTP), builds the results table and the trend gallery,
   and filters them and the charts by OS, toolchain, variant and size.
   Data is only ever shown with textContent, never parsed as HTML. */
(function () {
  "use strict";
  var body = document.body;
  if (!body || body.getAttribute("data-page") !== "scenario") return;
  var name = body.getAttribute("data-scenario");
  var src = body.getAttribute("data-src");
  var selects = Array.prototype.slice.call(document.querySelectorAll("#filters select"));
  var countEl = document.getElementById("shown-count");

  // Numbers as ci-scripts/benchpipe/units.py writes them (seconds, bytes_, count, value).
  function three(x) { return x >= 99.95 ? x.toFixed(0) : (x >= 9.995 ? x.toFixed(1) : x.toFixed(2)); }
  function fmtTime(s) {
    if (s === null || s === undefined || !isFinite(s)) return "\u2013";
    if (s >= 0.9995) return three(s) + " s";
    if (s >= 0.0009995) return three(s * 1e3) + " ms";
    return three(s * 1e6) + " \u00b5s";
  }
  function fmtBytes(b) {
    if (b === null || b === undefined || !isFinite(b)) return "\u2013";
    var units = [["GiB", 1073741824], ["MiB", 1048576], ["KiB", 1024]];
    for (var i = 0; i < units.length; i++) {
      if (Math.abs(b) >= units[i][1]) return (b / units[i][1]).toFixed(2) + " " + units[i][0];
    }
    return b.toFixed(0) + " B";
  }
  function fmtCount(x, unit) {
    if (x === null || x === undefined || !isFinite(x)) return "\u2013";
    var steps = [["T", 1e12], ["G", 1e9], ["M", 1e6], ["k", 1e3]];
    for (var i = 0; i < steps.length; i++) {
      if (Math.abs(x) >= steps[i][1] * 0.9995) return three(x / steps[i][1]) + " " + steps[i][0] + " " + unit;
    }
    return x.toFixed(0) + " " + unit;
  }
  // a metric's value in its unit (the page data's `metrics`: ci-scripts/benchpipe/metrics.py)
  function fmtValue(x, unit) {
    return unit === "s" ? fmtTime(x) : (unit === "bytes" ? fmtBytes(x) : fmtCount(x, unit));
  }
  function el(tag, text, cls) {
    var e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = String(text);
    if (cls) e.className = cls;
    return e;
  }
  function tag(e, attrs) {
    Object.keys(attrs).forEach(function (k) {
      if (attrs[k] !== undefined && attrs[k] !== null) e.setAttribute("data-" + k, String(attrs[k]));
    });
    return e;
  }

  function current() {
    var f = {};
    selects.forEach(function (s) { f[s.getAttribute("data-filter")] = s.value; });
    return f;
  }
  function matches(node, f) {
    for (var k in f) {
      if (!f[k]) continue;
      if (!node.hasAttribute("data-" + k)) continue; // not about this dimension
      var v = node.getAttribute("data-" + k);
      if (k === "toolchain") {
        if (v.split(" ").indexOf(f[k]) < 0) return false;
      } else if (v !== f[k]) {
        return false;
      }
    }
    return true;
  }
  function apply() {
    var f = current();
    var rows = document.querySelectorAll("#latest tbody tr[data-os]");
    var shown = 0;
    Array.prototype.forEach.call(rows, function (r) {
      var ok = matches(r, f);
      r.hidden = !ok;
      if (ok) shown++;
    });
    Array.prototype.forEach.call(document.querySelectorAll("figure.chart"), function (fig) {
      fig.hidden = !matches(fig, f);
    });
    if (countEl) countEl.textContent = shown + " of " + rows.length + " benchmarks shown";
    var parts = [];
    for (var k in f) if (f[k]) parts.push(k + "=" + encodeURIComponent(f[k]));
    try { history.replaceState(null, "", parts.length ? "#" + parts.join("&") : location.pathname); } catch (e) { /* file:// in some browsers */ }
  }
  function fromHash() {
    var h = location.hash.replace(/^#/, "");
    if (!h) return;
    h.split("&").forEach(function (kv) {
      var i = kv.indexOf("="), k = kv.slice(0, i), v = decodeURIComponent(kv.slice(i + 1));
      selects.forEach(function (s) {
        if (s.getAttribute("data-filter") === k) {
          for (var j = 0; j < s.options.length; j++) if (s.options[j].value === v) s.value = v;
        }
      });
    });
  }

  function build(d) {
    var tbody = document.querySelector("#latest tbody");
    while (tbody.firstChild) tbody.removeChild(tbody.firstChild);
    d.rows.forEach(function (r) {
      var tr = tag(document.createElement("tr"), {os: r.os, toolchain: r.toolchain, variant: r.variant, size: r.size, lang: r.lang});
      tr.className = r.lang;
      tr.appendChild(el("td", r.os));
      var b = el("td", r.build, "build " + r.build);
      if (r.settings) { b.title = r.settings; b.appendChild(el("div", r.settings, "settings")); }
      tr.appendChild(b);
      tr.appendChild(el("td", r.toolchain));
      tr.appendChild(el("td", r.variant));
      tr.appendChild(el("td", r.params));
      // each compared metric's median, in the order of the table's head; the headline (the
      // timed window) with its 95% interval
      d.metrics.forEach(function (m) {
        var v = r.values[m.name];
        tr.appendChild(el("td", fmtValue(v ? v[0] : null, m.unit), "num"));
        if (m.interval) tr.appendChild(el("td", v ? fmtValue(v[1], m.unit) + " \u2013 " + fmtValue(v[2], m.unit) : "\u2013", "num"));
      });
      tr.appendChild(el("td", fmtValue(r.own, "bytes"), "num"));
      tr.appendChild(el("td", fmtTime(r.wall), "num"));
      tr.appendChild(el("td", r.p99 == null ? "\u2013" : fmtTime(r.p50 / 1e6) + " / " + fmtTime(r.p99 / 1e6), "num"));
      var fig = el("td", r.figure || "\u2013");
      if (r.warning) { fig.title = r.warning; fig.className = "warning"; fig.textContent = (r.figure || "") + " \u26a0 " + r.warning; }
      tr.appendChild(fig);
      tr.appendChild(el("td", r.n, "num"));
      tr.appendChild(el("td", r.date.slice(0, 10)));
      tr.appendChild(el("td", r.commit.slice(0, 10), "mono"));
      var td = el("td");
      var a = el("a", "trend");
      a.href = r.chart;
      td.appendChild(a);
      tr.appendChild(td);
      tbody.appendChild(tr);
    });
    var gallery = document.getElementById("trends");
    d.trends.forEach(function (t) {
      var fig = tag(document.createElement("figure"), {os: t.os, toolchain: t.toolchains.join(" "), variant: t.variant, size: t.size, kind: "trend"});
      fig.className = "chart trend";
      var img = document.createElement("img");
      img.loading = "lazy";
      img.src = t.chart;
      img.alt = t.family + " on " + t.os;
      fig.appendChild(img);
      var cap = el("figcaption", t.family + " \u00b7 " + t.os + " \u00b7 " + t.toolchains.join(", ") +
                   (t.changepoints ? " \u00b7 " + t.changepoints + " change point(s)" : ""));
      fig.appendChild(cap);
      gallery.appendChild(fig);
    });
    apply();
  }

  function failed() {
    var tbody = document.querySelector("#latest tbody");
    while (tbody.firstChild) tbody.removeChild(tbody.firstChild);
    var tr = el("tr"), td = el("td", "could not load " + src);
    td.colSpan = document.querySelectorAll("#latest thead th").length;
    tr.appendChild(td);
    tbody.appendChild(tr);
  }

  selects.forEach(function (s) { s.addEventListener("change", apply); });
  fromHash();
  var script = document.createElement("script");
  script.src = src;
  script.onload = function () {
    var d = window.BENCH_DATA && window.BENCH_DATA[name];
    if (d) build(d); else failed();
  };
  script.onerror = failed;
  document.head.appendChild(script);
})();
