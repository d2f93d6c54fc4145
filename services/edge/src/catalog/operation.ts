import type { z } from "zod";
import type { Backends } from "../backends";
import type { CredentialVerifier } from "../pipeline/credentials";
import type { MembershipCache } from "../pipeline/memberships";
import type { Principal } from "../pipeline/principal";

// An operation is declared once, here, and every transport is generated from it: REST routes, MCP tools
// and the OpenAPI document. Inputs are split by where REST carries them (path, query, body); MCP and the
// handler see them merged into one object, validated by the same schemas.

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
  requestId: string;
  credentials: CredentialVerifier;
  /** This process's cache of callers' memberships, for a handler that has just granted one. */
  memberships: Pick<MembershipCache, "grant">;
}

export interface HandlerResult<D> {
  data: D;
  /** Lists: the cursor of the next page, null at the end. */
  nextCursor?: string | null;
  limit?: number;
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
  handler: (input: z.infer<P> & z.infer<Q> & z.infer<B>, ctx: HandlerContext) => Promise<HandlerResult<z.output<O> | Array<z.output<O>>>>;
}

export const defineOperation = <
  P extends AnyObject = AnyObject,
  Q extends AnyObject = AnyObject,
  B extends AnyObject = AnyObject,
  O extends z.ZodType = z.ZodType,
>(
  op: Operation<P, Q, B, O>,
): Operation => op as unknown as Operation;

export const isWrite = (op: Operation): boolean => op.method !== "GET";

/** `/projects/:projectId` → `/projects/{projectId}` (OpenAPI form). */
export const openApiPath = (path: string): string => path.replace(/:([A-Za-z]+)/g, "{$1}");
