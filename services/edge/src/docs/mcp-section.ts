import { PROMPT_LIST } from "../mcp/prompts";
import { RESOURCE_TEMPLATE_LIST } from "../mcp/resource-kinds";
import { escapeHtml } from "../pages/html";

// The reference page's MCP part: besides the tools (one per operation, shown with each operation), the
// resources' URI templates and the prompts, from the same lists the MCP server answers with.

const item = (name: string, text: string | undefined) => `<li><code>${escapeHtml(name)}</code>: ${escapeHtml(text ?? "")}</li>`;

export const renderMcpSection = (): string => `
<h2 id="mcp">MCP</h2>
<p>The MCP server is <code>/mcp</code> (Streamable HTTP); it needs the <code>mcp</code> scope besides each tool's or resource's own.
Every operation above marked with an MCP tool is a tool of that name and input, answering the same <code>{ data, meta }</code>.</p>
<h3>Resources</h3>
<p><code>resources/read</code> answers one content of type <code>application/json</code> whose text is the REST read's <code>{ data, meta }</code>,
with the scopes and project roles of that operation; a resource the caller cannot see, or a URI of no resource, is JSON-RPC error
<code>-32002</code> "Resource not found". <code>resources/list</code> lists the caller's projects with their mentions resources, 20 projects a page.</p>
<ul>${RESOURCE_TEMPLATE_LIST.map((t) => item(t.uriTemplate, t.description)).join("")}</ul>
<h3>Prompts</h3>
<ul>${PROMPT_LIST.map((p) => item(p.name, `${p.description ?? ""} Arguments: ${(p.arguments ?? []).map((a) => `${a.name}${a.required ? "" : " (optional)"}`).join(", ")}.`)).join("")}</ul>`;
