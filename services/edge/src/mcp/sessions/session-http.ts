import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http";
import { ErrorCode, type JSONRPCMessage, SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/sdk/types.js";
import type { Principal } from "../../pipeline/principal";
import type { PostRefusal } from "../streamable-http";
import type { StreamCredential } from "./session-streams";
import type { McpSessions } from "./subscriptions";

// Sessions on the Streamable HTTP wire, answered as the SDK's own server transport answers them (clients
// are built against it):
// - initialize creates a session; its answer carries `Mcp-Session-Id`. A client that never initializes
//   (a plain tools/call) stays stateless: no header, no lookup.
// - a request carrying `Mcp-Session-Id` must name a live session of the same credential, else 404 with
//   JSON-RPC error -32001 "Session not found", which tells the client to initialize again.
// - GET with the session id opens the session's stream (one at a time: 409 while one is open); without a
//   session id a GET is 405, as before sessions existed, which clients read as "no stream offered".
// - DELETE with the session id ends the session (200) and closes its stream.

export const SESSION_HEADER = "mcp-session-id";
const SESSION_NOT_FOUND = -32001;

const refusal = (status: number, code: number, message: string): PostRefusal => ({ status, code, message });
const notFound = () => refusal(404, SESSION_NOT_FOUND, "Session not found");

export const writeRefusal = (res: ServerResponse, r: PostRefusal): void =>
  void res.writeHead(r.status, { "Content-Type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", error: { code: r.code, message: r.message }, id: null }));

const headerOf = (headers: IncomingHttpHeaders, name: string): string | undefined => {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
};

const isInitialize = (messages: readonly JSONRPCMessage[]) => messages.length === 1 && "method" in messages[0]! && messages[0].method === "initialize";

/** The session a POST belongs to (created for an initialize), none for a stateless client, or why it is refused. */
export const sessionOfPost = async (
  sessions: McpSessions,
  headers: IncomingHttpHeaders,
  messages: readonly JSONRPCMessage[],
  principal: Principal,
): Promise<{ sessionId?: string; created?: boolean } | PostRefusal> => {
  if (isInitialize(messages)) {
    const session = await sessions.store.create(principal.credentialId, principal.userId);
    return { sessionId: session._id, created: true };
  }
  const id = headerOf(headers, SESSION_HEADER);
  if (id === undefined) return {};
  const session = await sessions.store.find(id, principal.credentialId);
  if (!session) return notFound();
  await sessions.store.touch(session);
  return { sessionId: session._id };
};

const versionRefusal = (headers: IncomingHttpHeaders): PostRefusal | undefined => {
  const version = headerOf(headers, "mcp-protocol-version");
  if (version === undefined || SUPPORTED_PROTOCOL_VERSIONS.includes(version)) return undefined;
  return refusal(400, ErrorCode.ConnectionClosed, `Bad Request: Unsupported protocol version: ${version} (supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(", ")})`);
};

const methodNotAllowed = (res: ServerResponse) => {
  res.setHeader("Allow", "POST");
  writeRefusal(res, refusal(405, ErrorCode.ConnectionClosed, "Method not allowed: a stream or a session needs the Mcp-Session-Id that initialize answers with."));
};

/** GET /mcp: opens the session's stream of server-to-client notifications. */
export const serveStream = async (sessions: McpSessions, req: IncomingMessage, res: ServerResponse, principal: Principal, credential: StreamCredential): Promise<void> => {
  if (!headerOf(req.headers, "accept")?.includes("text/event-stream")) {
    return writeRefusal(res, refusal(406, ErrorCode.ConnectionClosed, "Not Acceptable: Client must accept text/event-stream"));
  }
  const id = headerOf(req.headers, SESSION_HEADER);
  if (id === undefined) return methodNotAllowed(res);
  const session = await sessions.store.find(id, principal.credentialId, { fresh: true });
  if (!session) return writeRefusal(res, notFound());
  const version = versionRefusal(req.headers);
  if (version) return writeRefusal(res, version);
  await sessions.store.touch(session);
  const outcome = sessions.streams.open(session, credential, res, headerOf(req.headers, "last-event-id"));
  if (outcome === "conflict") writeRefusal(res, refusal(409, ErrorCode.ConnectionClosed, "Conflict: Only one SSE stream is allowed per session"));
};

/** DELETE /mcp: ends the session. */
export const serveDelete = async (sessions: McpSessions, req: IncomingMessage, res: ServerResponse, principal: Principal): Promise<void> => {
  const id = headerOf(req.headers, SESSION_HEADER);
  if (id === undefined) return methodNotAllowed(res);
  const session = await sessions.store.find(id, principal.credentialId, { fresh: true });
  if (!session) return writeRefusal(res, notFound());
  const version = versionRefusal(req.headers);
  if (version) return writeRefusal(res, version);
  await sessions.store.end(session._id);
  sessions.streams.end(session._id);
  res.writeHead(200).end();
};
