import { createHash } from "node:crypto";

// The dashboard's stylesheet and script, served from Earshot itself (no CDN: the page works offline and
// its CSP allows only its own origin). The script only enhances: without it the filters are a form and
// "More mentions" a link; with it, a change of filter redraws the results in place and "More" appends the
// next page. Both are cached by the browser and revalidated by their ETag.

export const DASHBOARD_CSS = `
:root{--ink:#1f2328;--muted:#59636e;--line:#d8dee4;--card:#fff;--bg:#f6f8fa;--accent:#6639ba;
--x:#24292f;--reddit:#c2410c;--youtube:#c4161c;--linkedin:#0a66c2;--hackernews:#c2410c;--bluesky:#0560d4;--rss:#b45309;--github:#1f2328;--positive:#1a7f37;--neutral:#8c959f;--negative:#cf222e;--group:#6639ba}
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--ink);background:var(--bg)}
a{color:var(--accent)}a:focus-visible,input:focus-visible,button:focus-visible,summary:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
.wrap{max-width:72rem;margin:0 auto;padding:0 1rem}
.skip{position:absolute;left:-999px}.skip:focus{left:1rem;top:1rem;background:#fff;padding:.5rem;z-index:2}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.hero{background:linear-gradient(135deg,#2d1b69,#6639ba);color:#fff;padding:1.5rem 0}
.hero .wrap{display:flex;gap:1rem;align-items:center}
.hero h1{margin:0;font-size:1.75rem;line-height:1.2;overflow-wrap:anywhere}.hero p{margin:.25rem 0 0}.hero a{color:#fff}
.lede{opacity:.92;max-width:48rem;overflow-wrap:anywhere}
.badge{width:3.5rem;height:3.5rem;flex:none}.badge text{font-size:22px;font-weight:700;fill:#fff}
main{padding:1rem 0 2rem}
.note{background:#fff8c5;border:1px solid #d4a72c;border-radius:8px;padding:.75rem 1rem}
.filters{display:flex;flex-wrap:wrap;gap:.75rem 1.5rem;align-items:flex-end;background:var(--card);border:1px solid var(--line);border-radius:12px;padding:.75rem 1rem;margin:1rem 0}
.filters fieldset{border:0;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:.375rem;align-items:center}
.filters legend{font-size:.8125rem;font-weight:600;color:var(--muted);margin-bottom:.25rem;padding:0;width:100%}
.chip{display:inline-flex;align-items:center;gap:.375rem;border:1px solid var(--line);border-radius:999px;padding:.25rem .75rem;background:#fff;cursor:pointer;font-size:.9375rem}
.chip:has(input:checked){border-color:var(--accent);background:#f3efff}
.apply{font:inherit;background:var(--accent);color:#fff;border:0;border-radius:8px;padding:.5rem 1rem;cursor:pointer}
.js .apply{display:none}
.summary{font-size:1.125rem;margin:.5rem 0 1rem}
.grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(100%,26rem),1fr));gap:1rem}
.card{background:var(--card);border:1px solid var(--line);border-radius:12px;padding:1rem;min-width:0}
.card h2{font-size:1rem;margin:0 0 .75rem}
.chart{display:block;width:100%;height:auto}
.chart text{font-size:12px;fill:var(--muted)}.chart .label{fill:var(--ink);font-size:13px}.chart .value{font-size:12px}
.chart .grid{stroke:var(--line);stroke-width:1}
.chart.split{height:2.5rem}
#chart-volume{aspect-ratio:3/1}
.fill-x{fill:var(--x);background:var(--x)}.fill-reddit{fill:var(--reddit);background:var(--reddit)}.fill-youtube{fill:var(--youtube);background:var(--youtube)}.fill-linkedin{fill:var(--linkedin);background:var(--linkedin)}.fill-hackernews{fill:var(--hackernews);background:var(--hackernews)}.fill-bluesky{fill:var(--bluesky);background:var(--bluesky)}.fill-rss{fill:var(--rss);background:var(--rss)}.fill-github{fill:var(--github);background:var(--github)}
.fill-positive{fill:var(--positive);background:var(--positive)}.fill-neutral{fill:var(--neutral);background:var(--neutral)}.fill-negative{fill:var(--negative);background:var(--negative)}
.fill-group,.fill-bar{fill:var(--group)}.fill-bar{fill:#0969da}.fill-empty{fill:var(--line)}
.legend{display:flex;flex-wrap:wrap;gap:.25rem 1rem;list-style:none;padding:0;margin:0 0 .5rem;font-size:.875rem}
.swatch{display:inline-block;width:.75rem;height:.75rem;border-radius:3px;margin-right:.375rem;vertical-align:-1px}
.muted{color:var(--muted)}
details.data{margin-top:.5rem;font-size:.875rem}details.data summary{cursor:pointer;color:var(--muted)}
.table-wrap{overflow-x:auto}table{border-collapse:collapse;width:100%;margin-top:.5rem}caption{text-align:left;font-weight:600;padding-bottom:.25rem}
th,td{padding:.25rem .5rem;border-bottom:1px solid var(--line);text-align:left}.num{text-align:right;font-variant-numeric:tabular-nums}
section>h2#mentions-h{font-size:1.25rem;margin:2rem 0 .75rem}
.mentions{list-style:none;padding:0;margin:0;display:grid;gap:.75rem}
.mention article{background:var(--card);border:1px solid var(--line);border-radius:12px;padding:.875rem 1rem}
.m-head{display:flex;align-items:center;gap:.5rem;flex-wrap:wrap}
.src{width:1.5rem;height:1.5rem;flex:none}.src text{fill:#fff;font:700 11px system-ui,sans-serif}
.m-author{font-weight:600;overflow-wrap:anywhere}.m-author a{color:inherit}.m-handle{font-weight:400;color:var(--muted)}
.m-head time{margin-left:auto;color:var(--muted);font-size:.875rem}
.m-title{font-weight:600;margin:.5rem 0 0;overflow-wrap:anywhere}
.m-text{margin:.375rem 0;overflow-wrap:anywhere;white-space:pre-line}
mark{background:#fff3b0;color:inherit;border-radius:3px;padding:0 .125rem}
.m-foot{display:flex;flex-wrap:wrap;gap:.375rem;align-items:center;font-size:.8125rem}
.tag{border:1px solid var(--line);border-radius:999px;padding:0 .5rem;color:var(--muted)}
.sent-positive{color:var(--positive);border-color:currentColor}.sent-negative{color:var(--negative);border-color:currentColor}
.m-link{margin-left:auto;font-weight:600}
.more-wrap{text-align:center;margin:1rem 0}
.more{display:inline-block;border:1px solid var(--accent);border-radius:8px;padding:.5rem 1.25rem;text-decoration:none;font-weight:600}
.more[aria-busy=true]{opacity:.6}
.empty{color:var(--muted)}
.foot{color:var(--muted);font-size:.8125rem;padding-bottom:2rem}
.plain{max-width:36rem;padding-top:3rem}
@media (max-width:40rem){.hero h1{font-size:1.375rem}.m-head time{margin-left:0;width:100%}.m-link{margin-left:0}}
@media (prefers-reduced-motion:no-preference){#results{transition:opacity .15s}#results[aria-busy=true]{opacity:.5}}
`;

