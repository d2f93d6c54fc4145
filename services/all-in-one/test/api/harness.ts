import type { AddressInfo } from "node:net";
import { listQueryParameters, OPERATIONS, type Operation, splitInput } from "@earshot/edge";
import { ALL_SCOPES } from "@earshot/account/scopes";
import { type Clock, runWithCaller, silentLogger } from "@earshot/platform";
import { connectServices, serviceAddresses, type ServiceClients } from "@earshot/registry";
import { SMTPServer } from "smtp-server";
import { testCaller } from "../../../platform/src/testing/caller";
import { contractCheck } from "./contract";
import { makeTempDir } from "../../../platform/src/testing/tmp";
import { type RunningEarshot, startAllInOne } from "../../src/all-in-one";
import { offlineFreeSources } from "./offline-sources";
import { type AllInOneConfig, loadAllInOneConfig } from "../../src/config";

// A running Earshot (all-in-one, real gRPC hops, embedded store) with a real SMTP server catching its
// mail, and helpers to call operations the way a client would. Every answer to `call` is checked against
// the OpenAPI document (the operation's envelope on success, the Problem schema on failure).

export interface CapturedMail {
  to: string[];
  raw: string;
}

export interface ApiResponse {
  status: number;
  headers: Headers;
  /** The JSON answer ({} for a body of another media type, such as a download). */
  body: Record<string, unknown> & { data?: unknown; meta?: Record<string, unknown>; code?: string; errors?: Array<{ path: string }> };
  /** The body as sent. */
  text: string;
}

export interface Actor {
  userId: string;
  workspaceId: string;
  email: string;
  key: string;
}

/** Besides the helpers, a gRPC client per registered service under its name (`h.account`, `h.project`, …). */
export type Harness = ServiceClients & HarnessHelpers;

export interface HarnessHelpers {
  running: RunningEarshot;
  /** The settings the all-in-one was started with (defaults filled in). */
  config: AllInOneConfig;
  url: string;
  mail: CapturedMail[];
  newActor(options?: { scopes?: string[]; name?: string }): Promise<Actor>;
  keyFor(actor: Actor, scopes: string[]): Promise<string>;
  api(
    method: string,
    path: string,
    options?: { key?: string; body?: unknown; idempotencyKey?: string; rawBody?: string; headers?: Record<string, string> },
  ): Promise<ApiResponse>;
  /** Calls an operation over REST: path fields in the path, list query fields as repeated parameters. */
  call(opName: string, input: Record<string, unknown>, key: string | undefined, options?: { idempotencyKey?: string; headers?: Record<string, string> }): Promise<ApiResponse>;
  /** The REST path and query `call` sends for an operation's input. */
  pathOf(opName: string, input: Record<string, unknown>): string;
  inviteToken(email: string): string | undefined;
  addMember(owner: Actor, projectId: string, role: "viewer" | "editor"): Promise<Actor>;
  /** Runs `fn` with the gRPC calls it makes acting for `actor` (as the edge would send its caller). */
  as<T>(actor: Actor, fn: () => Promise<T>): Promise<T>;
  stop(): Promise<void>;
}

let counter = 0;

export const opByName = (name: string): Operation => {
  const op = OPERATIONS.find((o) => o.name === name);
  if (!op) throw new Error(`no operation ${name}`);
  return op;
};

