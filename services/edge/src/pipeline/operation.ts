import type { z } from "zod";
import type { Logger } from "@earshot/platform";
import type { Backends } from "../backends";
import type { CredentialVerifier } from "./credentials";
import type { MembershipCache } from "./memberships";
import type { Principal } from "./principal";

// An operation is declared once (in catalog/, with defineOperation), to this contract, and every transport
// is generated from it: REST routes, MCP tools and the OpenAPI document. Inputs are split by where REST
// carries them (path, query, body); MCP and the handler see them merged into one object, validated by the
// same schemas. The contract lives with the pipeline that runs it, so the catalog depends on the pipeline
// and never the other way round.

export type HttpMethod = "GET" | "POST" | "PATCH" | "PUT" | "DELETE";

export interface ToolAnnotations {
  /** Reads only (GET). */
  readOnlyHint: boolean;
  /** May destroy or hide data (archive, delete, remove). Meaningful only when not read-only. */
  destructiveHint: boolean;
  /** Repeating the same call has no further effect. */
  idempotentHint: boolean;
  /** Touches systems outside Earshot (email, social platforms, public pages). */
  openWorldHint: boolean;
}

export interface HandlerContext {
  backends: Backends;
  principal: Principal;
  /** The origin clients use, for links (share URLs, invitation links). */
  publicUrl: string;
  /**
   * The origin this request reached: the public URL when one is set, else the loopback name the client
   * used (as OAuth issuers are). Browser round trips (the LinkedIn callback) must come back to it.
   */
  origin: string;
  requestId: string;
  /** The request's logger (its request id bound): for what a handler answers in part, and why. */
  logger: Logger;
  credentials: CredentialVerifier;
  /** This process's cache of callers' memberships, for a handler that has just granted one. */
  memberships: Pick<MembershipCache, "grant">;
  /** A download's format word (a key of the operation's `download.formats`), as the request chose it. */
  format?: string;
  /** Aborted when the client goes away before the answer (a long poll stops waiting then). */
  signal?: AbortSignal;
}

export interface HandlerResult<D> {
  data: D;
  /** Lists: the cursor of the next page, null at the end. */
  nextCursor?: string | null;
  limit?: number;
  /** Further members of `meta`, which the operation's `meta` declares (a change feed's `hasMore`). */
  meta?: Record<string, unknown>;
}

/** A download's body, produced while the client reads it. */
export interface StreamResult {
  stream: {
    /** Offered as the saved file's name (`Content-Disposition: attachment`). */
    filename: string;
    /**
     * The body's pieces. The transport asks for the next one only once the last is written, so a producer
     * that fetches as it is asked holds one piece at a time however long the body.
     */
    chunks: AsyncIterable<string>;
  };
}

export interface DownloadFormat {
  mediaType: string;
  /** What the body holds, for the documents. */
  description: string;
  /** The file name extension. */
  extension: string;
  /** For a stream of JSON lines: the resource schema of each line (the operation's `output`). */
  lines?: boolean;
}

type AnyObject = z.ZodObject<z.ZodRawShape>;

export interface Operation<
  P extends AnyObject = AnyObject,
  Q extends AnyObject = AnyObject,
  B extends AnyObject = AnyObject,
  O extends z.ZodType = z.ZodType,
> {
  /** The tool name of the spec, e.g. `create_project`. */
  name: string;
  title: string;
  description: string;
  method: HttpMethod;
  /** Express-style path under /api/v1, e.g. `/projects/:projectId`. */
  path: string;
  scope: string;
  /** OpenAPI tag. */
  tag: string;
  input: { path?: P; query?: Q; body?: B };
  /** Inputs MCP callers must give although REST has a default for them (required in the tool's schema). */
  mcpRequired?: readonly string[];
  successStatus: 200 | 201 | 202 | 204;
  annotations: ToolAnnotations;
  /**
   * What `data` holds on success: a resource schema registered in `resourceSchemas` (for a list, the
   * schema of one item; the generators wrap it in an array). OpenAPI and the MCP tools publish it.
   */
  output: O;
  /** Whether the result is a page (data is an array of `output`; adds nextCursor/limit to meta). */
  list?: boolean;
  /** The answer carries a secret (a key's plaintext): every transport marks it `Cache-Control: no-store`. */
  sensitive?: boolean;
  /**
   * Offered over REST only, not as an MCP tool (tools/list leaves it out, tools/call does not know it):
   * what it answers is not a tool result, e.g. a download.
   */
  restOnly?: boolean;
  /**
   * The answer is a streamed file, not a `{ data, meta }` body: the handler returns a StreamResult in
   * one of these formats, keyed by the word of the `format` input; without one, the request's Accept
   * header picks (the first format when it accepts anything), and nothing acceptable is 406.
   */
  download?: { formats: Record<string, DownloadFormat> };
  /**
   * A long poll: the number input of this name is seconds the call may wait for something to happen. The
   * pipeline bounds how many such calls one credential has waiting at once in this process (a waiting call
   * holds a connection and a slot in the service): one more is 429 naming the input.
   */
  waitInput?: string;
  /** Members the operation adds to `meta`, as JSON Schema properties, for the documents. */
  meta?: Record<string, Record<string, unknown>>;
  /** Problem statuses the operation may answer besides the ones every operation may (e.g. 410). */
  problemStatuses?: readonly number[];
  handler: (
    input: z.infer<P> & z.infer<Q> & z.infer<B>,
    ctx: HandlerContext,
  ) => Promise<HandlerResult<z.output<O> | Array<z.output<O>>> | StreamResult>;
}

export const isWrite = (op: Operation): boolean => op.method !== "GET";

/**
 * Whether an Idempotency-Key means anything to the operation: a write that changes something. A POST that
 * only reads (its input is a body, as preview_keyword's definition) is repeated safely without one.
 */
export const takesIdempotencyKey = (op: Operation): boolean => isWrite(op) && !op.annotations.readOnlyHint;

export const isStreamResult = (result: HandlerResult<unknown> | StreamResult): result is StreamResult => "stream" in result;