export const DASHBOARD_JS = `"use strict";
(function () {
  document.documentElement.classList.add("js");
  var parse = function (html) { return new DOMParser().parseFromString(html, "text/html"); };
  var load = function (url) {
    return fetch(url, { headers: { Accept: "text/html" }, credentials: "omit" }).then(function (res) {
      if (!res.ok) throw new Error("status " + res.status);
      return res.text();
    }).then(parse);
  };
  var form = document.getElementById("filters");
  var pending = 0;
  var refresh = function () {
    if (!form) return;
    var url = form.getAttribute("action") + "?" + new URLSearchParams(new FormData(form)).toString();
    var current = document.getElementById("results");
    var ticket = ++pending;
    if (current) current.setAttribute("aria-busy", "true");
    load(url).then(function (doc) {
      if (ticket !== pending) return;
      var next = doc.getElementById("results");
      var now = document.getElementById("results");
      if (!next || !now) { window.location.assign(url); return; }
      now.replaceWith(document.importNode(next, true));
      history.replaceState(null, "", url);
    }).catch(function () { window.location.assign(url); });
  };
  if (form) {
    form.addEventListener("change", refresh);
    form.addEventListener("submit", function (e) { e.preventDefault(); refresh(); });
  }
  document.addEventListener("click", function (e) {
    var target = e.target;
    var more = target && target.closest ? target.closest("a.more") : null;
    if (!more || e.ctrlKey || e.metaKey || e.shiftKey) return;
    e.preventDefault();
    if (more.getAttribute("aria-busy") === "true") return;
    more.setAttribute("aria-busy", "true");
    var href = more.href;
    load(href).then(function (doc) {
      var list = document.getElementById("mention-list");
      var items = doc.querySelectorAll("#mention-list > li");
      var first = null;
      for (var i = 0; i < items.length; i++) {
        var li = document.importNode(items[i], true);
        if (!first) first = li;
        list.appendChild(li);
      }
      var wrap = more.closest(".more-wrap");
      var nextWrap = doc.querySelector(".more-wrap");
      if (nextWrap) wrap.replaceWith(document.importNode(nextWrap, true)); else wrap.remove();
      if (first) { first.setAttribute("tabindex", "-1"); first.focus(); }
    }).catch(function () { window.location.assign(href); });
  });
})();
`;

const etagOf = (text: string) => `"${createHash("sha256").update(text).digest("base64url").slice(0, 27)}"`;

export const ASSETS: Record<string, { type: string; body: string; etag: string }> = {
  "/assets/dashboard.css": { type: "text/css", body: DASHBOARD_CSS, etag: etagOf(DASHBOARD_CSS) },
  "/assets/dashboard.js": { type: "text/javascript", body: DASHBOARD_JS, etag: etagOf(DASHBOARD_JS) },
};
