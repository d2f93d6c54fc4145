import type { z } from "zod";
import type { Operation } from "../pipeline/operation";

// The operation contract is the pipeline's (pipeline/operation.ts), which runs every operation; it is
// re-exported here for the catalog's declarations, so the arrows go from the catalog to the pipeline only.
// What only declaring and publishing operations needs (not running them) stays here.
export * from "../pipeline/operation";

type AnyObject = z.ZodObject<z.ZodRawShape>;

export const defineOperation = <
  P extends AnyObject = AnyObject,
  Q extends AnyObject = AnyObject,
  B extends AnyObject = AnyObject,
  O extends z.ZodType = z.ZodType,
>(
  op: Operation<P, Q, B, O>,
): Operation => op as unknown as Operation;

/** Whether MCP offers the operation as a tool. */
export const isTool = (op: Operation): boolean => op.restOnly !== true;

/** `/projects/:projectId` → `/projects/{projectId}` (OpenAPI form). */
export const openApiPath = (path: string): string => path.replace(/:([A-Za-z]+)/g, "{$1}");
