import { readFileSync } from "node:fs";
import { join } from "node:path";
import { API_VERSION } from "../../http/request-context";
import { escapeHtml, sendPage } from "../../pages/html";
import { definePage } from "../../pages/page";

// The front door: what a browser opening Earshot's address sees. It says what this is, where the API
// reference and the OpenAPI document are, how to add the MCP server to a client, and where the operator
// finds the first owner's credentials. It names the file, never its content: the page is public.

/** The package's version (package.json ships beside dist/ in every image; src/ and dist/ sit at one depth). */
const softwareVersion = (): string => {
  try {
    const pkg = JSON.parse(readFileSync(join(__dirname, "..", "..", "..", "package.json"), "utf8")) as { version?: unknown };
    return typeof pkg.version === "string" ? pkg.version : "unknown";
  } catch {
    return "unknown";
  }
};

const VERSION = softwareVersion();

export const homeBody = (publicUrl: string): string => {
  const mcp = `${publicUrl}/mcp`;
  const cursor = JSON.stringify({ mcpServers: { earshot: { url: mcp } } });
  return [
    `<p>Social-mention monitoring: projects track keywords on X, Reddit, YouTube and LinkedIn and collect the mentions. Version ${escapeHtml(VERSION)}, API ${escapeHtml(API_VERSION)}.</p>`,
    `<h2>The API</h2>`,
    `<ul><li><a href="/docs">API reference</a> (every operation, its input and its answer)</li>`,
    `<li><a href="/api/v1/openapi.json">OpenAPI 3.1 document</a>, for generated clients</li></ul>`,
    `<p>Calls go to <code>${escapeHtml(publicUrl)}/api/v1</code> with <code>Authorization: Bearer</code> and an API key.</p>`,
    `<h2>AI agents (MCP)</h2>`,
    `<p>The MCP server (Streamable HTTP) is <code>${escapeHtml(mcp)}</code>. Add this server to your MCP client, e.g. in Cursor's <code>~/.cursor/mcp.json</code>: <code>${escapeHtml(cursor)}</code>. The client opens a sign-in page in your browser (OAuth); clients without OAuth send an API key holding the <code>mcp</code> scope as an <code>Authorization</code> header.</p>`,
    `<h2>First steps for the operator</h2>`,
    `<p>On its first start with an empty data directory, Earshot created an owner and wrote their email, password and an API key holding every scope to <code>bootstrap.json</code> in its data directory: <code>.data/bootstrap.json</code> in the directory <code>make run</code> started from, or <code>bootstrap.json</code> under <code>EARSHOT_DATA_DIR</code>. Only the account running Earshot can read it. Use the key with the API, or the email and password when a client opens the sign-in page.</p>`,
    `<p>Stored in MongoDB there is no such file: create the first user and key with <code>npx earshot user create</code> and <code>npx earshot key create</code>.</p>`,
    `<p>Readiness: <a href="/readyz">/readyz</a>.</p>`,
  ].join("\n");
};

export const homePage = definePage({
  title: "Earshot's home page",
  method: "GET",
  paths: ["/"],
  handler: async (_req, res, { publicUrl }) => {
    sendPage(res, 200, `Earshot at ${new URL(publicUrl).host}`, homeBody(publicUrl));
  },
});
