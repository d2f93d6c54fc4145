import { type IdPrefix, idKindsText, isId } from "@earshot/platform";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { GetPromptResult, Prompt } from "@modelcontextprotocol/sdk/types.js";
import type { Operation } from "../catalog/operation";
import { anyParams, paramsOf, stringParam, stringsParam } from "./request-params";
import { invalidParams } from "./rpc-errors";

// MCP prompts: two tasks an agent is asked to do with Earshot, written as step-by-step instructions that
// name the tools to call. A prompt reads no data (the agent's tool calls do, each with its own scope and
// role), so listing and getting prompts needs nothing beyond the mcp scope. The texts are built from the
// catalog: a tool the server does not offer is never named.

const DAY_MS = 86_400_000;

interface ArgumentSpec {
  name: string;
  description: string;
  required: boolean;
  /** The kind of id the argument takes. */
  id: IdPrefix;
}

interface PromptSpec {
  name: string;
  title: string;
  description: string;
  arguments: ArgumentSpec[];
  text: (args: Readonly<Record<string, string>>, now: Date) => string;
}

const PROJECT_ARGUMENT: ArgumentSpec = { name: "projectId", description: "The project's id (prj_…): list_projects lists them.", required: true, id: "prj" };

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * The tool an agent reads new mentions with: the change feed when the catalog offers it (it answers
 * what was created or changed since the agent's last read, once each), else the newest open mentions.
 */
const newMentionsStep = (feed: boolean, projectId: string, viewId: string | undefined): string => {
  const scope = viewId ? `projectId "${projectId}" and viewId "${viewId}"` : `projectId "${projectId}"`;
  return feed
    ? `Read what is new with list_mention_changes (${scope}, limit 100, and cursor: the meta.nextCursor you kept from your last triage of this project; the first time, no cursor). ` +
        "Each item is a mention in its latest state with change created or updated. Read again at once while meta.hasMore is true, and keep the last meta.nextCursor for next time; " +
        "a 410 cursor_expired answer gives oldestCursor to start from. Triage only mentions whose status is open."
    : `Read the mentions to triage with list_mentions (${scope}, status ["open"], limit 100): newest published first. ` +
        "Follow meta.nextCursor for more pages; stop at mentions you triaged before.";
};

const triage = (feed: boolean): PromptSpec => ({
  name: "triage_new_mentions",
  title: "Triage new mentions",
  description: "Goes through a project's new mentions (or a saved view's), sets each one's status and category, and reports what needs a person.",
  arguments: [PROJECT_ARGUMENT, { name: "viewId", description: "A saved view (view_…) of the project to triage only its mentions: list_mention_views lists them.", required: false, id: "view" }],
  text: ({ projectId = "", viewId }) =>
    [
      `Triage the new mentions of the Earshot project ${projectId}${viewId ? `, in its saved view ${viewId}` : ""}.`,
      "",
      `1. Call get_project (projectId "${projectId}") for the project's name and what it monitors, and list_categories (projectId "${projectId}") for the categories a mention may be filed under.`,
      `2. ${newMentionsStep(feed, projectId, viewId)}`,
      "3. Decide each mention from its text, author, source, sentiment, metrics and relevance (the project's own model's score, label and the reasons behind it: a hint learned from the project's ratings, not a verdict; call get_mention for its triage history when someone may already have handled it):",
      "   - follow_up: it needs a person: a question, a complaint, a bug report, a sales lead, press, or negative sentiment with reach;",
      "   - done: nothing to do: noise, spam, off-topic, or already answered;",
      "   - leave it open when you are unsure.",
      '4. Record each decision with update_mention_status (mentionId, status "follow_up" or "done", and an idempotencyKey of your own so a retry is safe). ' +
        "When a category fits, call categorize_mention (mentionId, categoryId). When a mention is plainly about something else (the brand's name in another sense), " +
        "or plainly about the project while its relevance label says otherwise, call rate_mention (mentionId, relevant false or true, a short reason) so the project's model learns. These writes need the mentions:write scope and the editor or owner role: " +
        "if they are refused (403), write nothing more and list the decisions you would have made instead.",
      "5. Answer with a short summary: how many mentions you triaged, how many you set to follow_up and done, then every follow_up with its url, author and one line on why, the most urgent first.",
    ].join("\n"),
});

const weeklyReport: PromptSpec = {
  name: "weekly_report",
  title: "Weekly report",
  description: "Writes a report of a project's last 7 days: volume, sources, sentiment, share of voice, notable mentions and open follow-ups, compared with the week before.",
  arguments: [PROJECT_ARGUMENT],
  text: ({ projectId = "" }, now) => {
    const until = now.getTime();
    const since = iso(until - 7 * DAY_MS);
    const before = iso(until - 14 * DAY_MS);
    return [
      `Write the weekly report of the Earshot project ${projectId} for the 7 days from ${since} to ${iso(until)}.`,
      "",
      `1. Call get_project (projectId "${projectId}") for its name, keyword groups and time zone.`,
      `2. Call get_mention_analytics (projectId "${projectId}", since "${since}", interval "day") for the mentions per day, the week's total and the share of voice between the My brand and Competitors groups; ` +
        'call it again with groupBy "source", then groupBy "sentiment", then groupBy "group".',
      `3. Call get_mention_analytics for the week before (since "${before}", until "${since}", interval "week") to compare the totals.`,
      `4. Call list_mentions (projectId "${projectId}", since "${since}", sentiment ["negative"], limit 20) and list_mentions (projectId "${projectId}", status ["follow_up"], limit 20) ` +
        "for the notable mentions and what still waits for a person; call get_mention for one whose history matters.",
      "5. Write the report in Markdown, at most one page: the headline numbers and their change from the week before; mentions by source and by sentiment; share of voice; " +
        "the three to five most notable mentions (a link, the author, one line each); the open follow-ups; two or three recommended actions. State numbers exactly as the tools gave them.",
    ].join("\n");
  },
};

const describe = (spec: PromptSpec): Prompt => ({
  name: spec.name,
  title: spec.title,
  description: spec.description,
  arguments: spec.arguments.map((a) => ({ name: a.name, description: a.description, required: a.required })),
});

/** The arguments as given, refused with InvalidParams naming the first unknown, missing or malformed one. */
const checkedArguments = (spec: PromptSpec, given: Readonly<Record<string, string>>): Record<string, string> => {
  for (const name of Object.keys(given)) {
    if (!spec.arguments.some((a) => a.name === name)) throw invalidParams(`Unknown argument ${name} for the prompt ${spec.name}.`, { argument: name });
  }
  for (const a of spec.arguments) {
    const value = given[a.name];
    if (value === undefined || value === "") {
      if (a.required) throw invalidParams(`Missing required argument ${a.name} for the prompt ${spec.name}.`, { argument: a.name });
    } else if (!isId(a.id, value)) {
      throw invalidParams(`Argument ${a.name} must be ${idKindsText([a.id])}.`, { argument: a.name });
    }
  }
  return Object.fromEntries(Object.entries(given).filter(([, v]) => v !== ""));
};

/** The prompts as prompts/list describes them (their names, descriptions and arguments do not depend on the catalog). */
export const PROMPT_LIST: readonly Prompt[] = [triage(false), weeklyReport].map(describe);

/** Installs prompts/list and prompts/get on a server (once, when it is built). */
export const registerPrompts = (server: Server, operations: readonly Operation[], now: () => Date): void => {
  const specs = [triage(operations.some((op) => op.name === "list_mention_changes")), weeklyReport];
  const listed = { prompts: [...PROMPT_LIST] };
  server.setRequestHandler(anyParams("prompts/list"), async () => listed);
  server.setRequestHandler(anyParams("prompts/get"), async (request): Promise<GetPromptResult> => {
    const params = paramsOf(request.params);
    const name = stringParam(params, "name", true);
    const spec = specs.find((s) => s.name === name);
    if (!spec) throw invalidParams(`Unknown prompt ${name}; prompts/list names them.`, { prompt: name });
    const args = checkedArguments(spec, stringsParam(params, "arguments"));
    return { description: spec.description, messages: [{ role: "user", content: { type: "text", text: spec.text(args, now()) } }] };
  });
};
