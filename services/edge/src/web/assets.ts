import { createHash } from "node:crypto";
import { DASHBOARD_CSS } from "../catalog/public-dashboard/assets";

// The web app's stylesheet and script, served from the edge itself under a CSP of 'self' only: the
// public dashboard's stylesheet (one look for Earshot's pages) plus the app's own rules. The script only
// adds keyboard shortcuts (j/k) and triage in place; every page works without it.

const APP_RULES = `
.top{background:#2d1b69;color:#fff}.top .wrap{display:flex;flex-wrap:wrap;gap:.5rem 1.25rem;align-items:center;padding:.625rem 1rem}
.top a{color:#fff}.top .brand{font-weight:700;text-decoration:none;margin-right:auto}.top nav ul{display:flex;flex-wrap:wrap;gap:.25rem 1rem;list-style:none;margin:0;padding:0}
.top form{margin:0}.top button{font:inherit;background:none;border:1px solid #fff;color:#fff;border-radius:6px;padding:.125rem .625rem;cursor:pointer}
h1{font-size:1.5rem;margin:.5rem 0 1rem;overflow-wrap:anywhere}
.triage{display:flex;flex-wrap:wrap;gap:.375rem .75rem;align-items:center;margin-top:.5rem}
.triage form{display:inline-flex;flex-wrap:wrap;gap:.25rem;align-items:center;margin:0;max-width:100%}
main input:not([type=checkbox]),main select{max-width:100%;min-width:0;font:inherit}
.triage select,.filters select,.filters input[type=search],.filters input[type=number]{font:inherit;padding:.25rem;border:1px solid var(--line);border-radius:6px;background:#fff;max-width:100%}
.btn{font:inherit;font-size:.875rem;background:#fff;color:var(--accent);border:1px solid var(--accent);border-radius:6px;padding:.125rem .625rem;cursor:pointer}
.btn.primary{background:var(--accent);color:#fff}
.filters label{display:flex;flex-direction:column;font-size:.8125rem;font-weight:600;color:var(--muted)}
.sign-in label{display:block;margin:.75rem 0 .25rem;font-weight:600}.sign-in input{width:100%;padding:.5rem;font:inherit;border:1px solid var(--line);border-radius:6px}
.sign-in button{margin-top:1rem;font:inherit;background:var(--accent);color:#fff;border:0;border-radius:8px;padding:.5rem 1rem;cursor:pointer}
.field-error{display:block;color:#b00020;font-size:.8125rem;font-weight:600;margin-top:.125rem}main [aria-invalid=true]{border:2px solid #b00020}
code.secret{display:inline-block;padding:.25rem .5rem;background:#fff;border:1px solid var(--line);border-radius:6px;overflow-wrap:anywhere;user-select:all}
.narrow{max-width:28rem}.error{color:#b00020;border-left:3px solid #b00020;padding-left:.5rem}.flash{background:#dafbe1;border:1px solid #1a7f37;border-radius:8px;padding:.5rem 1rem}
.projects{list-style:none;padding:0;display:grid;gap:.75rem}.projects li{background:var(--card);border:1px solid var(--line);border-radius:12px;padding:.75rem 1rem}
.pager{margin:1rem 0}.mention article:focus-within,.mention article.current{border-color:var(--accent);box-shadow:0 0 0 2px var(--accent)}
table.deliveries{table-layout:fixed}table.deliveries th,table.deliveries td{overflow-wrap:anywhere;font-size:.875rem}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem}dl.facts dt{font-weight:600}dl.facts dd{margin:0;overflow-wrap:anywhere}
`;

const APP_JS = `"use strict";
(function(){
  var items=function(){return Array.prototype.slice.call(document.querySelectorAll(".mention article"));};
  var at=-1;
  document.addEventListener("keydown",function(e){
    var t=e.target;if(e.altKey||e.ctrlKey||e.metaKey||(t&&/^(INPUT|SELECT|TEXTAREA|BUTTON)$/.test(t.tagName)))return;
    var list=items();if(!list.length)return;
    if(e.key==="j"||e.key==="k"){
      if(at>=0&&list[at])list[at].classList.remove("current");
      at=e.key==="j"?Math.min(list.length-1,at+1):Math.max(0,at-1);
      var a=list[at];a.classList.add("current");a.scrollIntoView({block:"nearest"});
      var link=a.querySelector("a.m-open");if(link)link.focus();
      e.preventDefault();
    }
  });
  // Triage in place: the form is posted as the browser would, and the mention is replaced by its new
  // state from the page the post leads to. Anything unexpected falls back to showing that page.
  document.addEventListener("submit",function(e){
    var form=e.target;if(!form.closest||!form.closest(".triage")||!window.fetch||!window.DOMParser)return;
    var article=form.closest("article");if(!article||!article.id)return;
    e.preventDefault();
    var data=new FormData(form,e.submitter||undefined);
    fetch(form.action,{method:"POST",body:new URLSearchParams(data),credentials:"same-origin"}).then(function(res){
      return res.text().then(function(html){
        var doc=new DOMParser().parseFromString(html,"text/html");
        if(!res.ok){document.documentElement.innerHTML=doc.documentElement.innerHTML;return;}
        var fresh=doc.getElementById(article.id);
        // Gone from the page it led to: it no longer matches the inbox's filters (e.g. done under status=open).
        if(!fresh){var item=article.closest("li")||article;item.remove();return;}
        article.replaceWith(fresh);var again=fresh.querySelector(".triage button");if(again)again.focus();
      });
    }).catch(function(){form.submit();});
  });
})();
`;

const etagOf = (text: string) => `"${createHash("sha256").update(text).digest("base64url").slice(0, 27)}"`;
const APP_CSS = DASHBOARD_CSS + APP_RULES;

export const APP_ASSETS: Record<string, { type: string; body: string; etag: string }> = {
  "/app/assets/app.css": { type: "text/css", body: APP_CSS, etag: etagOf(APP_CSS) },
  "/app/assets/app.js": { type: "text/javascript", body: APP_JS, etag: etagOf(APP_JS) },
};
