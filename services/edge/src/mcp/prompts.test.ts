import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { OPERATIONS } from "../catalog";
import type { Operation } from "../catalog/operation";
import { registerPrompts } from "./prompts";

// The prompts' texts: every tool they name is one the server offers, and the change feed is named only
// when the catalog has it.

const NOW = new Date("2026-11-28T12:00:00.000Z");
const PROJECT = "prj_01JZZZZZZZZZZZZZZZZZZZZZZZ";
const VIEW = "view_01JZZZZZZZZZZZZZZZZZZZZZZZ";

const clientFor = async (operations: readonly Operation[]): Promise<Client> => {
  const server = new Server({ name: "test", version: "1" }, { capabilities: { prompts: { listChanged: false } } });
  registerPrompts(server, operations, () => NOW);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "test", version: "1" });
  await client.connect(clientSide);
  return client;
};

const textOf = async (client: Client, name: string, args: Record<string, string>): Promise<string> => {
  const { messages } = await client.getPrompt({ name, arguments: args });
  return messages.map((m) => (m.content.type === "text" ? m.content.text : "")).join("\n");
};

/** Snake_case words the prompts use that are values, not tools. */
const NOT_TOOLS = new Set(["follow_up", "cursor_expired"]);

/** The snake_case words of a text that are no value: the tool names it cites. */
const toolNamesIn = (text: string): string[] => [...new Set(text.match(/\b[a-z]+(?:_[a-z]+)+\b/g) ?? [])].filter((w) => !NOT_TOOLS.has(w));

describe("MCP prompts", () => {
  it("names only tools of the catalog", async () => {
    const client = await clientFor(OPERATIONS);
    const names = new Set(OPERATIONS.map((op) => op.name));
    for (const [prompt, args] of [
      ["triage_new_mentions", { projectId: PROJECT, viewId: VIEW }],
      ["weekly_report", { projectId: PROJECT }],
    ] as const) {
      const cited = toolNamesIn(await textOf(client, prompt, args));
      expect(cited.length).toBeGreaterThan(3);
      expect(cited.filter((n) => !names.has(n))).toEqual([]);
    }
  });

  it("reads new mentions from the change feed when the catalog has it, else from the open mentions", async () => {
    const feed = { name: "list_mention_changes" } as Operation;
    const withFeed = await textOf(await clientFor([feed]), "triage_new_mentions", { projectId: PROJECT });
    expect(withFeed).toContain(`list_mention_changes (projectId "${PROJECT}", limit 100, and cursor`);
    const withoutFeed = await textOf(await clientFor([]), "triage_new_mentions", { projectId: PROJECT, viewId: VIEW });
    expect(withoutFeed).not.toContain("list_mention_changes");
    expect(withoutFeed).toContain(`list_mentions (projectId "${PROJECT}" and viewId "${VIEW}", status ["open"]`);
  });

  it("dates the weekly report's period from the server's clock", async () => {
    const text = await textOf(await clientFor([]), "weekly_report", { projectId: PROJECT });
    expect(text).toContain(`from 2026-11-21T12:00:00.000Z to 2026-11-28T12:00:00.000Z`);
    expect(text).toContain(`since "2026-11-14T12:00:00.000Z", until "2026-11-21T12:00:00.000Z"`);
  });

  it("takes an empty optional argument as absent and refuses an empty required one", async () => {
    const client = await clientFor([]);
    expect(await textOf(client, "triage_new_mentions", { projectId: PROJECT, viewId: "" })).not.toContain("view_");
    await expect(client.getPrompt({ name: "weekly_report", arguments: { projectId: "" } })).rejects.toMatchObject({ code: -32602, message: expect.stringContaining("projectId") });
  });
});
