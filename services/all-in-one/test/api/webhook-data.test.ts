import { writeFile } from "node:fs/promises";
import { type AddressInfo, createServer } from "node:net";
import { join } from "node:path";
import { makeTempDir, waitFor } from "@earshot/platform/testing";
import { type RunningSimulators, startSimulators } from "@earshot/simulators";
import { Webhook } from "standardwebhooks";
import { type Received, type Receiver, startReceiver } from "../../../webhook/src/receiver-test-support";
import { WEBHOOK_EVENT_TYPES } from "../../../webhook/src/fields";
import { createWebhook } from "./cases/webhooks";
import { openApiDocument, standalone, strictAjv } from "./contract";
import { type Actor, type Harness, startHarness } from "./harness";
import { ACME, connectedProject } from "./linkedin-flow";
import { ingestPosts, postFor, uniqueName } from "./world";

// A webhook's `data` is the resource as the API presents it: each deliverable event type is triggered
// through the API and received on a real HTTPS receiver (verified with standardwebhooks); its body must be
// what the OpenAPI document's `webhooks` entry of its type says, and its data deep-equal to the REST read of
// the resource right after (get_project less the caller's `role`, list_keyword_groups' item, the answer of a
// delete for what a delete leaves unreadable). The public URL is
// set so the gateway and the delivery deployable write a project's share URL on the same origin. LinkedIn's
// events come from its simulator.

/** A port nothing listens on now, for the gateway: its public URL must be known before the services start. */
const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
    probe.on("error", reject);
  });

let h: Harness;
let sims: RunningSimulators;
let receiver: Receiver;
let cleanup: () => Promise<void>;
let owner: Actor & { key: string };
let secret = "";

beforeAll(async () => {
  receiver = await startReceiver();
  const tmp = await makeTempDir("earshot-webhook-data-");
  cleanup = tmp.cleanup;
  const caFile = join(tmp.dir, "ca.pem");
  await writeFile(caFile, receiver.ca);
  const port = await freePort();
  sims = await startSimulators({ platforms: ["linkedin"], generate: false });
  h = await startHarness({ ...sims.settings, EARSHOT_POLL_INTERVAL_SECONDS: "86400", EARSHOT_WEBHOOK_CA_FILE: caFile, PORT: String(port), EARSHOT_PUBLIC_URL: `http://localhost:${port}` });
  owner = (await h.newActor()) as Actor & { key: string };
  secret = (await createWebhook(h, owner, null, ["*"], `${receiver.url}?walk`)).secret;
}, 60_000);

afterAll(async () => {
  await h?.stop();
  await sims?.close();
  await receiver?.close();
  await cleanup?.();
});

interface Payload {
  type: string;
  timestamp: string;
  data: Record<string, unknown>;
  context: Record<string, unknown>;
}

const headersOf = (r: Received): Record<string, string> => ({
  "webhook-id": String(r.headers["webhook-id"]),
  "webhook-timestamp": String(r.headers["webhook-timestamp"]),
  "webhook-signature": String(r.headers["webhook-signature"]),
});

const walked = new Set<string>();

const doc = openApiDocument();
const bodySchemas = new Map(
  Object.entries(doc.webhooks as Record<string, { post: { requestBody: { content: { "application/json": { schema: object } } } } }>).map(([type, { post }]) => [
    type,
    strictAjv().compile(standalone(post.requestBody.content["application/json"].schema, doc)),
  ]),
);

/** The verified payload of the latest `type` delivery about the resource `id` (a LinkedIn connection: its project's), once one arrives. */
const delivered = async (type: string, id: string): Promise<Payload> => {
  let found: Payload | undefined;
  await waitFor(() => {
    for (const r of receiver.received) {
      const payload = JSON.parse(r.body) as Payload;
      if (payload.type === type && (payload.data.id ?? payload.data.projectId) === id) found = new Webhook(secret).verify(r.body, headersOf(r)) as Payload;
    }
    return found !== undefined;
  }, 15_000);
  walked.add(type);
  // The body is what the OpenAPI document publishes for the type.
  const validate = bodySchemas.get(type);
  expect({ type, valid: validate?.(found) ?? false, errors: validate?.errors ?? null }).toEqual({ type, valid: true, errors: null });
  return found!;
};