export const startHarness = async (env: Record<string, string> = {}, clock?: Clock): Promise<Harness> => {
  const tmp = await makeTempDir("earshot-api-");
  const mail: CapturedMail[] = [];
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onData(stream, session, callback) {
      let raw = "";
      stream.on("data", (c: Buffer) => (raw += c.toString()));
      stream.on("end", () => {
        mail.push({ to: session.envelope.rcptTo.map((r) => r.address), raw });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, "127.0.0.1", resolve));
  const smtpPort = (smtp.server.address() as AddressInfo).port;
  const offline = await offlineFreeSources(env);
  const config = loadAllInOneConfig({
    EARSHOT_DATA_DIR: tmp.dir,
    PORT: "0",
    LOG_LEVEL: "silent",
    // A test's data dies with it: commits need not wait for the disk.
    EARSHOT_STORE_SYNC: "normal",
    EARSHOT_SMTP_URL: `smtp://127.0.0.1:${smtpPort}?ignoreTLS=true`,
    EARSHOT_RATE_LIMIT_PER_MINUTE: "100000",
    EARSHOT_OAUTH_RATE_LIMIT_PER_MINUTE: "0",
    EARSHOT_AUTH_FAILURES_PER_MINUTE: "100000",
    // Test webhook receivers listen on this machine.
    EARSHOT_WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
    ...offline.settings,
    ...env,
  });
  const running = await startAllInOne(config, silentLogger(), clock);
  const addr = (name: string) => running.services.find((s) => s.name === name)?.address ?? "";
  // The tests' own calls are signed with the instance's keys, as its gateway's and the operator CLI's are.
  const services = connectServices(serviceAddresses(addr), running.callKeys);
  const { account, project } = services.clients;

  const keyFor = async (actor: Actor, scopes: string[]) =>
    (await account.createApiKey({ userId: actor.userId, name: "test", scopes, granterScopes: [], operator: true })).plaintext;

  const newActor = async (options: { scopes?: string[]; name?: string } = {}): Promise<Actor> => {
    counter += 1;
    const email = `user${counter}-${Date.now()}@example.com`;
    const { user } = await account.createUser({ email, name: options.name ?? `User ${counter}`, password: "correct horse battery" });
    const actor: Actor = { userId: user!.id, workspaceId: user!.workspaceId, email, key: "" };
    actor.key = await keyFor(actor, options.scopes ?? [...ALL_SCOPES]);
    return actor;
  };

  const api: Harness["api"] = async (method, path, options = {}) => {
    const headers: Record<string, string> = { ...options.headers };
    if (options.key) headers.Authorization = `Bearer ${options.key}`;
    if (options.idempotencyKey) headers["Idempotency-Key"] = options.idempotencyKey;
    const hasBody = options.body !== undefined || options.rawBody !== undefined;
    if (hasBody) headers["Content-Type"] = "application/json";
    const res = await fetch(`${running.url}${path}`, {
      method,
      headers,
      ...(hasBody ? { body: options.rawBody ?? JSON.stringify(options.body) } : {}),
    });
    const text = await res.text();
    const json = /^application\/(problem\+)?json/.test(res.headers.get("content-type") ?? "");
    return { status: res.status, headers: res.headers, body: text && json ? (JSON.parse(text) as ApiResponse["body"]) : {}, text };
  };

  const contract = contractCheck();
  const pathOf: Harness["pathOf"] = (opName, input) => {
    const op = opByName(opName);
    const parts = splitInput(op, input);
    let path = `/api/v1${op.path}`;
    for (const [k, v] of Object.entries(parts.path)) path = path.replace(`:${k}`, encodeURIComponent(String(v)));
    // Hostile test values may be objects without a prototype: send them as JSON instead of crashing the test.
    const asText = (v: unknown) => (typeof v === "object" && v !== null ? JSON.stringify(v) : String(v));
    const lists = listQueryParameters(op);
    const qs = new URLSearchParams(
      Object.entries(parts.query).flatMap(([k, v]): Array<[string, string]> => (lists.has(k) && Array.isArray(v) ? v.map((item) => [k, asText(item)]) : [[k, asText(v)]])),
    ).toString();
    return `${path}${qs ? `?${qs}` : ""}`;
  };

  const call: Harness["call"] = async (opName, input, key, options = {}) => {
    const op = opByName(opName);
    const response = await api(op.method, pathOf(opName, input), {
      ...(key ? { key } : {}),
      ...(op.input.body ? { body: splitInput(op, input).body } : {}),
      ...(options.idempotencyKey ? { idempotencyKey: options.idempotencyKey } : {}),
      ...(options.headers ? { headers: options.headers } : {}),
    });
    contract.check(op, response.status, response.body, { contentType: response.headers.get("content-type"), text: response.text });
    return response;
  };

  const inviteToken = (email: string): string | undefined => {
    for (const m of [...mail].reverse()) {
      if (!m.to.includes(email)) continue;
      // Quoted-printable may fold long lines with "=\r\n"; undo that before looking for the link.
      const text = m.raw.replace(/=\r?\n/g, "").replace(/=3D/g, "=");
      const match = /\/invitations\/([A-Za-z0-9_-]{20,})/.exec(text);
      if (match) return match[1];
    }
    return undefined;
  };

  const addMember: Harness["addMember"] = async (owner, projectId, role) => {
    const member = await newActor();
    const invited = await call("invite_project_member", { projectId, email: member.email, role }, owner.key);
    if (invited.status !== 201) throw new Error(`invite failed: ${JSON.stringify(invited.body)}`);
    const token = inviteToken(member.email);
    if (!token) throw new Error("no invitation mail captured");
    await project.acceptInvitation({ token, userId: member.userId, userEmail: member.email, userName: "Member" });
    return member;
  };

  return {
    running,
    config,
    url: running.url,
    mail,
    ...services.clients,
    newActor,
    keyFor,
    api,
    call,
    pathOf,
    inviteToken,
    addMember,
    as: (actor, fn) => runWithCaller(testCaller({ id: actor.userId, workspaceId: actor.workspaceId, email: actor.email }), fn),
    stop: async () => {
      services.close();
      await running.stop();
      await new Promise<void>((resolve) => smtp.close(() => resolve()));
      await offline.close();
      await tmp.cleanup();
    },
  };
};
