import { OPERATIONS } from "../catalog";
import { renderReferencePage } from "./reference-page";

// The /docs page's MCP part lists what the MCP server answers: the resource templates and the prompts.

it("shows every resource template and prompt with its arguments", () => {
  const page = renderReferencePage(OPERATIONS);
  for (const text of [
    'id="mcp"',
    "<code>earshot://projects/{projectId}</code>",
    "<code>earshot://projects/{projectId}/mentions</code>",
    "<code>earshot://views/{viewId}/mentions</code>",
    "<code>earshot://mentions/{mentionId}</code>",
    "<code>triage_new_mentions</code>",
    "Arguments: projectId, viewId (optional).",
    "<code>weekly_report</code>",
    "-32002",
  ]) {
    expect(page).toContain(text);
  }
});