const ok = async (tool: string, input: Record<string, unknown>): Promise<Record<string, unknown>> => {
  const res = await h.call(tool, input, owner.key);
  if (res.status >= 300) throw new Error(`${tool} answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body.data as Record<string, unknown>;
};

const withoutRole = ({ role: _role, ...project }: Record<string, unknown>) => project;
const withoutAllowance = ({ syncsPerDay: _perDay, syncsLeftToday: _left, ...integration }: Record<string, unknown>) => integration;

const groupOf = async (projectId: string, groupId: string) =>
  ((await ok("list_keyword_groups", { projectId })) as unknown as Array<Record<string, unknown>>).find((g) => g.id === groupId);

it("sends, for every deliverable event type, data equal to the API's read of the resource at that moment, with the context beside it", async () => {
  const project = await ok("create_project", { name: uniqueName() });
  const projectId = project.id as string;
  expect((await delivered("project.created", projectId)).data).toEqual(withoutRole(await ok("get_project", { projectId })));

  await ok("set_public_dashboard", { projectId, enabled: true, description: "Ours" });
  await ok("update_project", { projectId, name: "Renamed" });
  const renamed = await delivered("project.updated", projectId);
  const read = withoutRole(await ok("get_project", { projectId }));
  // The latest update of the project, its share URL on the public origin.
  await waitFor(() => receiver.received.some((r) => r.body.includes('"Renamed"') && r.body.includes("project.updated")), 15_000);
  const latest = receiver.received.map((r) => JSON.parse(r.body) as Payload).filter((p) => p.type === "project.updated" && p.data.id === projectId).pop()!;
  expect(latest.data).toEqual(read);
  expect(latest.data).toMatchObject({ name: "Renamed", publicDashboard: { shareUrl: expect.stringMatching(new RegExp(`^${h.url}/p/`)) } });
  expect(latest.context).toEqual({ workspaceId: owner.workspaceId, changed: ["name"] });
  expect(renamed.data).not.toHaveProperty("role");

  const group = await ok("create_keyword_group", { projectId, name: "Rivals" });
  const groupId = group.id as string;
  expect((await delivered("keyword_group.created", groupId)).data).toEqual(await groupOf(projectId, groupId));
  await ok("update_keyword_group", { groupId, name: "Rivals and friends" });
  expect((await delivered("keyword_group.updated", groupId)).data).toEqual(await groupOf(projectId, groupId));

  const value = uniqueName("Zephyr").replace(/\s+/g, "");
  const keyword = await ok("create_keyword", { projectId, value, groupId });
  const keywordId = keyword.id as string;
  expect((await delivered("keyword.created", keywordId)).data).toEqual(await ok("get_keyword", { keywordId }));
  await ok("update_keyword", { keywordId, aliases: [`${value}s`] });
  const updated = await delivered("keyword.updated", keywordId);
  expect(updated.data).toEqual(await ok("get_keyword", { keywordId }));
  expect(updated.context).toEqual({ workspaceId: owner.workspaceId, changed: ["aliases"] });

  await ingestPosts(h, [postFor(projectId, { text: `${value} makes the best widgets`, author: { followers: 12 } })]);
  let mentionId = "";
  await waitFor(() => {
    const created = receiver.received.map((r) => JSON.parse(r.body) as Payload).find((p) => p.type === "mention.created" && (p.data.keywordIds as string[]).includes(keywordId));
    mentionId = String(created?.data.id ?? "");
    return mentionId !== "";
  }, 15_000);
  const created = await delivered("mention.created", mentionId);
  expect(created.data).toEqual(await ok("get_mention", { mentionId }));
  expect(created.data).toMatchObject({ author: { followers: 12 }, categoryId: null, history: [] });
  expect(created.context).toEqual({ workspaceId: owner.workspaceId, keywords: [{ id: keywordId, value, groupId }], groups: [{ id: groupId, name: "Rivals and friends" }] });
  await ok("update_mention_status", { mentionId, status: "done" });
  const triaged = await delivered("mention.updated", mentionId);
  expect(triaged.data).toEqual(await ok("get_mention", { mentionId }));
  expect(triaged.context).toEqual({ workspaceId: owner.workspaceId, changed: ["status"], byUserId: owner.userId });

  await ok("delete_keyword", { keywordId });
  expect((await delivered("keyword.deactivated", keywordId)).data).toEqual(await ok("get_keyword", { keywordId }));
  // A deleted group and an archived project can no longer be read: their data is what the delete answered.
  const deletedGroup = await ok("delete_keyword_group", { groupId });
  expect((await delivered("keyword_group.deleted", groupId)).data).toEqual(deletedGroup);
  const archived = await ok("archive_project", { projectId });
  expect((await delivered("project.archived", projectId)).data).toEqual(withoutRole(archived));


  // LinkedIn, against its simulator: data is get_linkedin_integration's answer less the caller's allowance.
  const linkedin = await connectedProject(h, owner);
  const integration = async () => withoutAllowance(await ok("get_linkedin_integration", { projectId: linkedin.projectId }));
  const connected = await delivered("integration.linkedin.connected", linkedin.projectId);
  expect(connected.data).toMatchObject({ status: "connected", page: { organizationUrn: ACME } });
  const synced = await delivered("integration.linkedin.synced", linkedin.projectId);
  expect(synced.data).toEqual(await integration());
  expect(synced.context).toEqual({ workspaceId: owner.workspaceId, postsFound: 0 });
  // The connection as it was when connected: the sync since set lastSyncAt, nothing else.
  expect(connected.data).toEqual({ ...(await integration()), lastSyncAt: null });
  await ok("disconnect_linkedin", { projectId: linkedin.projectId });
  const disconnected = await delivered("integration.linkedin.disconnected", linkedin.projectId);
  expect(disconnected.data).toEqual(await integration());
  expect(disconnected.context).toEqual({ workspaceId: owner.workspaceId, reason: "disconnected" });

  expect(WEBHOOK_EVENT_TYPES.filter((t) => !walked.has(t))).toEqual([]);
}, 60_000);
