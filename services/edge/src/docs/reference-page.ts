import { isTool, type Operation, openApiPath, takesIdempotencyKey } from "../catalog/operation";
import { createHash } from "node:crypto";
import { renderMcpSection } from "./mcp-section";
import { operationInputSchema } from "./openapi";

// A readable API reference rendered on the server from the catalog: no scripts, no CDN, works offline.

export const escapeHtml = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] as string);

const downloadFormats = (formats: NonNullable<Operation["download"]>["formats"]): string =>
  Object.entries(formats)
    .map(([word, f]) => `<p><code>format=${escapeHtml(word)}</code> or <code>Accept: ${escapeHtml(f.mediaType)}</code>: ${escapeHtml(f.description)}</p>`)
    .join("");

const section = (op: Operation): string => {
  const schema = JSON.stringify(operationInputSchema(op), null, 2);
  const hints = Object.entries(op.annotations)
    .filter(([, v]) => v)
    .map(([k]) => k.replace(/Hint$/, ""))
    .join(", ");
  return `
<section id="${op.name}">
  <h3><span class="method ${op.method.toLowerCase()}">${op.method}</span> <code>/api/v1${escapeHtml(openApiPath(op.path))}</code></h3>
  <p>${escapeHtml(op.description)}</p>
  <dl>
    <dt>MCP tool</dt><dd>${isTool(op) ? `<code>${op.name}</code>${hints ? ` (${hints})` : ""}` : "none: REST only"}</dd>
    <dt>Scope</dt><dd><code>${op.scope}</code></dd>
    <dt>Success</dt><dd>${op.successStatus}${op.list ? ", a page: <code>meta.nextCursor</code>" : ""}${op.download ? ", a file download" : ""}</dd>
    ${op.download ? `<dt>Formats</dt><dd>${downloadFormats(op.download.formats)}</dd>` : ""}
    ${takesIdempotencyKey(op) ? "<dt>Retries</dt><dd>send <code>Idempotency-Key</code></dd>" : ""}
  </dl>
  <details><summary>Input (path, query and body fields in one schema)</summary><pre>${escapeHtml(schema)}</pre></details>
</section>`;
};

const STYLE = `
body{font:16px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#1d1d1f}
code,pre{font-family:ui-monospace,monospace;font-size:.9em}pre{background:#f5f5f7;padding:1rem;overflow:auto}
.method{display:inline-block;min-width:4.5rem;text-align:center;border-radius:4px;color:#fff;font-size:.8em;padding:.1rem .4rem}
.get{background:#2b6cb0}.post{background:#2f855a}.patch{background:#b7791f}.delete{background:#c53030}
section{border-top:1px solid #ddd;padding:.5rem 0}dl{display:grid;grid-template-columns:8rem 1fr;margin:0}dt{font-weight:600}
nav ul{columns:2}
`;

/**
 * The page is self-contained: no scripts, no frames, no forms, one inline style allowed by its hash.
 * Everything else is refused, so injected markup could neither run nor load anything.
 */
export const REFERENCE_PAGE_CSP = [
  "default-src 'none'",
  `style-src 'sha256-${createHash("sha256").update(STYLE).digest("base64")}'`,
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

export const renderReferencePage = (operations: readonly Operation[]): string => {
  const tags = [...new Set(operations.map((o) => o.tag))];
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Earshot API reference</title>
<style>${STYLE}</style></head><body>
<h1>Earshot API reference</h1>
<p>Base URL <code>/api/v1</code>. Authenticate with <code>Authorization: Bearer &lt;API key or access token&gt;</code>.
Successes are <code>{ data, meta }</code>; errors are <code>application/problem+json</code> with a stable <code>code</code>.
The machine-readable document is <a href="/api/v1/openapi.json">/api/v1/openapi.json</a>. <a href="#mcp">MCP</a>: tools, resources and prompts.</p>
<nav><ul>${operations.map((o) => `<li><a href="#${o.name}">${o.name}</a></li>`).join("")}</ul></nav>
${tags.map((t) => `<h2>${escapeHtml(t)}</h2>${operations.filter((o) => o.tag === t).map(section).join("")}`).join("\n")}
${renderMcpSection()}
</body></html>`;
};
